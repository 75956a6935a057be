"""Replay of verl's `RemoteBackend` / `RemoteBackendRegistry`: backends register a class
under a name; `get` imports the module listed for an unregistered name first."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


class RemoteBackend:
    """Lifecycle and RL ops verl drives; the Arctic adapter implements them."""

    @classmethod
    def from_config(cls, main_config: Any, *, handle: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError


class RemoteBackendRegistry:
    _backends: dict[str, type] = {}
    MODULES: dict[str, str] = {}

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
            module = cls.MODULES.get(name)
            if module is None:
                raise KeyError(f"Unknown remote backend {name!r}")
            importlib.import_module(module)
        return cls._backends[name]
