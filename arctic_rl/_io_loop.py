"""`IOLoop`: the one event loop a client's I/O runs on, on a private daemon thread.

An httpx connection pool, its sockets and the tasks around them belong to the event loop
that opened them, and the frameworks call from loops they make and drop: SkyRL runs each
call on a fresh loop in a worker thread and never closes it, scripts ``asyncio.run`` each
call, verl calls from plain threads. So the client keeps its pool, retry state and poll
schedule on a loop of its own and bridges every call to it (`IOLoop.call` from any loop,
`IOLoop.run` from code that cannot await): one hop there and one back, whichever loop or
thread calls, and nothing of the client's is left on a caller's loop once a call returns.

The thread starts on the first call (and again in a forked child, which inherits the
object but not the thread). `IOLoop.stop` (the client's close) cancels what still
runs there, runs the owner's ``closing`` coroutine (closing the pool), and lets
`asyncio.Runner` wind the loop down (async generators, the default executor) and close
it; a loop never stopped is stopped the same way when its `IOLoop` is collected or the
interpreter exits (`weakref.finalize`), so no socket, task or thread outlives its use.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import inspect
import logging
import os
import threading
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

__all__ = ["IOLoop", "on_io_loop", "on_io_loop_methods"]

log = logging.getLogger("arctic_rl")

T = TypeVar("T")
P = ParamSpec("P")
# How long a stop waits for the loop thread to wind down before leaving it (a daemon).
STOP_TIMEOUT_S = 10.0


class _Serving:
    """One started loop thread: its loop, and the event that ends it."""

    def __init__(self, name: str, closing: Callable[[], Awaitable[None]] | None) -> None:
        self.pid = os.getpid()  # a forked child has the object but not the thread
        self._closing = closing
        self._stopping: asyncio.Event | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        started = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(started,), name=name, daemon=True)
        self.thread.start()
        started.wait()

    def _serve(self, started: threading.Event) -> None:
        with asyncio.Runner() as runner:
            self.loop = runner.get_loop()
            self._stopping = asyncio.Event()
            started.set()
            runner.run(self._until_stopped())

    async def _until_stopped(self) -> None:
        assert self._stopping is not None
        await self._stopping.wait()
        current = asyncio.current_task()
        unfinished = [task for task in asyncio.all_tasks() if task is not current]
        for task in unfinished:
            task.cancel()
        await asyncio.gather(*unfinished, return_exceptions=True)
        if self._closing is not None:
            try:
                await self._closing()
            except Exception as exc:  # the loop still winds down; say what was left open
                log.warning("arctic_rl: closing the client's connections failed: %r", exc)

    def stop(self) -> None:
        """End the loop; from another thread, wait until it has closed."""
        loop, stopping = self.loop, self._stopping
        if loop is None or stopping is None or not self.thread.is_alive():
            return
        with contextlib.suppress(RuntimeError):  # it closed meanwhile
            loop.call_soon_threadsafe(stopping.set)
        if threading.current_thread() is not self.thread:
            self.thread.join(STOP_TIMEOUT_S)


class IOLoop:
    """A private event loop on a daemon thread, started on first use; see the module doc.

    ``closing``: a coroutine function run on the loop as it stops (after any call still
    running there is cancelled), to close what lives on it.
    """

    def __init__(
        self, name: str = "arctic-rl-io", closing: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        self._name = name
        self._closing = closing
        self._lock = threading.Lock()
        self._serving: _Serving | None = None
        self._finalizer: weakref.finalize | None = None  # type: ignore[type-arg]

    def __repr__(self) -> str:
        return f"IOLoop(name={self._name!r}, running={self._serving is not None})"

    def _started(self) -> _Serving:
        serving = self._serving
        if serving is None or serving.pid != os.getpid():
            with self._lock:
                serving = self._serving
                if serving is None or serving.pid != os.getpid():
                    serving = self._serving = _Serving(self._name, self._closing)
                    # Holds the serving thread, never this object: collecting it stops the loop.
                    self._finalizer = weakref.finalize(self, serving.stop)
        return serving

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The running loop (started now if it was not)."""
        loop = self._started().loop
        assert loop is not None
        return loop

    def is_current(self) -> bool:
        """Whether the caller runs on this loop's thread."""
        serving = self._serving
        return serving is not None and threading.current_thread() is serving.thread

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on this loop from any loop; cancelling the caller cancels it there."""
        loop = self.loop
        if asyncio.get_running_loop() is loop:
            return await coro
        return await asyncio.wrap_future(_submit(coro, loop))

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on this loop and wait for it: for callers that cannot await."""
        loop = self.loop
        if self.is_current():
            coro.close()
            raise RuntimeError("a blocking call was made from the client's own I/O loop")
        return _submit(coro, loop).result()

    def stop(self) -> None:
        """Cancel what runs there, run ``closing``, close the loop and end its thread.

        From the loop's own thread the loop winds down once the running callback returns.
        A later call starts a fresh loop."""
        with self._lock:
            finalizer, self._finalizer, self._serving = self._finalizer, None, None
        if finalizer is not None:
            finalizer()


def _submit(
    coro: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop
) -> concurrent.futures.Future[T]:
    try:
        return asyncio.run_coroutine_threadsafe(coro, loop)
    except RuntimeError:  # stopped meanwhile by another thread
        coro.close()
        raise


class _HasIOLoop(Protocol):
    io_loop: IOLoop


S = TypeVar("S", bound=_HasIOLoop)


def on_io_loop(
    method: Callable[Concatenate[S, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, T]]:
    """A coroutine method of an object with an ``io_loop``, run on that loop whoever awaits
    it (on the loop already, it is awaited directly)."""

    @functools.wraps(method)
    async def bridged(self: S, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.io_loop.call(method(self, *args, **kwargs))

    return bridged


C = TypeVar("C", bound=type)


def on_io_loop_methods(cls: C) -> C:
    """``cls`` with each public coroutine method bridged (`on_io_loop`), so none added
    later is forgotten; all but ``aclose``, which stops the loop from the caller's side."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and name != "aclose" and inspect.iscoroutinefunction(member):
            setattr(cls, name, on_io_loop(member))
    return cls
