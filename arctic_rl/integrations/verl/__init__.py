"""verl: the `cortex` remote backend, selected through verl's plugin and Hydra group.

- `VERL_USE_EXTERNAL_MODULES=arctic_rl.integrations.verl.register` loads the plugin in
  every verl process; it registers the backend name `cortex` (`backend.CortexBackend`,
  reading its Cortex settings from `config.remote_backend.cortex`), on verl's
  release registry its forwarder worker (`worker.CortexActorRolloutRefWorker`), and the
  rollout replica `cortex` (`replica.CortexReplica`).
- `'hydra.searchpath=[pkg://arctic_rl.integrations.verl]'` plus `remote_backend=cortex`
  (`+remote_backend=cortex` on a verl whose defaults list has no `remote_backend` entry)
  loads `remote_backend/cortex.yaml` (the job's GPUs and seed, and a `cortex:` block).
- `trainer.remote_backend=cortex` makes verl use it; `actor_rollout_ref.rollout.name=cortex`
  makes verl's agent loop sample from it.

verl's registry comes in two shapes, told apart by what it has (`registry_shape`):
"merged" (verl's release branch: `register_worker` / `get_worker`, no module table) and
"fork" (the pre-merge branch: a lazy `MODULES` name -> module table, no worker slot;
its generic worker in verl core drives the backend).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from arctic_rl._config import ArcticRLClientConfig, CortexConfig, _to_plain
from arctic_rl._errors import ConfigError

__all__ = [
    "BACKEND_MODULE",
    "BACKEND_NAME",
    "CONFIG_DIR",
    "GROUP_FILE",
    "REPLICA_MODULE",
    "RegistryShape",
    "attach_backend",
    "client_config",
    "cortex_settings",
    "load_replica",
    "load_worker",
    "registry_shape",
]

CONFIG_DIR = Path(__file__).resolve().parent
GROUP_FILE = CONFIG_DIR / "remote_backend" / "cortex.yaml"
BACKEND_NAME = "cortex"
BACKEND_MODULE = "arctic_rl.integrations.verl.backend"
REPLICA_MODULE = "arctic_rl.integrations.verl.replica"
RegistryShape = Literal["merged", "fork", "unknown"]


def registry_shape(registry: Any) -> RegistryShape:
    """Which registry this verl has: "merged" (a lazy worker slot, `register_worker`),
    "fork" (a `MODULES` table of backend modules) or "unknown" (neither)."""
    if callable(getattr(registry, "register_worker", None)):
        return "merged"
    if isinstance(getattr(registry, "MODULES", None), dict):
        return "fork"
    return "unknown"


def load_worker() -> type:
    """The forwarder worker of the `cortex` backend on the merged registry (imported on
    first lookup: it needs verl's worker machinery, which `import verl` does not load)."""
    from arctic_rl.integrations.verl.worker import CortexActorRolloutRefWorker

    return CortexActorRolloutRefWorker


def load_replica() -> type:
    """The rollout replica `cortex` (imported on first lookup: it needs Ray and verl's
    rollout machinery)."""
    from arctic_rl.integrations.verl.replica import CortexReplica

    return CortexReplica


def attach_backend(main_config: Any, handle: dict[str, Any]) -> Any:
    """The selected remote backend (`trainer.remote_backend`) attached to the driver's job
    through its reconnect handle, as a forwarder worker or a rollout replica needs it."""
    from verl.remote_backend.base import RemoteBackendRegistry

    name = main_config.trainer.get("remote_backend")
    if not name:
        raise ValueError("the cortex worker and rollout replica need trainer.remote_backend set")
    return RemoteBackendRegistry.get(name).from_config(main_config, handle=handle)


def cortex_settings(cfg: Any) -> CortexConfig:
    """`remote_backend.cortex` of a composed verl config (a DictConfig or a dict)."""
    plain = _to_plain(cfg)
    block = (plain.get("remote_backend") or {}).get("cortex") if isinstance(plain, dict) else None
    if not isinstance(block, dict):
        raise ConfigError("remote_backend.cortex not found: select remote_backend=cortex")
    settings = {k: v for k, v in block.items() if v is not None}
    return CortexConfig.checked(settings, "remote_backend.cortex")


def client_config(cfg: Any, **fields: Any) -> ArcticRLClientConfig:
    """A Cortex client config from the composed verl config, for code that builds its own."""
    return ArcticRLClientConfig(backend="cortex", cortex=cortex_settings(cfg), **fields)
