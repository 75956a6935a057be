"""The real ``python -m arctic_rl_mock``, killed at each commit boundary, then restarted on
the same state dir: the client's retry completes and the work ran exactly once.

The kill comes from the mock's test-only crash switch (``devtools.mock_hooks.crashpoints``,
armed only by ``devtools.mock_hooks``): the process exits at the named point, as a killed one
would. "Exactly once" is read from the store itself (its request rows, read-only) and
from the canned backend's own step counter in the result. The last tests seed what a
crash of an older mock (or a lost file) left on disk and check the restarted mock makes
it consistent.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient, wire
from devtools.batches import train_tensors
from devtools.live_mock import request_chunks
from devtools.mock_hooks import crashpoints
from devtools.mock_process import MockProcess, http_of, running_job, wait_done

PAT_ENV = "ARCTIC_RL_CRASH_TEST_PAT"
PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
CHUNK_BYTES = 96 * 1024  # big_batch() travels as three chunks
# Where each crash point is reached: a keyed step, or a three-chunk forward-backward.
STEP_POINTS = ("request_uncommitted", "request_committed")
GROUP_POINTS = (
    "chunk_file_written",
    "chunk_committed",
    "final_chunk_file_written",
    "group_uncommitted",
    "group_committed",
)


def test_every_crash_point_is_exercised() -> None:
    assert set(STEP_POINTS + GROUP_POINTS) == crashpoints.POINTS


def big_batch() -> dict[str, Any]:
    import torch

    return {**train_tensors(), "padding": torch.zeros(48, 1024)}


@asynccontextmanager
async def client_of(
    server: MockProcess, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[AsyncArcticRLClient]:
    monkeypatch.setenv(PAT_ENV, server.token)
    settings = {
        "base_url": server.base_url,
        "pat_env": PAT_ENV,
        "long_poll_s": 2,
        "chunk_bytes": CHUNK_BYTES,
        "progress": False,
        "service": "proposed",  # the mock serves the proposed Idempotency-Key
    }
    config = ArcticRLClientConfig(
        backend="cortex", model_name="tiny-byte-lm", training_gpus=1, cortex=settings
    )
    client = await AsyncArcticRLClient.connect(config)
    try:
        yield client
    finally:
        await client.shutdown(cancel=False)


async def _step(client: AsyncArcticRLClient) -> dict[str, Any]:
    return dict(await client.step())


async def _fwd_bwd(client: AsyncArcticRLClient) -> dict[str, Any]:
    return dict(await client.fwd_bwd(big_batch(), processing=PROCESSING))


@pytest.mark.parametrize("point", STEP_POINTS + GROUP_POINTS)
async def test_a_crash_at_each_commit_boundary_runs_the_call_once(
    mock: MockProcess, point: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The call kills the mock at ``point``; the mock restarts without the switch on the
    same state dir and port; the client's own retry completes, and the store holds one
    execution, done."""
    kind, call = ("step", _step) if point in STEP_POINTS else ("forward_backward", _fwd_bwd)
    mock.start(crash_at=point)
    async with client_of(mock, monkeypatch) as client:
        task = asyncio.create_task(call(client))
        status = await asyncio.to_thread(mock.wait_crashed)
        assert status == crashpoints.EXIT_STATUS, mock.log()
        assert not task.done(), f"the client stopped retrying: {task.exception()!r}"
        await asyncio.to_thread(mock.start)
        result = await asyncio.wait_for(task, 120)
        job_id = client.job_id
    executions = mock.requests(job_id, kind)
    assert len(executions) == 1 and executions[0][1] == "done", executions
    if kind == "step":
        assert result["global_steps"] == 1  # the canned backend stepped once
    else:
        assert result["avg_loss"] is not None


# -- what an older mock's crash (or a lost file) left on disk ------------------------------


def _group_of(chunk: bytes) -> tuple[str, int]:
    """(chunk_group_id, chunk_idx) of a request chunk."""
    desc = wire.read_chunk(chunk).descriptor
    assert desc is not None and desc.chunk_group_id is not None
    return desc.chunk_group_id, desc.chunk_idx


def test_a_final_chunk_stored_without_its_request_runs_once_after_restart(
    mock: MockProcess,
) -> None:
    """The issue's case: an older mock stored the final chunk, then died before creating
    the group's request. Restarted, the mock queues the complete group once; the resent
    final chunk answers 202 with that request (it answered 200 without a request id)."""
    chunks = request_chunks(big_batch() | {"processing": PROCESSING}, payload_bytes=CHUNK_BYTES)
    assert len(chunks) == 3
    mock.start()
    with http_of(mock) as http:
        job_id = running_job(http)
        for chunk in chunks[:-1]:
            assert http.post(f"/{job_id}/forward-backward", content=chunk).status_code == 200
    mock.stop()
    # What the older mock's Store.add_chunk wrote for the final chunk: file, then row.
    group_id, final_idx = _group_of(chunks[-1])
    group_dir = mock.state_dir / "chunks" / job_id / group_id
    (group_dir / f"{final_idx}.bin").write_bytes(chunks[-1])
    sha = hashlib.sha256(chunks[-1]).hexdigest()
    with contextlib.closing(sqlite3.connect(mock.state_dir / "mock.sqlite3")) as db, db:
        db.execute("INSERT INTO chunks VALUES (?, ?, ?, ?)", (job_id, group_id, final_idx, sha))

    mock.start()
    with http_of(mock) as http:
        answer = http.post(f"/{job_id}/forward-backward", content=chunks[-1])
        assert answer.status_code == 202, answer.text
        request_id = answer.json()["request_id"]
        assert wait_done(http, job_id, request_id)["status"] == "done"
    assert mock.requests(job_id, "forward_backward") == [(request_id, "done")]


def test_a_chunk_row_whose_file_is_lost_is_asked_for_again(mock: MockProcess) -> None:
    """A stored chunk's file is gone after a restart: the mock forgets that chunk, so the
    final chunk asks for it (409 missing chunks) instead of failing on the missing file;
    resent, the group runs once."""
    chunks = request_chunks(big_batch() | {"processing": PROCESSING}, payload_bytes=CHUNK_BYTES)
    mock.start()
    with http_of(mock) as http:
        job_id = running_job(http)
        for chunk in chunks[:-1]:
            assert http.post(f"/{job_id}/forward-backward", content=chunk).status_code == 200
    mock.stop()
    group_id, lost_idx = _group_of(chunks[1])
    (mock.state_dir / "chunks" / job_id / group_id / f"{lost_idx}.bin").unlink()

    mock.start()
    with http_of(mock) as http:
        missing = http.post(f"/{job_id}/forward-backward", content=chunks[-1])
        assert missing.status_code == 409, missing.text
        assert missing.json()["error_code"] == "chunk_group_missing_chunks"
        assert http.post(f"/{job_id}/forward-backward", content=chunks[1]).status_code == 200
        answer = http.post(f"/{job_id}/forward-backward", content=chunks[-1])
        assert answer.status_code == 202, answer.text
        request_id = answer.json()["request_id"]
        assert wait_done(http, job_id, request_id)["status"] == "done"
    assert mock.requests(job_id, "forward_backward") == [(request_id, "done")]


def test_an_idempotency_record_whose_request_is_gone_does_not_answer(mock: MockProcess) -> None:
    """A record naming a request the store no longer has is dropped at start-up: the
    retried step runs (once) and answers a request that exists, not a dangling id."""
    key = {"Idempotency-Key": "crash-test-step-1"}
    mock.start()
    with http_of(mock) as http:
        job_id = running_job(http)
        first = http.post(f"/{job_id}/step", json={}, headers=key)
        assert first.status_code == 202, first.text
        lost = first.json()["request_id"]
        wait_done(http, job_id, lost)
    mock.stop()
    with contextlib.closing(sqlite3.connect(mock.state_dir / "mock.sqlite3")) as db, db:
        db.execute("DELETE FROM requests WHERE request_id = ?", (lost,))

    mock.start()
    with http_of(mock) as http:
        retry = http.post(f"/{job_id}/step", json={}, headers=key)
        assert retry.status_code == 202, retry.text
        request_id = retry.json()["request_id"]
        assert wait_done(http, job_id, request_id)["status"] == "done"
        again = http.post(f"/{job_id}/step", json={}, headers=key)
        assert again.json()["request_id"] == request_id
    assert mock.requests(job_id, "step") == [(request_id, "done")]


def test_chunk_files_no_row_names_are_removed_at_start_up(mock: MockProcess) -> None:
    """Files a crash left without rows (a chunk of a group never recorded, a chunk not
    recorded yet, a half-written temporary) are removed; recorded chunks stay."""
    chunks = request_chunks(big_batch() | {"processing": PROCESSING}, payload_bytes=CHUNK_BYTES)
    mock.start()
    with http_of(mock) as http:
        job_id = running_job(http)
        assert http.post(f"/{job_id}/forward-backward", content=chunks[0]).status_code == 200
    mock.stop()
    group_id, kept_idx = _group_of(chunks[0])
    group_dir = mock.state_dir / "chunks" / job_id / group_id
    strays = [
        group_dir / "1.bin",
        group_dir / "2.tmp",
        group_dir.parent / "never-recorded" / "0.bin",
    ]
    for stray in strays:
        stray.parent.mkdir(parents=True, exist_ok=True)
        stray.write_bytes(chunks[1])

    mock.start()
    assert [path for path in strays if path.exists()] == []
    assert (group_dir / f"{kept_idx}.bin").read_bytes() == chunks[0]
