"""A full or failing disk under the mock's store: a documented answer, nothing kept of the
failed upload, and exactly-once recovery once space returns.

The full-disk sequence runs twice: on a real 50 MiB tmpfs (the ``tmpfs`` case, skipped
with the reason where this process may not mount one; the suite runs as root), and
through the mock's test-only storage fault (``devtools.mock_hooks.storagefaults``,
armed by ``devtools.mock_hooks``), which fails the mock's file writes as a filling disk does.
Either way an 80 MiB forward-backward upload meets a full disk: ``507 storage_full``
with Retry-After, never ``500`` or ``409 chunk_group_missing_chunks``; the partial
upload's files and rows are gone; other calls answer normally; and once space returns
the same chunks (same chunk group) run once, with a store that passes
``PRAGMA integrity_check``. A JSON call whose row does not fit
(SQLite's "database or disk is full") is refused the same way and rolled back whole, and
its retry under the same ``Idempotency-Key`` runs once. Through the SDK, a full disk is
retried as Retry-After says, then raised as ``InsufficientStorageError``; the same call
succeeds once space returns. A result that does not fit fails its request with
``storage_full`` (the job rolls back to its saved state and goes on), and the same request
sent again succeeds once space returns.

The mocks serve the proposals (``service="proposed"``): the retries that must run once
ride on the proposed ``Idempotency-Key``, the uploads on the ``logprobs`` post-processor.
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import torch
from arctic_rl_mock.web.server import ServerSettings
from cortex_gs_contract import JobState
from hardening.support import store_rows

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient, InsufficientStorageError, wire
from devtools.batches import train_tensors
from devtools.live_mock import LiveMock, MockApi, request_chunks, serving_in_process
from devtools.mock_hooks import STORAGE_FAULT_ENV

MIB = 1024 * 1024
DISK_BYTES = 50 * MIB
UPLOAD_BYTES = 80 * MIB
CHUNK_BYTES = 8 * MIB
# What the store may still hold once the failed upload is freed: SQLite and its WAL.
FREED_BYTES = 4 * MIB
PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
PAT_ENV = "ARCTIC_RL_STORAGE_TEST_PAT"


@dataclass
class SmallDisk:
    """Where the mock's state lives: a real small tmpfs, or a directory whose writes the
    mock's storage-fault hook fails after ``DISK_BYTES``."""

    state_dir: Path
    mounted: bool
    monkeypatch: pytest.MonkeyPatch

    def used_bytes(self) -> int:
        """Bytes the state directory takes on its disk."""
        if self.mounted:
            stat = os.statvfs(self.state_dir)
            return (stat.f_blocks - stat.f_bfree) * stat.f_frsize
        return sum(p.stat().st_size for p in self.state_dir.rglob("*") if p.is_file())

    def fill(self, leave_bytes: int) -> None:
        """Leave only ``leave_bytes`` free (before the mock starts, for the hook's sake)."""
        if self.mounted:
            stat = os.statvfs(self.state_dir)
            with (self.state_dir / "filler").open("wb") as filler:
                filler.write(b"\0" * (stat.f_bavail * stat.f_frsize - leave_bytes))
        else:
            self.monkeypatch.setenv(STORAGE_FAULT_ENV, f"ENOSPC:{leave_bytes}")

    def make_room(self, mock: LiveMock) -> None:
        """Space returns: the tmpfs grows in place; the hook is cleared by a restart."""
        if self.mounted:
            refused = _mount("-o", "remount,size=400m", self.state_dir)
            assert refused is None, refused
        else:
            self.monkeypatch.delenv(STORAGE_FAULT_ENV)
            mock.restart()


def _mount(*args: Any) -> str | None:
    """Run ``mount``; None when it succeeded, else why not."""
    try:
        done = subprocess.run(["mount", *map(str, args)], capture_output=True, check=False)
    except OSError as exc:  # no mount command here
        return f"{type(exc).__name__}: {exc}"
    if done.returncode == 0:
        return None
    said = done.stderr.decode(errors="replace").strip().splitlines()
    return said[0] if said else f"mount exited {done.returncode}"


@pytest.fixture(params=["tmpfs", "hook"])
def small_disk(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[SmallDisk]:
    """A 50 MiB disk for the mock's state: a real tmpfs (``tmpfs``; skipped, saying why,
    where mounting is not allowed) or the storage-fault hook's failing disk (``hook``)."""
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    mounted = request.param == "tmpfs"
    if mounted:
        refused = _mount("-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", state_dir)
        if refused is not None:
            pytest.skip(f"cannot mount a {DISK_BYTES // MIB} MiB tmpfs here: {refused}")
    else:
        monkeypatch.setenv(STORAGE_FAULT_ENV, f"ENOSPC:{DISK_BYTES}")
    try:
        yield SmallDisk(state_dir, mounted, monkeypatch)
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(state_dir)], check=False)


def big_batch(payload_bytes: int) -> dict[str, Any]:
    """A training batch padded to ``payload_bytes`` (the SDK's ``fwd_bwd`` argument)."""
    import torch

    padding = torch.arange(payload_bytes, dtype=torch.int64).to(torch.uint8)
    return {**train_tensors(), "padding": padding}


def big_frame_value(payload_bytes: int) -> dict[str, Any]:
    """The same batch as a raw forward-backward frame's value."""
    return {**big_batch(payload_bytes), "processing": PROCESSING}


def upload_until_refused(
    api: MockApi, job_id: str, chunks: list[bytes]
) -> tuple[list[httpx.Response], httpx.Response]:
    """POST chunks in order until one is not a 200; (the accepted ones, the refusal)."""
    accepted = []
    for chunk in chunks:
        answer = api.http.post(f"/{job_id}/forward-backward", content=chunk)
        if answer.status_code != 200:
            return accepted, answer
        accepted.append(answer)
    raise AssertionError("every chunk was accepted: the disk never filled")


def assert_refused_whole(answer: httpx.Response, status: int, code: str) -> None:
    body = answer.json()
    assert (answer.status_code, body["error_code"]) == (status, code), answer.text
    assert int(answer.headers["Retry-After"]) > 0
    assert body["request_id"] == answer.headers["x-snowflake-request-id"]


def assert_upload_freed(state_dir: Path, job_id: str) -> None:
    """No chunk file and no row of the failed group is left."""
    chunk_files = [p for p in (state_dir / "chunks").rglob("*") if p.is_file()]
    assert chunk_files == []
    assert store_rows(state_dir, "SELECT COUNT(*) FROM chunks WHERE job_id = ?", job_id) == [(0,)]
    groups = store_rows(state_dir, "SELECT COUNT(*) FROM chunk_groups WHERE job_id = ?", job_id)
    assert groups == [(0,)]


def assert_runs_once(api: MockApi, state_dir: Path, job_id: str, chunks: list[bytes]) -> None:
    """The same chunks again: accepted, run once (a repeated final chunk names it again)."""
    answers = api.post_chunks(job_id, "forward-backward", chunks)
    assert [a.status_code for a in answers] == [200] * (len(chunks) - 1) + [202]
    request_id = answers[-1].json()["request_id"]
    assert "loss" in api.result(job_id, request_id)
    again = api.http.post(f"/{job_id}/forward-backward", content=chunks[-1])
    assert (again.status_code, again.json()["request_id"]) == (202, request_id)
    done = store_rows(
        state_dir,
        "SELECT COUNT(*) FROM requests WHERE job_id = ? AND kind = 'forward_backward'"
        " AND status = 'done'",
        job_id,
    )
    assert done == [(1,)]
    assert store_rows(state_dir, "PRAGMA integrity_check") == [("ok",)]


def test_a_full_disk_answers_507_frees_the_upload_and_recovers_exactly_once(
    small_disk: SmallDisk,
) -> None:
    with serving_in_process(small_disk.state_dir, service="proposed", test_hooks=True) as mock:
        api = MockApi(mock)
        job_id = api.create_job()
        value = big_frame_value(UPLOAD_BYTES)
        chunks = request_chunks(value, payload_bytes=CHUNK_BYTES, group="g-80")
        accepted, refused = upload_until_refused(api, job_id, chunks)
        assert len(accepted) < len(chunks) - 1
        assert_refused_whole(refused, 507, "storage_full")
        assert_upload_freed(small_disk.state_dir, job_id)
        assert small_disk.used_bytes() < FREED_BYTES
        # The store answers normally again: a read, and a write that fits.
        assert api.http.get(f"/{job_id}").status_code == 200
        assert api.run(job_id, "step", {})["global_steps"] == 1
        small_disk.make_room(mock)
        assert_runs_once(api, small_disk.state_dir, job_id, chunks)
        api.close()


def test_an_io_error_answers_503_storage_error_and_recovers_exactly_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(STORAGE_FAULT_ENV, f"EIO:{3 * CHUNK_BYTES // 2}")
    with serving_in_process(tmp_path, service="proposed", test_hooks=True) as mock:
        api = MockApi(mock)
        job_id = api.create_job()
        value = big_frame_value(4 * CHUNK_BYTES)
        chunks = request_chunks(value, payload_bytes=CHUNK_BYTES, group="g")
        _, refused = upload_until_refused(api, job_id, chunks)
        assert_refused_whole(refused, 503, "storage_error")
        assert_upload_freed(tmp_path, job_id)
        monkeypatch.delenv(STORAGE_FAULT_ENV)
        mock.restart()
        assert_runs_once(api, tmp_path, job_id, chunks)
        api.close()


def test_a_request_row_that_does_not_fit_is_507_rolled_back_and_its_retry_runs_once(
    small_disk: SmallDisk,
) -> None:
    small_disk.fill(leave_bytes=MIB)
    with serving_in_process(small_disk.state_dir, service="proposed", test_hooks=True) as mock:
        api = MockApi(mock)
        job_id = api.create_job()
        # Step bodies are open: the padding is stored with the request, and cannot fit.
        body, key = {"padding": "x" * (8 * MIB)}, {"Idempotency-Key": "step-1"}
        refused = api.http.post(f"/{job_id}/step", json=body, headers=key)
        assert_refused_whole(refused, 507, "storage_full")
        state = small_disk.state_dir
        assert store_rows(state, "SELECT COUNT(*) FROM requests WHERE kind = 'step'") == [(0,)]
        assert store_rows(state, "SELECT COUNT(*) FROM idempotency WHERE key = 'step-1'") == [(0,)]
        assert api.http.get(f"/{job_id}").status_code == 200
        small_disk.make_room(mock)
        accepted = api.http.post(f"/{job_id}/step", json=body, headers=key)
        assert accepted.status_code == 202, accepted.text
        request_id = accepted.json()["request_id"]
        assert api.result(job_id, request_id)["global_steps"] == 1
        again = api.http.post(f"/{job_id}/step", json=body, headers=key)
        assert (again.status_code, again.json()["request_id"]) == (202, request_id)
        assert store_rows(state, "SELECT COUNT(*) FROM requests WHERE kind = 'step'") == [(1,)]
        assert store_rows(state, "PRAGMA integrity_check") == [("ok",)]
        api.close()


def fwd_bwd_done(state_dir: Path, job_id: str) -> list[tuple[Any, ...]]:
    return store_rows(
        state_dir,
        "SELECT COUNT(*) FROM requests WHERE job_id = ? AND kind = 'forward_backward'"
        " AND status = 'done'",
        job_id,
    )


async def test_the_sdk_retries_a_full_disk_then_raises_insufficient_storage_error(
    small_disk: SmallDisk, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serving_in_process(small_disk.state_dir, service="proposed", test_hooks=True) as mock:
        monkeypatch.setenv(PAT_ENV, mock.token)
        cortex = {"base_url": mock.base_url, "pat_env": PAT_ENV, "chunk_bytes": CHUNK_BYTES}
        cortex |= {"max_retries": 2, "long_poll_s": 2, "progress": False}
        config = ArcticRLClientConfig(
            backend="cortex", model_name="tiny-byte-lm", training_gpus=1, cortex=cortex
        )
        client = await AsyncArcticRLClient.connect(config)
        job_id = str(client.job_id)
        try:
            batch = big_batch(UPLOAD_BYTES)
            with pytest.raises(InsufficientStorageError) as caught:
                await client.fwd_bwd(batch, processing=PROCESSING)
            assert (caught.value.status, caught.value.code) == (507, "storage_full")
            assert caught.value.request_id and caught.value.request_id in str(caught.value)
            assert_upload_freed(small_disk.state_dir, job_id)
            small_disk.make_room(mock)
            result = await client.fwd_bwd(batch, processing=PROCESSING)
            assert result["avg_loss"] is not None
            assert fwd_bwd_done(small_disk.state_dir, job_id) == [(1,)]
        finally:
            await client.shutdown(cancel=False)


def test_a_result_that_does_not_fit_fails_its_request_and_the_job_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook lets the database grow by 64 KiB: the job fits, 64 completions do not."""
    monkeypatch.setenv(STORAGE_FAULT_ENV, f"ENOSPC:{64 * 1024}")
    body = {"prompts": ["hello"] * 64, "sampling_params": {"max_tokens": 256}}
    with serving_in_process(tmp_path, service="proposed", test_hooks=True) as mock:
        api = MockApi(mock)
        job_id = api.create_job()
        submitted = api.http.post(f"/{job_id}/generate", content=wire.dumps(body))
        assert submitted.status_code == 202, submitted.text
        status = api.wait(job_id, submitted.json()["request_id"])
        assert (status["status"], status["error_code"]) == ("failed", "storage_full"), status
        assert api.http.get(f"/{job_id}").json()["status"] == JobState.running
        monkeypatch.delenv(STORAGE_FAULT_ENV)
        mock.restart()
        result = api.run_frame(job_id, "generate", body)
        assert [r["generation_len"] for r in result["results"]] == [256] * 64
        assert store_rows(tmp_path, "PRAGMA integrity_check") == [("ok",)]
        api.close()


def test_each_app_logs_its_own_storage_faults_at_its_own_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Two mocks in one process on failing disks: the one whose interval is 0 logs each of
    its two faults, and the other's first fault is logged too (no throttle is shared)."""
    monkeypatch.setenv(STORAGE_FAULT_ENV, "EIO:4096")  # a job's state fits, a chunk does not
    refused: list[str] = []
    every = ServerSettings(log_interval_s=0)
    with (
        caplog.at_level(logging.WARNING, logger="arctic_rl_mock"),
        serving_in_process(tmp_path / "a", every, test_hooks=True) as first,
        serving_in_process(tmp_path / "b", test_hooks=True) as second,
    ):
        faults = [live.app.state.service.chunks.storage_faults for live in (first, second)]
        assert faults[0] is not faults[1]
        for live, groups in ((first, ("a-1", "a-2")), (second, ("b-1",))):
            api = MockApi(live)
            job_id = api.create_job()
            for group in groups:
                chunks = request_chunks(torch.zeros(16384), payload_bytes=16384, group=group)
                sent = api.post_chunks(job_id, "forward-backward", chunks[:2])
                refused += [group for a in sent if a.status_code == 503]
            api.close()
    assert refused == ["a-1", "a-2", "b-1"]
    lines = [r.getMessage() for r in caplog.records if "storage fault while" in r.getMessage()]
    for group in refused:
        assert sum(f"chunk group {group}:" in line for line in lines) == 1, lines
