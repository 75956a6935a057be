"""The client's private loop thread serves callers on any event loop, one after another."""

from __future__ import annotations

import asyncio

from arctic_rl import ArcticRLClientConfig, create_arctic_rl_client

from .conftest import Endpoint


def test_a_client_serves_two_successive_asyncio_run_loops(endpoint: Endpoint) -> None:
    # SkyRL builds the client synchronously, then drives it from loops it starts and ends.
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        cortex=endpoint.cortex_block(),
    )
    legacy = create_arctic_rl_client(config)
    try:
        first = asyncio.run(legacy.step())
        second = asyncio.run(legacy.step())
        assert (first["global_steps"], second["global_steps"]) == (1, 2)
    finally:
        legacy.shutdown()
