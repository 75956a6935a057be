"""verl: a Hydra group `remote_backend` whose `cortex` option selects Cortex.

Add `CONFIG_DIR` to Hydra's search path and pick `remote_backend=cortex`; build the
client config with `client_config(cfg, model_name=...)`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arctic_rl._config import ArcticRLClientConfig

__all__ = ["CONFIG_DIR", "GROUP_FILE", "client_config"]

CONFIG_DIR = Path(__file__).resolve().parent
GROUP_FILE = CONFIG_DIR / "remote_backend" / "cortex.yaml"


def client_config(cfg: Any, section: str = "remote_backend", **fields: Any) -> ArcticRLClientConfig:
    """ArcticRLClientConfig from the composed verl config's `remote_backend` section."""
    return ArcticRLClientConfig.from_mapping(cfg, section, origin=f"yaml {section}", **fields)
