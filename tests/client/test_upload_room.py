"""Uploads cut mid-way never lock the job: the same call made again reuses its chunk group,
the client abandons the groups its cut calls left when the job has no room for another,
and a refusal it cannot help is a typed error that says what helps.

A fault proxy lets each cut call's first chunk through and holds its second, and the call is
then cancelled (what a per-call timeout wrapper does); the mock allows 3 unfinished groups
per job instead of 64, to reach the limit in three calls.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import torch

from arctic_rl import AsyncArcticRLClient, ConflictError, TooManyChunkGroupsError
from devtools.batches import train_tensors
from devtools.faults import Fault, FaultProxy
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV
from .held_answers import config, proxy_thread, wait_for

PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
MOST_OPEN = 3
CHUNK_BYTES = 96 * 1024  # each batch below travels as three chunks
HELD_S = 60.0  # a held chunk stays held: its call is cancelled meanwhile


@pytest.fixture
def mock(live_mock_factory: Any, mock_service: str, monkeypatch: pytest.MonkeyPatch) -> LiveMock:
    """The folder's mock (the proposals: the abandon route is one) with room for few groups."""
    live = live_mock_factory("canned", service=mock_service, max_open_chunk_groups=MOST_OPEN)
    monkeypatch.setenv(PAT_ENV, live.token)
    return live


def batch(seed: int) -> dict[str, Any]:
    return {**train_tensors(), "padding": torch.full((48, 1024), float(seed))}


def open_groups(mock: LiveMock, job_id: str) -> set[str]:
    """The job's unfinished groups as the mock counts them against its limit: those it
    holds (a chunk's row is stored after its answer) and those stored."""
    chunks = mock.app.state.service.chunks
    held = {group for job, group in chunks._open if job == job_id}
    return held | set(mock.app.state.service.store.groups.open_group_ids(job_id))


def executed_fwd_bwd(mock: LiveMock, job_id: str) -> int:
    store = mock.app.state.service.store
    ids = store.requests.requests_in(["pending", "running", "done", "failed"], job_id)
    return sum(store.requests.get_request(i)["kind"] == "forward_backward" for i in ids)


async def connect(mock: LiveMock, proxy: FaultProxy, **cortex: Any) -> AsyncArcticRLClient:
    cfg = config(mock, proxy)
    cfg.cortex = cfg.cortex.model_copy(update={"chunk_bytes": CHUNK_BYTES, **cortex})
    return await AsyncArcticRLClient.connect(cfg)


async def cut(client: AsyncArcticRLClient, proxy: FaultProxy, value: dict[str, Any]) -> None:
    """One fwd_bwd cut after its first chunk: its second is held, the call cancelled."""
    held = Fault(b"/forward-backward", "delay", seconds=HELD_S, skip=1)
    proxy.faults = [held]
    call = asyncio.ensure_future(client.fwd_bwd(value, processing=PROCESSING))
    await asyncio.to_thread(wait_for, lambda: held.hits == 1)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    proxy.faults = []


async def test_a_cut_upload_made_again_reuses_its_group_and_runs_once(mock: LiveMock) -> None:
    with proxy_thread(mock) as proxy:
        client = await connect(mock, proxy)
        try:
            job_id = str(client.job_id)
            await cut(client, proxy, batch(0))
            assert len(open_groups(mock, job_id)) == 1
            assert (await client.fwd_bwd(batch(0), processing=PROCESSING))["loss"] is not None
            assert open_groups(mock, job_id) == set()
            assert executed_fwd_bwd(mock, job_id) == 1
        finally:
            await client.shutdown(cancel=True)


async def test_uploads_cut_up_to_the_limit_do_not_lock_the_job(mock: LiveMock) -> None:
    with proxy_thread(mock) as proxy:
        client = await connect(mock, proxy)
        try:
            job_id = str(client.job_id)
            for seed in range(MOST_OPEN):
                await cut(client, proxy, batch(seed))
            assert len(open_groups(mock, job_id)) == MOST_OPEN
            fresh = await client.fwd_bwd(batch(MOST_OPEN), processing=PROCESSING)
            assert fresh["loss"] is not None
            assert open_groups(mock, job_id) == set()
            assert executed_fwd_bwd(mock, job_id) == 1
        finally:
            await client.shutdown(cancel=True)


async def test_a_job_locked_by_another_clients_uploads_is_a_typed_error(mock: LiveMock) -> None:
    with proxy_thread(mock) as proxy:
        owner = await connect(mock, proxy)
        try:
            for seed in range(MOST_OPEN):
                await cut(owner, proxy, batch(seed))
            other = await connect(mock, proxy, job_id=owner.job_id)
            try:
                with pytest.raises(TooManyChunkGroupsError) as refused:
                    await other.fwd_bwd(batch(MOST_OPEN), processing=PROCESSING)
            finally:
                await other.aclose()
        finally:
            await owner.shutdown(cancel=True)
    error = refused.value
    assert isinstance(error, ConflictError) and error.status == 409
    assert error.code == "too_many_chunk_groups" and error.request_id
    assert "an hour" in error.message and "new job" in error.message
