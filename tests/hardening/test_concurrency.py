"""Concurrency: interleaved chunk groups on one job, two jobs at once, and many clients.

Every answer must reach its own caller: results are told apart by batch shape, step
counts and echoed prompts, and the mock's store shows each piece of work ran once.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import httpx
import pytest
import torch

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient, wire
from benchmarks.load import MIX, run_load
from devtools.live_mock import LiveMock, request_chunks

from .support import RunningJob, executed, wait_request

PAT_ENV = "ARCTIC_RL_CONCURRENCY_PAT"
SLICE = 4 * 1024  # chunk payload bytes: a few chunks per batch
PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
SAMPLING_SUB_JOB = {
    "job_type": "sampling",
    "model_name": "tiny-byte-lm",
    "inference_config": {"max_seq_len": 64, "n_gpus": 1},
}


@pytest.fixture
def mock_service() -> str:
    """These batches are the contract's (``post: [logprobs]``, advantages in kwargs, log-probs
    answered as tensors): the mock serves the full contract."""
    return "proposed"


def batch(rows: int, response: int, prompt: int = 4) -> dict[str, Any]:
    """A ForwardBackwardBatch whose logprobs come back shaped [rows, prompt + response]."""
    total = prompt + response
    mask = torch.zeros(rows, total, dtype=torch.long)
    mask[:, prompt:] = 1
    ids = torch.randint(32, 127, (rows, total), generator=torch.Generator().manual_seed(rows))
    kwargs = {
        "input_ids": ids,
        "attention_mask": torch.ones(rows, total, dtype=torch.long),
        "prompts": ids[:, :prompt],
        "responses": ids[:, prompt:],
        "response_mask": mask,
        "advantages": torch.randn(rows, total),
        "old_log_probs": torch.full((rows, total), -3.0),
        "filler": torch.zeros(rows, 1024),  # pushes the frame over a few chunks
    }
    return {"args": [], "kwargs": kwargs, "meta": {}, "processing": PROCESSING}


def logprobs_shape(result: dict[str, Any]) -> tuple[int, ...]:
    """Shape of the logprobs in a polled forward-backward result."""
    value = wire.loads(base64.b64decode(result["result"]["payload_b64"]))
    return tuple(value["post_process_outputs"]["logprobs"].shape)


def test_two_chunk_groups_interleaved_on_one_job(running_job: RunningJob) -> None:
    """A0 B0 A1 B1 ...: each group completes on its own last chunk, each runs once."""
    sizes = {"grp-a": (2, 3), "grp-b": (3, 5)}  # (rows, response tokens)
    shapes = {"grp-a": (2, 7), "grp-b": (3, 9)}  # log-probs are shaped like input_ids
    chunks = {
        gid: request_chunks(batch(*sizes[gid]), payload_bytes=SLICE, group=gid) for gid in sizes
    }
    assert min(len(c) for c in chunks.values()) >= 3
    accepted: dict[str, str] = {}
    for i in range(max(len(c) for c in chunks.values())):
        for gid, group in chunks.items():
            if i >= len(group):
                continue
            answer = running_job.http.post(running_job.url("/forward-backward"), content=group[i])
            if i < len(group) - 1:
                assert answer.status_code == 200, answer.text
                assert answer.json()["chunk_group_id"] == gid
                assert answer.json()["received_chunks"] == i + 1
            else:
                assert answer.status_code == 202, answer.text
                accepted[gid] = answer.json()["request_id"]
    assert len(set(accepted.values())) == 2
    for gid, request_id in accepted.items():
        done = wait_request(running_job.http, running_job.job_id, request_id)
        assert done["status"] == "done", done
        assert logprobs_shape(done) == shapes[gid]
    assert executed(running_job.mock.state_dir, running_job.job_id, "forward_backward") == 2


async def test_concurrent_pollers_share_a_stream_without_duplicates(live_mock: LiveMock) -> None:
    """generate-stream events are handed out once: four pollers racing on one stream
    together see every prompt's event exactly once, and one ``done``."""
    prompts = [f"p{i:02d}" for i in range(24)]
    async with httpx.AsyncClient(
        base_url=live_mock.base_url, headers=live_mock.headers(), timeout=30
    ) as http:
        created = await http.post("/", json={"sub_job_configs": [SAMPLING_SUB_JOB]})
        job_id = created.json()["job_id"]
        while (await http.get(f"/{job_id}")).json()["status"] != "running":
            await asyncio.sleep(0.01)
        body = json.dumps({"prompts": prompts, "sampling_params": {"max_tokens": 3}})
        started = await http.post(f"/{job_id}/generate-stream", content=body.encode())
        url = f"/{job_id}/requests/{started.json()['request_id']}"
        finished = asyncio.Event()

        async def poller() -> list[dict[str, Any]]:
            seen: list[dict[str, Any]] = []
            while True:
                page = (await http.get(url, params={"max_events": 1})).json()
                seen += page["events"]
                if any(e["type"] == "done" for e in page["events"]):
                    finished.set()
                if finished.is_set() and not page["events"] and page["status"] == "done":
                    return seen
                await asyncio.sleep(0)

        pages = await asyncio.wait_for(asyncio.gather(*(poller() for _ in range(4))), 60)
    events = [e for page in pages for e in page]
    results = sorted(e["index"] for e in events if e["type"] == "result")
    assert results == list(range(len(prompts)))
    assert [e for e in events if e["type"] == "done"] == [
        {"type": "done", "completed": len(prompts), "failed": 0}
    ]
    assert len(events) == len(prompts) + 1
    texts = {e["index"]: e["result"]["text"] for e in events if e["type"] == "result"}
    assert texts == {i: p for i, p in enumerate(prompts)}


@pytest.fixture
def config(live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch) -> ArcticRLClientConfig:
    """Client settings for the live mock (token in an env var, small chunks)."""
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    cortex = {
        "base_url": live_mock.base_url,
        "pat_env": PAT_ENV,
        "long_poll_s": 2,
        "chunk_bytes": 80 * 1024,
        "progress": False,
    }
    return ArcticRLClientConfig(
        backend="cortex", model_name="tiny-byte-lm", training_gpus=1, cortex=cortex
    )


async def test_concurrent_uploads_on_one_job_reach_their_callers(
    config: ArcticRLClientConfig, live_mock: LiveMock
) -> None:
    """Two fwd_bwd calls in flight on one client at once: each gets its own result."""
    async with await AsyncArcticRLClient.connect(config) as client:
        first, second = batch(2, 3), batch(3, 5)
        a, b = await asyncio.gather(
            client.fwd_bwd(first["kwargs"], processing=PROCESSING),
            client.fwd_bwd(second["kwargs"], processing=PROCESSING),
        )
        assert tuple(a["post_process_outputs"]["logprobs"].shape) == (2, 7)
        assert tuple(b["post_process_outputs"]["logprobs"].shape) == (3, 9)
        assert executed(live_mock.state_dir, client.job_id, "forward_backward") == 2


async def test_two_jobs_at_once(config: ArcticRLClientConfig, live_mock: LiveMock) -> None:
    """Two clients, two jobs, interleaved training: steps never cross between jobs."""

    async def train(rows: int, steps: int) -> tuple[str, list[int]]:
        async with await AsyncArcticRLClient.connect(config) as client:
            seen = []
            for _ in range(steps):
                out = await client.fwd_bwd(batch(rows, 2)["kwargs"], processing=PROCESSING)
                assert tuple(out["post_process_outputs"]["logprobs"].shape) == (rows, 6)
                seen.append((await client.step())["global_steps"])
            return str(client.job_id), seen

    (job_a, steps_a), (job_b, steps_b) = await asyncio.gather(train(1, 3), train(2, 4))
    assert job_a != job_b
    assert (steps_a, steps_b) == ([1, 2, 3], [1, 2, 3, 4])
    assert executed(live_mock.state_dir, job_a, "step") == 3
    assert executed(live_mock.state_dir, job_b, "step") == 4


async def test_sixteen_clients_mixed_operations(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """benchmarks/load.py's workload at a CI-sized count: 0 errors, every result checked."""
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    clients, ops = 16, 8
    samples, _ = await run_load(
        live_mock.base_url, token_env=PAT_ENV, clients=clients, ops_per_client=ops, seed=7
    )
    errors = [f"client {s.client} {s.operation}: {s.error}" for s in samples if s.error]
    assert not errors, errors[:5]
    assert len(samples) == clients * ops
    assert {s.client for s in samples} == set(range(clients))
    assert {s.operation for s in samples} <= set(MIX)
