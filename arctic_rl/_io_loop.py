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

Each bridged call knows its `Caller` (`current_caller`): the loop or thread waiting for it,
and whether it is gone (cancelled, interrupted by Ctrl-C, its event loop no longer
running), so that `_calls` can keep what such a call leaves for the next identical one. A
call cut by the client's own close raises `ClientClosedError`, never a bare cancellation.
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
from contextvars import ContextVar
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from arctic_rl._errors import ClientClosedError

__all__ = ["Caller", "IOLoop", "current_caller", "on_io_loop", "on_io_loop_methods"]

log = logging.getLogger("arctic_rl")

T = TypeVar("T")
P = ParamSpec("P")
# How long a stop waits for the loop thread to wind down before leaving it (a daemon).
STOP_TIMEOUT_S = 10.0
CLOSED_MESSAGE = "the client was closed while this call ran"


class Caller:
    """Who waits for a bridged call: an event loop, or (``loop`` None) a blocked thread.

    Gone once it stopped waiting: it left (cancelled, interrupted), its loop no longer runs
    (dropped by a framework that runs each call on a fresh loop) or was collected, or the
    client's close cut the call."""

    __slots__ = ("_left", "_loop", "_serving")

    def __init__(self, loop: asyncio.AbstractEventLoop | None, serving: _Serving) -> None:
        self._loop = None if loop is None else weakref.ref(loop)
        self._serving = serving
        self._left = False

    def leave(self) -> None:
        self._left = True

    def gone(self) -> bool:
        if self._left or self._serving.closing_began:
            return True
        if self._loop is None:
            return False
        loop = self._loop()
        return loop is None or not loop.is_running()


_CALLER: ContextVar[Caller | None] = ContextVar("arctic_rl_caller", default=None)


def current_caller() -> Caller | None:
    """The caller of the bridged call running now (None outside one)."""
    return _CALLER.get()


async def _on_behalf_of(caller: Caller, coro: Coroutine[Any, Any, T]) -> T:
    _CALLER.set(caller)  # in this task's own context: seen by everything the call awaits
    return await coro


class _Serving:
    """One started loop thread: its loop, and the event that ends it."""

    def __init__(self, name: str, closing: Callable[[], Awaitable[None]] | None) -> None:
        self.pid = os.getpid()  # a forked child has the object but not the thread
        self.closing_began = False  # once set, a cancelled call was cut by the close
        self._main: asyncio.Task[None] | None = None  # the task that keeps the loop going
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
        self._main = asyncio.current_task()
        await self._stopping.wait()
        await self.cancel_others()
        if self._closing is not None:
            try:
                await self._closing()
            except Exception as exc:  # the loop still winds down; say what was left open
                log.warning("arctic_rl: closing the client's connections failed: %r", exc)

    async def cancel_others(self) -> None:
        """Closing begins: cancel every call running on the loop but the current one, and
        wait until they have ended (so none starts a retry on a pool about to close)."""
        self.closing_began = True
        keep = {asyncio.current_task(), self._main}
        unfinished = [task for task in asyncio.all_tasks() if task not in keep]
        for task in unfinished:
            task.cancel()
        await asyncio.gather(*unfinished, return_exceptions=True)

    def stop(self) -> None:
        """End the loop; from another thread, wait until it has closed."""
        loop, stopping = self.loop, self._stopping
        if loop is None or stopping is None or not self.thread.is_alive():
            return
        self.closing_began = True
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
        return self._running()[1]

    def _running(self) -> tuple[_Serving, asyncio.AbstractEventLoop]:
        serving = self._started()
        assert serving.loop is not None
        return serving, serving.loop

    def is_current(self) -> bool:
        """Whether the caller runs on this loop's thread."""
        serving = self._serving
        return serving is not None and threading.current_thread() is serving.thread

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on this loop from any loop; cancelling the caller cancels it there."""
        serving, loop = self._running()
        here = asyncio.get_running_loop()
        if here is loop:
            return await coro
        caller = Caller(here, serving)
        answer = asyncio.wrap_future(_submit(_on_behalf_of(caller, coro), loop))
        try:
            # Shielded: the caller is marked gone before the call there is cancelled, so
            # it ends as a left call (kept for the next identical one), never forgotten.
            return await asyncio.shield(answer)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if serving.closing_began and (task is None or not task.cancelling()):
                raise ClientClosedError(CLOSED_MESSAGE, code="client_closed") from None
            caller.leave()
            answer.cancel()
            raise

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on this loop and wait for it: for callers that cannot await.

        Interrupted while it waits (Ctrl-C), the call is cancelled there and its caller
        marked gone, so the next identical call re-attaches to it (`_calls`)."""
        serving, loop = self._running()
        if self.is_current():
            coro.close()
            raise RuntimeError("a blocking call was made from the client's own I/O loop")
        caller = Caller(None, serving)
        future = _submit(_on_behalf_of(caller, coro), loop)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            if serving.closing_began:
                raise ClientClosedError(CLOSED_MESSAGE, code="client_closed") from None
            raise
        except BaseException:
            if not future.done():  # interrupted while waiting, not the call's own error
                caller.leave()
                future.cancel()
            raise

    async def begin_close(self) -> None:
        """From the loop itself: cancel the other calls running here (each raises
        `ClientClosedError`) before the caller closes what they use."""
        serving = self._serving
        if serving is not None:
            await serving.cancel_others()

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
