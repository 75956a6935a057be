"""SkyRL entrypoint: route SkyRL's Arctic RL factory to Cortex, configured from yaml.

Select it with `trainer.override_entrypoint=arctic_rl.integrations.skyrl` and put the
Cortex settings under `trainer.arctic_rl.cortex` (the token stays in the environment
variable that `pat_env` names). SkyRL keeps building its config with `backend="local"`;
`configure(cfg)` records the yaml settings and this module's `create_arctic_rl_client`
applies them, so SkyRL's own code does not change.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from arctic_rl._config import ArcticRLClientConfig, CortexConfig, _to_plain

__all__ = ["configure", "cortex_settings", "create_arctic_rl_client", "main"]

_active: dict[str, Any] | None = None


def cortex_settings(cfg: Any) -> dict[str, Any]:
    """`trainer.arctic_rl` of a SkyRL config -> backend (default cortex) and cortex block."""
    plain = _to_plain(cfg)
    section = ((plain or {}).get("trainer") or {}).get("arctic_rl") or {}
    if not isinstance(section, Mapping):
        raise TypeError("trainer.arctic_rl must be a mapping")
    cortex = dict(section.get("cortex") or {})
    backend = section.get("backend") or "cortex"
    return {"backend": backend, "cortex": CortexConfig.model_validate(cortex)}


def configure(cfg: Any) -> None:
    """Remember the Cortex settings of this SkyRL run (call once, before the factory)."""
    global _active
    _active = cortex_settings(cfg)


def create_arctic_rl_client(config: ArcticRLClientConfig, server_state: Any = None) -> Any:
    """SkyRL's factory call, with backend and cortex settings taken from the yaml."""
    import arctic_rl

    if _active is not None and not config.is_cortex:
        config = config.model_copy(update=_active)
    return arctic_rl.create_arctic_rl_client(config, server_state)


def main(cfg: Any) -> Any:
    """Entrypoint body: record the settings, then hand over to SkyRL's own main.

    SkyRL's runner is imported only here, so this module imports without SkyRL installed.
    """
    configure(cfg)
    try:
        runner = importlib.import_module("skyrl_train.entrypoints.main_base")
    except ImportError as exc:
        raise ImportError(
            "arctic_rl.integrations.skyrl.main needs SkyRL (skyrl_train) installed"
        ) from exc
    return runner.main(cfg)
