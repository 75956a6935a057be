"""A connection cut mid-upload or mid-poll: the call completes and the mock ran it once."""

from __future__ import annotations

import sqlite3
from urllib.parse import urlsplit

import pytest
import torch
from faults.proxy import CuttingProxy

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient

from .conftest import PAT_ENV, Endpoint
from .standins.batches import train_tensors

PROCESSING = {"post": ["logprobs"], "loss_fn": "verl_grpo", "config": {}}


def _requests(endpoint: Endpoint, job_id: str) -> list[str]:
    """The kinds of the requests the mock recorded for the job (its durable store)."""
    db = sqlite3.connect(f"file:{endpoint.live.state_dir / 'mock.sqlite3'}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT kind FROM requests WHERE job_id = ?", (job_id,)).fetchall()
    finally:
        db.close()
    return [r[0] for r in rows]


async def _client_via(
    proxy: CuttingProxy, endpoint: Endpoint, **cortex: object
) -> AsyncArcticRLClient:
    port = urlsplit(endpoint.base_url).port
    base = endpoint.base_url.replace(f":{port}", f":{proxy.port}", 1)
    cfg = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        cortex={"base_url": base, "pat_env": PAT_ENV, **cortex},
    )
    return await AsyncArcticRLClient.connect(cfg)


def _mock_port(endpoint: Endpoint) -> int:
    port = urlsplit(endpoint.base_url).port
    assert port is not None
    return port


@pytest.mark.parametrize("after", [100, 150_000])
async def test_cut_mid_upload_completes_once(endpoint: Endpoint, after: int):
    """Cut inside the headers/first chunk, or deep inside a later chunk of a multi-chunk group."""
    marker = b"/forward-backward"
    async with CuttingProxy(_mock_port(endpoint), marker, mode="request", after=after) as proxy:
        client = await _client_via(proxy, endpoint, chunk_bytes=100 * 1024)
        try:
            tensors = {**train_tensors(), "extra": torch.zeros(64, 1024)}  # ~3 chunks
            result = await client.fwd_bwd(tensors, processing=PROCESSING)
            assert result["avg_loss"] is not None
            assert proxy.cuts == 1
            assert _requests(endpoint, client.job_id).count("forward_backward") == 1
        finally:
            await client.shutdown()


async def test_lost_answer_to_final_chunk_is_not_run_twice(endpoint: Endpoint):
    async with CuttingProxy(_mock_port(endpoint), b"/forward-backward", mode="response") as proxy:
        client = await _client_via(proxy, endpoint)
        try:
            result = await client.fwd_bwd(train_tensors(), processing=PROCESSING)
            assert result["avg_loss"] is not None and proxy.cuts == 1
            assert _requests(endpoint, client.job_id).count("forward_backward") == 1
        finally:
            await client.shutdown()


async def test_lost_answer_to_step_is_not_applied_twice(endpoint: Endpoint):
    async with CuttingProxy(_mock_port(endpoint), b"/step", mode="response") as proxy:
        client = await _client_via(proxy, endpoint)
        try:
            await client.fwd_bwd(train_tensors(), processing=PROCESSING)
            step = await client.step()
            assert proxy.cuts == 1 and step["global_steps"] == 1
            assert _requests(endpoint, client.job_id).count("step") == 1
        finally:
            await client.shutdown()


@pytest.mark.parametrize("long_poll_s", [0.0, 2.0])
async def test_cut_mid_poll_completes_once(endpoint: Endpoint, long_poll_s: float):
    async with CuttingProxy(_mock_port(endpoint), b"/requests/", mode="response") as proxy:
        client = await _client_via(proxy, endpoint, long_poll_s=long_poll_s)
        try:
            result = await client.fwd_bwd(train_tensors(), processing=PROCESSING)
            assert result["avg_loss"] is not None and proxy.cuts == 1
            assert _requests(endpoint, client.job_id).count("forward_backward") == 1
        finally:
            await client.shutdown()
