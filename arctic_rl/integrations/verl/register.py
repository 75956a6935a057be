"""verl plugin: registers the remote backend `cortex` (load it with VERL_USE_EXTERNAL_MODULES).

verl imports this module in every process it starts. It answers `arctic_platform.rl`
from this package (before the published Arctic adapter binds its factory), loads the
published adapter's own plugin, and registers a subclass of that adapter as `cortex`:
on the driver it serves the adapter's hard-coded backend="local" from Cortex with the
settings in `config.remote_backend.cortex`; forwarder workers and rollout replicas
reconnect through the pickled reconnect config, which this package's factory serves.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from arctic_rl import _seam
from arctic_rl._errors import BackendNotAvailableError
from arctic_rl._shim import route_on_prem_to_cortex
from arctic_rl.integrations.verl import cortex_settings

__all__ = ["BACKEND_NAME"]

BACKEND_NAME = "cortex"
_ADAPTER = "arctic_platform.integrations.verl.adapter"
_PUBLISHED_PLUGIN = "arctic_platform.integrations.verl.register"

_seam.install()
if _ADAPTER in sys.modules:  # loaded before us: rebind the name it imported
    sys.modules[_ADAPTER].create_arctic_rl_client = _seam.create_arctic_rl_client
try:
    importlib.import_module(_PUBLISHED_PLUGIN)
    _adapter = importlib.import_module(_ADAPTER)
    from verl.remote_backend.base import RemoteBackendRegistry
except ImportError as exc:
    raise BackendNotAvailableError(
        f"the verl backend {BACKEND_NAME!r} runs verl's Arctic adapter, which ships in "
        f"arctic-platform (install it with its verl extra): {exc}"
    ) from exc


@RemoteBackendRegistry.register(BACKEND_NAME)
class CortexBackend(_adapter.ArcticRLClientWrapper):
    """verl's Arctic adapter with its client served from Cortex."""

    @classmethod
    def from_config(cls, main_config: Any, *, handle: dict[str, Any] | None = None) -> Any:
        route_on_prem_to_cortex(cortex_settings(main_config))
        return super().from_config(main_config, handle=handle)
