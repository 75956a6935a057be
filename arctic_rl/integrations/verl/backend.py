"""The verl remote backend `cortex`: verl's Arctic adapter with its client on Cortex.

verl's registry imports this module for `trainer.remote_backend=cortex` (the plugin
`register` names it). On the driver the adapter builds its client config with the
hard-coded backend "local"; `from_config` first routes such configs to Cortex with the
settings in `config.remote_backend.cortex`. Forwarder workers and rollout replicas pass
the pickled reconnect config, which this package's factory serves as it is.
"""

from __future__ import annotations

import importlib
from typing import Any

from verl.remote_backend.base import RemoteBackendRegistry

from arctic_rl import _seam
from arctic_rl._errors import BackendNotAvailableError
from arctic_rl._shim import route_on_prem_to_cortex
from arctic_rl.integrations.verl import cortex_settings
from arctic_rl.integrations.verl.register import ADAPTER, BACKEND_NAME

__all__ = ["CortexBackend"]

_seam.install()
try:
    _adapter = importlib.import_module(ADAPTER)
except ImportError as exc:
    raise BackendNotAvailableError(
        f"the verl backend {BACKEND_NAME!r} runs verl's Arctic adapter, which ships in "
        f"arctic-platform (install it with its verl extra): {exc}"
    ) from exc
_seam.rebind(ADAPTER)


@RemoteBackendRegistry.register(BACKEND_NAME)
class CortexBackend(_adapter.ArcticRLClientWrapper):  # type: ignore[misc, name-defined]
    """verl's Arctic adapter with its client served from Cortex."""

    @classmethod
    def from_config(cls, main_config: Any, *, handle: dict[str, Any] | None = None) -> Any:
        route_on_prem_to_cortex(cortex_settings(main_config))
        return super().from_config(main_config, handle=handle)
