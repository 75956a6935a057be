"""Which configs this process serves from Cortex: one router, set by an integration.

The SkyRL entrypoint and the verl plugin run frameworks that hard-code backend="local";
they route such configs to Cortex here, and name the framework whose per-token layout
the clients built then read. The legacy factory asks the same object; nothing else holds
routing state.
"""

from __future__ import annotations

import os
import threading

from arctic_rl._config import CORTEX_FILE_ENV, CortexConfig
from arctic_rl._layout import convention_named

__all__ = ["ROUTER", "CortexRouter"]


class CortexRouter:
    """Routing of backend="local" configs to Cortex in this process (off until set)."""

    def __init__(self) -> None:
        self._cortex: CortexConfig | bool = False
        self._layout: str | None = None
        self._lock = threading.Lock()

    def route(self, cortex: CortexConfig | bool = True, layout: str | None = None) -> None:
        """Serve backend="local" configs from Cortex (True: with the config's own cortex
        settings; a CortexConfig: with these when the config carries none; False: stop),
        their log-prob inputs read in the `layout` convention."""
        named = None if cortex is False or layout is None else convention_named(layout).name
        with self._lock:
            self._cortex, self._layout = cortex, named

    @property
    def active(self) -> bool:
        """Whether backend="local" configs go to Cortex."""
        return self._cortex is not False

    @property
    def layout(self) -> str | None:
        """The routing integration's per-token convention, if it named one."""
        return self._layout

    def settings(self) -> CortexConfig | None:
        """Settings for a config that carries none: the integration's, else the named file."""
        cortex = self._cortex
        if isinstance(cortex, CortexConfig):
            return cortex
        path = os.environ.get(CORTEX_FILE_ENV)
        return CortexConfig.from_file(path) if path else None


ROUTER = CortexRouter()
"""The process's one router: the integrations and the legacy factory share this handle."""
