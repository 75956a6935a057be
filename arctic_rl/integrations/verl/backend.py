"""The verl remote backend `cortex`: verl's Arctic adapter with its client on Cortex.

verl's registry imports this module for `trainer.remote_backend=cortex` (the plugin
`register` names it). The seam is the adapter's own client construction,
`_initialize_client(reconnect_job_config, rl_server_state)`, which every published
adapter has and which `CortexBackend` overrides:

- in a forwarder worker or rollout replica (a reconnect config given): this package's
  factory serves the pickled reconnect config, which carries every Cortex setting but
  the token;
- on the driver: the adapter builds its config as usual (model, optimizer, DeepSpeed and
  vLLM settings) and hands it to whatever it constructs clients with; for that one call
  those names (`create_arctic_rl_client` of adapters that import a factory, whether from
  `arctic_platform.rl` or `arctic_platform.client`, and `AsyncArcticRLClient` of those
  that construct the client class) are this package's factory, which serves the
  adapter's on-prem config (flat `backend="local"`, or nested `OnPremConfig`) from Cortex
  with the settings in `config.remote_backend.cortex`.

verl's two registry shapes drive the backend differently. The merged one (and its
published forwarder worker) awaits every call. The fork-era generic worker calls
`compute_log_prob`, `update_actor`, `save_checkpoint` and `destroy` without `await`, and
its trainer calls `destroy` the same way; there those four run to completion (the
adapter defines them `async`) and return their value in a form that may also be awaited,
for a worker that does.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Coroutine, Generator, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, TypeVar

from verl.remote_backend.base import RemoteBackendRegistry

from arctic_rl import _pth_hook
from arctic_rl._errors import BackendNotAvailableError
from arctic_rl._io_loop import IOLoop
from arctic_rl._shim import create_arctic_rl_client, route_on_prem_to_cortex
from arctic_rl.integrations.verl import ADAPTER, BACKEND_NAME, cortex_settings, registry_shape

__all__ = ["CortexBackend"]

T = TypeVar("T")
# What published adapters construct their client with, by the name they import it under.
_CONSTRUCTORS = ("create_arctic_rl_client", "AsyncArcticRLClient")

_pth_hook.install()
try:
    _adapter = importlib.import_module(ADAPTER)
except ImportError as exc:
    raise BackendNotAvailableError(
        f"the verl backend {BACKEND_NAME!r} runs verl's Arctic adapter, which ships in "
        f"arctic-platform (install it with its verl extra): {exc}"
    ) from exc


def _cortex_factory(config: Any, *_args: Any, **_kwargs: Any) -> Any:
    """Stands for the adapter's client constructor on the driver: the on-prem config it
    built is served from Cortex (the routing `from_config` set)."""
    return create_arctic_rl_client(config)


@contextmanager
def _constructs_cortex_clients(module: ModuleType) -> Iterator[None]:
    """For the duration: the adapter module's client constructors are this factory."""
    names = [n for n in _CONSTRUCTORS if hasattr(module, n)]
    if not names:
        raise BackendNotAvailableError(
            f"{module.__name__} constructs its client with none of {_CONSTRUCTORS}: this "
            f"version of the Arctic adapter is not supported by the {BACKEND_NAME!r} backend"
        )
    saved = {n: getattr(module, n) for n in names}
    try:
        for name in names:
            setattr(module, name, _cortex_factory)
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


@functools.cache
def _settling_loop() -> IOLoop:
    """One loop for every settled call, which may come from inside a running loop: started
    once, not a loop (and a thread) per call."""
    return IOLoop("arctic-rl-settle")


def _settle(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code, even inside a running event loop."""
    return _settling_loop().run(coro)


class _CortexClient:
    """The client seam (see the module doc); first in the bases, before the adapter."""

    @classmethod
    def from_config(cls, main_config: Any, *, handle: dict[str, Any] | None = None) -> Any:
        route_on_prem_to_cortex(cortex_settings(main_config))
        return super().from_config(main_config, handle=handle)  # type: ignore[misc]

    def _initialize_client(
        self, reconnect_job_config: Any = None, rl_server_state: Any = None
    ) -> Any:
        if reconnect_job_config is not None:
            return create_arctic_rl_client(reconnect_job_config, rl_server_state)
        with _constructs_cortex_clients(_adapter):
            return super()._initialize_client(None, None)  # type: ignore[misc]

    def reconnect_handle(self) -> dict[str, Any]:
        """What workers pass back to `from_config`: the reconnect config; Cortex runs no
        on-prem server, so there is no server state to share."""
        return {
            "rl_client_reconnect_config": self._client.reconnect_config(),  # type: ignore[attr-defined]
            "rl_server_state": None,
        }


class _Answer(dict[str, Any]):
    """A finished answer (a dict) that may also be awaited."""

    def __await__(self) -> Generator[Any, None, dict[str, Any]]:
        return dict(self)
        yield  # pragma: no cover  (makes this a generator)


class _Settled(Coroutine[Any, Any, T]):
    """A finished result as a coroutine: `await` it, hand it to `asyncio.run`, or drop it
    (nothing is left to run, so nothing warns)."""

    def __init__(self, value: T) -> None:
        self.value = value

    def send(self, _sent: Any) -> Any:
        raise StopIteration(self.value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        raise typ if val is None else val

    def close(self) -> None:
        return None

    def __await__(self) -> Generator[Any, None, T]:
        return self.value
        yield  # pragma: no cover  (makes this a generator)


def _settled(name: str) -> Callable[..., Any]:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        value = _settle(getattr(super(_ForkEraCalls, self), name)(*args, **kwargs))
        return _Answer(value) if isinstance(value, dict) else _Settled(value)

    call.__name__ = name
    call.__doc__ = f"The adapter's async {name}, run to completion (awaiting is optional)."
    return call


class _ForkEraCalls:
    """The calls the fork-era worker and trainer make without `await`."""

    compute_log_prob = _settled("compute_log_prob")
    update_actor = _settled("update_actor")
    save_checkpoint = _settled("save_checkpoint")
    destroy = _settled("destroy")


_FORK_ERA = registry_shape(RemoteBackendRegistry) == "fork"
_BASES: tuple[type, ...] = (
    (_CortexClient, _ForkEraCalls, _adapter.ArcticRLClientWrapper)
    if _FORK_ERA
    else (_CortexClient, _adapter.ArcticRLClientWrapper)
)


@RemoteBackendRegistry.register(BACKEND_NAME)
class CortexBackend(*_BASES):  # type: ignore[misc]
    """verl's Arctic adapter with its client served from Cortex."""
