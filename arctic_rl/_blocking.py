"""`ArcticRLClient`: the blocking twin of `AsyncArcticRLClient`, on the client's I/O loop.

Its methods are not written out again: each is a `_Blocking` made from the async
client's coroutine method of the same name, so it takes the same parameters and returns
the same result (type checkers read both from the async method; `inspect.signature`
shows them too). Blocking calls run the async client on the loop its service's I/O
already lives on (`CortexService.io_loop`), so they make one hop there and back and no
second thread is started; async callers (the legacy shim included) await the async client
on their own loop, and the service bridges to the same I/O loop.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from arctic_rl._client import AsyncArcticRLClient
from arctic_rl._config import ArcticRLClientConfig
from arctic_rl._cortex import CortexService
from arctic_rl._io_loop import IOLoop

if TYPE_CHECKING:
    import inspect

    from arctic_rl._protocol import ServiceAPI

__all__ = ["ArcticRLClient"]

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R")


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
            return client._io.run(method(client.aio, *args, **kwargs))

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
        self.aio = AsyncArcticRLClient(config, service=service, environ=environ)
        self._io = _io_loop_of(self.aio.service)
        self._shut_down = False
        if start:
            try:
                self._io.run(self.aio.start())
            except BaseException:
                self._finish(self.aio.aclose())
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
    detect_service = _Blocking(AsyncArcticRLClient.detect_service)
    get_job = _Blocking(AsyncArcticRLClient.get_job)
    state = _Blocking(AsyncArcticRLClient.state)
    cancel = _Blocking(AsyncArcticRLClient.cancel)
    fwd_bwd = _Blocking(AsyncArcticRLClient.fwd_bwd)
    fwd_no_grad = _Blocking(AsyncArcticRLClient.fwd_no_grad)
    forward = _Blocking(AsyncArcticRLClient.forward)
    step = _Blocking(AsyncArcticRLClient.step)
    generate = _Blocking(AsyncArcticRLClient.generate)
    log_probs = _Blocking(AsyncArcticRLClient.log_probs)
    sync_weights = _Blocking(AsyncArcticRLClient.sync_weights)
    save_checkpoint = _Blocking(AsyncArcticRLClient.save_checkpoint)
    load_checkpoint = _Blocking(AsyncArcticRLClient.load_checkpoint)
    list_checkpoints = _Blocking(AsyncArcticRLClient.list_checkpoints)
    delete_checkpoint = _Blocking(AsyncArcticRLClient.delete_checkpoint)

    def shutdown(self, *, cancel: bool | None = None) -> None:
        """Finish with the job (see AsyncArcticRLClient.shutdown) and stop the I/O loop."""
        self._finish(self.aio.shutdown(cancel=cancel))

    def _finish(self, last: Coroutine[Any, Any, None]) -> None:
        """Run the client's last call (once), then stop the I/O loop (always)."""
        try:
            if self._shut_down:
                last.close()
            else:
                self._shut_down = True
                self._io.run(last)
        finally:
            self._io.stop()


def _io_loop_of(service: ServiceAPI) -> IOLoop:
    """The loop blocking calls run on: the Cortex service's own (its pool lives there),
    else, for another service, one of this client's."""
    if isinstance(service, CortexService):
        return service.io_loop
    return IOLoop("arctic-rl-blocking")
