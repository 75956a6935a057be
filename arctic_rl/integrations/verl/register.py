"""verl plugin: makes the remote backend name `cortex` resolvable in every verl process.

Load it with `VERL_USE_EXTERNAL_MODULES=arctic_rl.integrations.verl.register` (verl
imports the listed modules whenever it is imported). It answers `arctic_platform.rl`
from this package before the published Arctic adapter binds its factory, names the
module that defines the `cortex` backend in verl's lazy registry table (so the adapter
is imported only when `trainer.remote_backend=cortex` asks for it), and loads the
published Arctic plugin when installed (its rollout replica `arctic` is reused).
"""

from __future__ import annotations

import importlib
import logging

try:
    from verl.remote_backend.base import RemoteBackendRegistry
except ModuleNotFoundError as exc:  # loaded by hand, or verl is missing
    raise ImportError(
        "arctic_rl.integrations.verl.register is verl's plugin: install verl, then set "
        "VERL_USE_EXTERNAL_MODULES=arctic_rl.integrations.verl.register for verl to load it "
        f"(missing: {exc.name})"
    ) from None

from arctic_rl import _seam

__all__ = ["ADAPTER", "BACKEND_MODULE", "BACKEND_NAME"]

log = logging.getLogger("arctic_rl")

BACKEND_NAME = "cortex"
BACKEND_MODULE = "arctic_rl.integrations.verl.backend"
_PUBLISHED_PLUGIN = "arctic_platform.integrations.verl.register"
ADAPTER = "arctic_platform.integrations.verl.adapter"

_seam.install()
_seam.rebind(ADAPTER)  # listed after the published plugin: the adapter is already bound
RemoteBackendRegistry.MODULES.setdefault(BACKEND_NAME, BACKEND_MODULE)
try:
    importlib.import_module(_PUBLISHED_PLUGIN)
except ImportError as exc:  # absent, or a verl without its hooks: `cortex` says so when used
    log.debug("arctic_rl: the published verl plugin was not loaded: %s", exc)
