"""`ArcticRLClient`: the blocking twin of `AsyncArcticRLClient`, on a private loop thread.

Its methods are not written out again: each is a `_Blocking` made from the async
client's coroutine method of the same name, so it takes the same parameters and returns
the same result (type checkers read both from the async method; `inspect.signature`
shows them too). Blocking calls reach the async client through one path,
`_LoopThread.run`; async callers (the legacy shim included) await the async client on
their own loop and never come here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from arctic_rl._client import AsyncArcticRLClient
from arctic_rl._config import ArcticRLClientConfig

if TYPE_CHECKING:
    import inspect

    from arctic_rl._protocol import ServiceAPI

__all__ = ["ArcticRLClient"]

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R")


class _LoopThread:
    """A private event loop on a daemon thread, for callers that cannot await.

    A script or a synchronous framework has no event loop to run the async client on;
    this one runs it, and the blocking calls wait for their results here.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="arctic-rl-loop", daemon=True
        )
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("a blocking ArcticRLClient call was made from its own loop")
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.submit(coro).result()

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=5)
        if not self.loop.is_running():
            self.loop.close()


class _Blocking(Generic[P, R]):
    """A blocking method made from a coroutine method of `AsyncArcticRLClient`."""

    def __init__(
        self, method: Callable[Concatenate[AsyncArcticRLClient, P], Coroutine[Any, Any, R]]
    ) -> None:
        self._method = method
        self.__doc__ = method.__doc__
        self.__wrapped__ = method
        self._signature: inspect.Signature | None = None

    def __set_name__(self, owner: type, name: str) -> None:
        self.__name__ = name

    @overload
    def __get__(self, client: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, client: ArcticRLClient, owner: type | None = None) -> Callable[P, R]: ...
    def __get__(self, client: ArcticRLClient | None, owner: type | None = None) -> Any:
        if client is None:
            return self
        method = self._method

        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            return client._loop.run(method(client.aio, *args, **kwargs))

        call.__name__ = call.__qualname__ = self.__name__
        call.__doc__ = self.__doc__
        call.__signature__ = self.signature  # type: ignore[attr-defined]
        return call

    @property
    def signature(self) -> inspect.Signature:
        """The async method's signature without ``self`` (and its annotations)."""
        if self._signature is None:
            import inspect  # only for introspection: not on the import path

            full = inspect.signature(self._method)
            self._signature = full.replace(parameters=list(full.parameters.values())[1:])
        return self._signature


class ArcticRLClient:
    """Blocking twin of AsyncArcticRLClient for scripts and synchronous frameworks.

    Every public coroutine method of the async client has its twin here (a test holds
    the two to that), except `connect` (the constructor connects) and `aclose`
    (`shutdown` also stops the loop thread).
    """

    def __init__(
        self,
        config: ArcticRLClientConfig,
        *,
        service: ServiceAPI | None = None,
        environ: Mapping[str, str] | None = None,
        start: bool = True,
    ) -> None:
        self._loop = _LoopThread()
        try:
            self.aio: AsyncArcticRLClient = self._loop.run(_build(config, service, environ, start))
        except BaseException:
            self._loop.stop()
            raise

    def __repr__(self) -> str:
        return f"ArcticRLClient(job_id={self.job_id!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    @property
    def job_id(self) -> str | None:
        return self.aio.job_id

    @property
    def sub_jobs(self) -> dict[str, str]:
        return self.aio.sub_jobs

    @property
    def last_timing(self) -> dict[str, float]:
        return self.aio.last_timing

    start = _Blocking(AsyncArcticRLClient.start)
    get_job = _Blocking(AsyncArcticRLClient.get_job)
    state = _Blocking(AsyncArcticRLClient.state)
    cancel = _Blocking(AsyncArcticRLClient.cancel)
    fwd_bwd = _Blocking(AsyncArcticRLClient.fwd_bwd)
    fwd_no_grad = _Blocking(AsyncArcticRLClient.fwd_no_grad)
    step = _Blocking(AsyncArcticRLClient.step)
    generate = _Blocking(AsyncArcticRLClient.generate)
    log_probs = _Blocking(AsyncArcticRLClient.log_probs)
    sync_weights = _Blocking(AsyncArcticRLClient.sync_weights)
    save_checkpoint = _Blocking(AsyncArcticRLClient.save_checkpoint)
    load_checkpoint = _Blocking(AsyncArcticRLClient.load_checkpoint)
    list_checkpoints = _Blocking(AsyncArcticRLClient.list_checkpoints)
    delete_checkpoint = _Blocking(AsyncArcticRLClient.delete_checkpoint)

    def shutdown(self, *, cancel: bool | None = None) -> None:
        """Finish with the job (see AsyncArcticRLClient.shutdown) and stop the loop thread."""
        if self._loop.loop.is_closed():
            return
        try:
            self._loop.run(self.aio.shutdown(cancel=cancel))
        finally:
            self._loop.stop()


async def _build(
    config: ArcticRLClientConfig,
    service: ServiceAPI | None,
    environ: Mapping[str, str] | None,
    start: bool,
) -> AsyncArcticRLClient:
    if start:
        return await AsyncArcticRLClient.connect(config, service=service, environ=environ)
    return AsyncArcticRLClient(config, service=service, environ=environ)
