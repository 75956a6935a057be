"""The real ``python -m arctic_rl_mock``, killed at each commit boundary, then restarted on
the same state dir: the client's retry completes and the work ran exactly once.

The kill comes from the mock's test-only crash switch (``devtools.mock_hooks.crashpoints``,
armed only by ``--test-hooks``): the process exits at the named point, as a killed one
would. "Exactly once" is read from the store itself (its request rows, read-only) and
from the canned backend's own step counter in the result. The last tests seed what a
crash of an older mock (or a lost file) left on disk and check the restarted mock makes
it consistent.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from arctic_rl_mock.settings import Settings

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient, wire
from devtools.batches import train_tensors
from devtools.live_mock import auth_headers, request_chunks
from devtools.mock_hooks import crashpoints

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "crash-test-pat"
TOKEN_ENV = "CORTEX_GS_MOCK_TOKEN"
PAT_ENV = "ARCTIC_RL_CRASH_TEST_PAT"
PREFIX = Settings(state_dir=Path(".")).prefix
STARTUP_TIMEOUT_S = 60.0
PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
CHUNK_BYTES = 96 * 1024  # big_batch() travels as three chunks
TRAINING_JOB: dict[str, Any] = {
    "sub_job_configs": [
        {
            "job_type": "training",
            "model_name": "tiny-byte-lm",
            "training_config": {
                "optimizer": {"name": "AdamW", "lr": 1e-3},
                "max_seq_len": 64,
                "train_batch_size": 2,
                "n_gpus": 1,
            },
        }
    ]
}
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


@dataclass
class MockProcess:
    """The mock in a process of its own on a fixed port and state dir (restartable)."""

    state_dir: Path
    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PREFIX}"

    def start(self, crash_at: str | None = None, *, test_hooks: bool | None = None) -> None:
        """Start it; ``crash_at`` arms that crash point. ``test_hooks`` runs
        ``python -m devtools.mock_hooks`` (default: when a crash point is armed), else the
        product's ``python -m arctic_rl_mock``, where the variables set arm nothing."""
        env = {**os.environ, TOKEN_ENV: TOKEN, "OMP_NUM_THREADS": "1"}
        if crash_at is not None:
            env[crashpoints.ENV] = crash_at
        log = (self.state_dir.parent / "mock.log").open("ab")
        armed = crash_at is not None if test_hooks is None else test_hooks
        module = "devtools.mock_hooks" if armed else "arctic_rl_mock"
        command = [sys.executable, "-m", module, "--port", str(self.port), "--backend"]
        command += ["canned", "--state-dir", str(self.state_dir), "--log-level", "warning"]
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        with httpx.Client(base_url=self.base_url, headers=auth_headers(TOKEN)) as http:
            while time.monotonic() < deadline:
                assert self.process is not None and self.process.poll() is None, self.log()
                try:
                    if http.get("/capacity", timeout=2).is_success:
                        return
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
        raise AssertionError(f"the mock did not start:\n{self.log()}")

    def wait_crashed(self, timeout: float = 60.0) -> int:
        """The exit status once the process has died (it must die by itself)."""
        assert self.process is not None
        return self.process.wait(timeout)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)

    def log(self) -> str:
        path = self.state_dir.parent / "mock.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        """Read the store read-only: what the mock really recorded."""
        uri = f"file:{self.state_dir / 'mock.sqlite3'}?mode=ro"
        db = sqlite3.connect(uri, uri=True, timeout=10)
        try:
            return db.execute(sql, args).fetchall()
        finally:
            db.close()

    def requests(self, job_id: str, kind: str) -> list[tuple[str, str]]:
        """(request_id, status) of each request of ``kind`` the job has."""
        return self.rows(
            "SELECT request_id, status FROM requests WHERE job_id = ? AND kind = ?", job_id, kind
        )


@asynccontextmanager
async def client_of(
    server: MockProcess, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[AsyncArcticRLClient]:
    monkeypatch.setenv(PAT_ENV, TOKEN)
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


def running_job(http: httpx.Client) -> str:
    created = http.post("/", json=TRAINING_JOB)
    assert created.status_code == 200, created.text
    job_id = str(created.json()["job_id"])
    deadline = time.monotonic() + 30
    while http.get(f"/{job_id}").json()["status"] != "running":
        assert time.monotonic() < deadline, "the job never ran"
        time.sleep(0.05)
    return job_id


def wait_done(http: httpx.Client, job_id: str, request_id: str) -> dict[str, Any]:
    for _ in range(30):
        page = http.get(f"/{job_id}/requests/{request_id}", params={"wait_s": 2})
        assert page.status_code == 200, page.text
        if page.json()["status"] not in ("pending", "running"):
            return dict(page.json())
    raise AssertionError(f"request {request_id} never finished")


@contextmanager
def http_of(server: MockProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, headers=auth_headers(TOKEN), timeout=30) as http:
        yield http


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
