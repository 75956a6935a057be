"""The published client (arctic-platform 0.1.4, unchanged) under network faults: a
forward-backward whose answer is lost is retried by that client and still runs once.

Today's service promises at-most-once execution per chunk group; the published client
retries a chunk POST after a connection error with the same chunk (same group id). The
mock runs without auth (the client's ``base_url`` path sends no token) behind
:class:`FaultProxy`; "once" is read from the mock's own request records.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import torch
from arctic_platform.client import AsyncArcticRLClient, TrainingConfig
from arctic_platform.client.config import ArcticClientConfig, CortexConfig
from hardening.support import executed

from devtools.faults import Fault, FaultProxy
from devtools.live_mock import LiveMock

# The published client passes tenacity an argument tenacity has deprecated; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated")
FWD, STEP = b"/forward-backward", b"/step"


def minimal_batch() -> dict[str, Any]:
    """The service's minimal forward-backward object."""
    ids = torch.arange(16, dtype=torch.int64).reshape(2, 8)
    return {"args": (), "kwargs": {"input_ids": ids, "labels": ids.clone()}}


@asynccontextmanager
async def published_through(
    mock: LiveMock, *faults: Fault
) -> AsyncIterator[tuple[AsyncArcticRLClient, FaultProxy]]:
    """The published client, as its users configure it, talking to ``mock`` via a proxy."""
    async with FaultProxy(mock.port, *faults) as proxy:
        config = ArcticClientConfig(
            model_name="tiny-byte-lm",
            training_gpus=1,
            training=TrainingConfig(ds_config={"optimizer": {"type": "AdamW", "params": {}}}),
            backend=CortexConfig(
                base_url=f"http://127.0.0.1:{proxy.port}", database="ANY_DB", schema="ANY"
            ),
            job_ready_timeout=60,
            request_timeout=60,
        )
        client = await asyncio.to_thread(AsyncArcticRLClient, config)  # creates the job
        try:
            yield client, proxy
        finally:
            await client.transport.aclose()
            await asyncio.to_thread(client.transport.shutdown)
            client.transport.session.close()


@pytest.fixture
def open_mock(live_mock_factory: Callable[..., LiveMock]) -> LiveMock:
    return live_mock_factory(auth=False)


@pytest.mark.parametrize(
    "fault",
    [
        Fault(FWD, "cut_response", at=0),
        Fault(FWD, "cut_response", at=25),
        Fault(FWD, "status", status=503, retry_after=0),
    ],
    ids=["answer lost", "answer cut mid-head", "503 before the server"],
)
async def test_forward_backward_runs_once_when_its_answer_is_lost(
    open_mock: LiveMock, fault: Fault
) -> None:
    async with published_through(open_mock, fault) as (client, proxy):
        result = await client.fwd_bwd(minimal_batch())
        job_id = client.transport.job_id
    assert proxy.hits == 1  # the fault fired, and the client retried past it
    assert result["avg_loss"] > 0 and result["job_id"] == job_id
    assert executed(open_mock.state_dir, job_id, "forward_backward") == 1


async def test_step_without_a_key_may_run_twice_when_its_answer_is_lost(
    open_mock: LiveMock,
) -> None:
    """Today's step has no idempotency identity (Idempotency-Key is a proposal): a client
    retrying it after a lost answer steps twice. Pinned so the proposal's value stays
    visible."""
    async with published_through(open_mock, Fault(STEP, "cut_response", at=0)) as (client, _):
        answered = await client.step()
        job_id = client.transport.job_id
    assert executed(open_mock.state_dir, job_id, "step") == 2
    assert answered["global_steps"] == 2
