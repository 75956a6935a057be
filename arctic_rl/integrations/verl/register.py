"""verl plugin: makes the remote backend name `cortex` resolvable in every verl process.

Load it with `VERL_USE_EXTERNAL_MODULES=arctic_rl.integrations.verl.register` (verl
imports the listed modules whenever it is imported, so nothing here may break `import
verl`: every failure is logged, never raised). In order, it

1. registers `cortex` the way this verl's registry asks (see `registry_shape`):
   merged: the backend class is imported now (that registry has no lazy table) and, once
   it loaded, this package's forwarder worker is named lazily through `register_worker`;
   fork: the backend module goes into the lazy `MODULES` table (imported on first use);
2. registers the rollout replica `cortex` lazily in verl's `RolloutReplicaRegistry`
   (`actor_rollout_ref.rollout.name=cortex`), where this verl has one;
3. logs once, at INFO on the `arctic_rl` logger, what it chose.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging

if importlib.util.find_spec("verl") is None:  # loaded by hand, without verl
    raise ImportError(
        "arctic_rl.integrations.verl.register is verl's plugin: install verl, then set "
        "VERL_USE_EXTERNAL_MODULES=arctic_rl.integrations.verl.register for verl to load it"
    )

from arctic_rl.integrations.verl import (
    BACKEND_MODULE,
    BACKEND_NAME,
    load_replica,
    load_worker,
    registry_shape,
)

__all__: list[str] = []

log = logging.getLogger("arctic_rl")


def _try_import(name: str) -> str | None:
    """Import a module; the error it raised, as text, or None when it loaded."""
    try:
        importlib.import_module(name)
    except Exception as exc:  # any error: a backend built for another verl may raise anything
        return f"{type(exc).__name__}: {exc}"
    return None


def _register(registry: type) -> str:
    """Register `cortex` with this registry; what was done, for the log line."""
    shape = registry_shape(registry)
    if shape == "fork":
        registry.MODULES.setdefault(BACKEND_NAME, BACKEND_MODULE)  # type: ignore[attr-defined]
        return "fork registry (MODULES): backend imported on first use"
    if shape == "unknown":
        log.warning(
            "arctic_rl: this verl's RemoteBackendRegistry has neither register_worker nor "
            "MODULES; the remote backend %r is not registered",
            BACKEND_NAME,
        )
        return "unknown registry: nothing registered"
    failed = _try_import(BACKEND_MODULE)
    if failed is not None:
        log.warning(
            "arctic_rl: the verl remote backend %r could not be loaded (%s); "
            "trainer.remote_backend=%s will not resolve",
            BACKEND_NAME,
            failed,
            BACKEND_NAME,
        )
        return f"merged registry (register_worker): backend not loaded ({failed})"
    registry.register_worker(BACKEND_NAME, load_worker)  # type: ignore[attr-defined]
    return "merged registry (register_worker): backend and worker registered"


def _register_replica() -> str:
    """Name the rollout replica `cortex`; what was done, for the log line."""
    try:
        from verl.workers.rollout.replica import RolloutReplicaRegistry
    except Exception as exc:  # a verl without rollout replicas, or one that fails to load
        return f"no rollout replica registry ({type(exc).__name__}: {exc})"
    RolloutReplicaRegistry.register(BACKEND_NAME, load_replica)
    return f"rollout replica {BACKEND_NAME!r} registered"


def _load() -> None:
    try:
        from verl.remote_backend.base import RemoteBackendRegistry
    except ImportError as exc:
        log.warning("arctic_rl: this verl has no remote backends (%s); nothing registered", exc)
        return
    done = _register(RemoteBackendRegistry)
    log.info("arctic_rl: verl plugin: %s; %s", done, _register_replica())


_load()
