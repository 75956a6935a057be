"""verl: the `cortex` remote backend, selected through verl's plugin and Hydra group.

- `VERL_USE_EXTERNAL_MODULES=arctic_rl.integrations.verl.register` loads the plugin in
  every verl process; it registers the backend name `cortex` (the published Arctic
  adapter, reading its Cortex settings from `config.remote_backend.cortex`).
- `'hydra.searchpath=[pkg://arctic_rl.integrations.verl]'` plus `remote_backend=cortex`
  loads `remote_backend/cortex.yaml` (the adapter's keys and a `cortex:` block).
- `trainer.remote_backend=cortex` makes verl use it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arctic_rl._config import ArcticRLClientConfig, CortexConfig, _to_plain
from arctic_rl._errors import ConfigError

__all__ = ["CONFIG_DIR", "GROUP_FILE", "client_config", "cortex_settings"]

CONFIG_DIR = Path(__file__).resolve().parent
GROUP_FILE = CONFIG_DIR / "remote_backend" / "cortex.yaml"


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
