"""The Cortex service a client's config describes: the config's settings handed over once."""

from __future__ import annotations

from collections.abc import Mapping

from arctic_rl._config import CortexConfig
from arctic_rl._cortex import CortexService
from arctic_rl._progress import ProgressFactory


def cortex_service(cortex: CortexConfig, environ: Mapping[str, str] | None) -> CortexService:
    """The service for `cortex`, its PAT read from `environ` (default: the process's)."""
    return CortexService(
        cortex.url(),
        cortex.read_token(environ).get_secret_value(),
        connect_timeout=cortex.connect_timeout,
        read_timeout=cortex.read_timeout,
        verify_tls=cortex.verify_tls,
        chunk_bytes=cortex.chunk_bytes,
        poll_timeout=cortex.poll_timeout,
        long_poll_s=cortex.long_poll_s,
        max_retries=cortex.max_retries,
        retry_timeout=cortex.retry_timeout,
        max_answer_bytes=cortex.max_answer_bytes,
        allow_insecure_http=cortex.allow_insecure_http,
        allow_insecure_proxy=cortex.allow_insecure_proxy,
        served_idempotency=cortex.service == "proposed",
        progress=ProgressFactory(cortex.progress, cortex.progress_min_bytes),
        poll={
            "adaptive": cortex.poll_adaptive,
            "initial_s": cortex.poll_initial_s,
            "factor": cortex.poll_factor,
            "max_s": cortex.poll_max_s,
            "probes": cortex.poll_probes,
        },
        token_env=cortex.pat_env,
    )
