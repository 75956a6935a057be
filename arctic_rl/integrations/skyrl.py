"""SkyRL entrypoint: serve SkyRL's Arctic RL client from Cortex, configured from yaml.

Select it with `trainer.override_entrypoint=arctic_rl.integrations.skyrl` and put the
Cortex settings under `trainer.arctic_rl.cortex` (the token stays in the environment
variable that `pat_env` names). SkyRL imports the entrypoint module on the driver and keeps
building its client config with `backend="local"`; importing this module makes the factory
serve such configs from Cortex, so SkyRL's own code does not change.

When SkyRL forwards its `trainer.arctic_rl` knobs into the config, the `cortex` block
travels with them; otherwise call `configure(cfg)` with the SkyRL config once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arctic_rl._config import ArcticRLClientConfig, CortexConfig, _drop_secrets, _to_plain
from arctic_rl._shim import create_arctic_rl_client as _factory
from arctic_rl._shim import route_on_prem_to_cortex

__all__ = ["configure", "cortex_settings", "create_arctic_rl_client"]


def cortex_settings(cfg: Any) -> CortexConfig:
    """The `trainer.arctic_rl.cortex` block of a SkyRL config (a DictConfig or a dict)."""
    plain = _to_plain(cfg) or {}
    section = (plain.get("trainer") or {}).get("arctic_rl") or {}
    if not isinstance(section, Mapping):
        raise TypeError("trainer.arctic_rl must be a mapping")
    return CortexConfig.model_validate(_drop_secrets(dict(section.get("cortex") or {})))


def configure(cfg: Any) -> None:
    """Use this SkyRL config's `trainer.arctic_rl.cortex` for configs that carry no block."""
    route_on_prem_to_cortex(cortex_settings(cfg))


def create_arctic_rl_client(config: ArcticRLClientConfig, server_state: Any = None) -> Any:
    """The factory, for callers that look it up on the entrypoint module."""
    return _factory(config, server_state)


# Importing the entrypoint is how SkyRL selects it: route its hardcoded "local" to Cortex.
route_on_prem_to_cortex(True)
