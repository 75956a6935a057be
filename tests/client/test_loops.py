"""One client serves callers on any event loop: one after another, at once, each on its own."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any

from arctic_rl import (
    ArcticRLClient,
    ArcticRLClientConfig,
    CortexService,
    LegacyCortexClient,
    create_arctic_rl_client,
)

from .conftest import Endpoint
from .standins.batches import train_tensors

PROCESSING = {"post": ["logprobs"], "loss_fn": "verl_grpo", "config": {}}


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


class _RecordingService(CortexService):
    """The real HTTP service, noting the thread and loop each chunked call runs on."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[tuple[int, asyncio.AbstractEventLoop]] = []

    async def run_chunked(self, job_id: str, operation_id: str, value: Any) -> Any:
        self.seen.append((threading.get_ident(), asyncio.get_running_loop()))
        return await super().run_chunked(job_id, operation_id, value)


def _config(endpoint: Endpoint) -> ArcticRLClientConfig:
    return ArcticRLClientConfig(
        backend="cortex", model_name="tiny-byte-lm", training_gpus=1, cortex=endpoint.cortex_block()
    )


def test_a_legacy_fwd_bwd_runs_on_the_callers_loop_and_thread(endpoint: Endpoint) -> None:
    """No hop to the blocking client's loop thread and back: the call runs where it is awaited."""
    service = _RecordingService(endpoint.base_url, endpoint.token, long_poll_s=2)
    config = _config(endpoint)
    legacy = LegacyCortexClient(config, client=ArcticRLClient(config, service=service))

    async def call() -> tuple[int, asyncio.AbstractEventLoop, dict[str, Any]]:
        result = await legacy.fwd_bwd({"batch": train_tensors(), "processing": PROCESSING})
        return threading.get_ident(), asyncio.get_running_loop(), result

    try:
        thread, loop, result = asyncio.run(call())
        assert result["loss"] == 0.5
        assert service.seen == [(thread, loop)]
    finally:
        legacy.shutdown()


def test_threads_with_loops_of_their_own_share_one_client(endpoint: Endpoint) -> None:
    """verl drives the client from plain threads: each runs its own loop, at the same time."""
    legacy = create_arctic_rl_client(_config(endpoint))
    start = threading.Barrier(3)

    def worker() -> int:
        start.wait(timeout=30)
        return int(asyncio.run(legacy.step())["global_steps"])

    try:
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            steps = sorted(pool.map(lambda _: worker(), range(3)))
        assert steps == [1, 2, 3]
    finally:
        legacy.shutdown()
