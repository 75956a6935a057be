"""One client serves callers on any event loop: one after another, at once, each on its own,
all through the client's one I/O loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any

import httpx

from arctic_rl import (
    ArcticRLClient,
    ArcticRLClientConfig,
    CortexService,
    LegacyCortexClient,
    ServiceOptions,
    create_arctic_rl_client,
)
from devtools.batches import train_tensors

from .conftest import Endpoint

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


class _WhereSent(httpx.AsyncBaseTransport):
    """Real HTTP, noting the thread and loop each request is sent from."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.seen: set[tuple[int, asyncio.AbstractEventLoop]] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.add((threading.get_ident(), asyncio.get_running_loop()))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _config(endpoint: Endpoint) -> ArcticRLClientConfig:
    return ArcticRLClientConfig(
        backend="cortex", model_name="tiny-byte-lm", training_gpus=1, cortex=endpoint.cortex_block()
    )


def test_every_call_from_any_loop_is_sent_from_the_clients_one_io_loop(
    endpoint: Endpoint,
) -> None:
    """The job's creation (blocking), calls from two asyncio.run loops and from a thread's
    loop all reach the service from one loop, which is none of the callers'."""
    sent = _WhereSent()
    service = CortexService(
        endpoint.base_url, endpoint.token, ServiceOptions(long_poll_s=2), httpx_transport=sent
    )
    config = _config(endpoint)
    legacy = LegacyCortexClient(config, client=ArcticRLClient(config, service=service))
    callers: list[tuple[int, asyncio.AbstractEventLoop]] = []

    async def call() -> dict[str, Any]:
        callers.append((threading.get_ident(), asyncio.get_running_loop()))
        return await legacy.fwd_bwd({"batch": train_tensors(), "processing": PROCESSING})

    try:
        assert asyncio.run(call())["loss"] == 0.5
        assert asyncio.run(call())["loss"] == 0.5
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            assert pool.submit(asyncio.run, call()).result()["loss"] == 0.5
        assert len(sent.seen) == 1
        assert not sent.seen & set(callers)
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
