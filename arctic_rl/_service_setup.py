"""The Cortex service a client's config describes: the config's settings handed over once."""

from __future__ import annotations

from collections.abc import Mapping

from arctic_rl._config import CortexConfig
from arctic_rl._cortex import CortexService


def cortex_service(cortex: CortexConfig, environ: Mapping[str, str] | None) -> CortexService:
    """The service for `cortex`, its PAT read from `environ` (default: the process's)."""
    return CortexService(
        cortex.url(),
        cortex.read_token(environ).get_secret_value(),
        cortex.service_options(),
        served_idempotency=cortex.service == "proposed",
        token_env=cortex.pat_env,
    )
