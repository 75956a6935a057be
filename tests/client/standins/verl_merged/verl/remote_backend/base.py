"""Replay of the merged `RemoteBackendRegistry` (verl release/v0.7.1), from its documented
behaviour:

- backend classes register with the `register(name)` decorator; there is no table of
  modules to import lazily, so `get` of an unregistered name raises KeyError, pointing at
  VERL_USE_EXTERNAL_MODULES;
- each backend's forwarder worker is registered as a zero-argument loader,
  `register_worker(name, loader)`; `get_worker(name)` calls it once and caches the class,
  or answers None for a backend that registered none; a second, different loader for
  one name raises ValueError;
- the ABC keeps only the lifecycle: `from_config`, `reconnect_handle`, `destroy` (its
  trainer runs it through `asyncio.run`), the async `update_weights` / `save_checkpoint`
  and `requires_single_forwarder`; compute and update calls belong to each adapter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class RemoteBackend:
    @classmethod
    def from_config(cls, main_config: Any, *, handle: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError


class RemoteBackendRegistry:
    _backends: dict[str, type] = {}
    _worker_loaders: dict[str, Callable[[], type]] = {}
    _resolved_workers: dict[str, type] = {}

    @classmethod
    def register(cls, name: str) -> Callable[[type], type]:
        def decorate(backend: type) -> type:
            existing = cls._backends.get(name)
            if existing is not None and existing is not backend:
                raise ValueError(f"remote backend {name!r} is already registered")
            cls._backends[name] = backend
            return backend

        return decorate

    @classmethod
    def get(cls, name: str) -> type:
        if name not in cls._backends:
            raise KeyError(
                f"Unknown remote backend {name!r}; load its plugin with VERL_USE_EXTERNAL_MODULES"
            )
        return cls._backends[name]

    @classmethod
    def list(cls) -> list[str]:
        return sorted(cls._backends)

    @classmethod
    def register_worker(cls, name: str, loader: Callable[[], type]) -> None:
        existing = cls._worker_loaders.get(name)
        if existing is not None and existing is not loader:
            raise ValueError(f"remote backend {name!r} already has a worker loader")
        cls._worker_loaders[name] = loader

    @classmethod
    def get_worker(cls, name: str) -> type | None:
        if name not in cls._resolved_workers:
            loader = cls._worker_loaders.get(name)
            if loader is None:
                return None
            cls._resolved_workers[name] = loader()
        return cls._resolved_workers[name]
