"""A request reported failed leaves nothing behind: not in memory, not on disk, not after
retention pruned it and the mock restarted.

The faults come from the mock's test-only storage fault (``devtools.mock_hooks`` with
``CORTEX_GS_MOCK_STORAGE_FAULT``), which fails the store's writes and the backend's
state saves as a full disk does, and, for a crash that is no storage fault, from a
store whose ``done`` write raises. "Nothing behind" is judged against twins: a job that
never saw the failed request, fed the same calls, answers the same (exact
log-probabilities of its three weight sets, the step's gradient norm).

The mocks serve the proposals (``service="proposed"``): the updates use the ``logprobs``
post-processor and ``grpo`` without advantages, which today's service refuses.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import torch
from cortex_gs_contract import JobState, RequestState

from arctic_rl import wire
from devtools.live_mock import LiveMock, MockApi, request_chunks, serving_in_process
from devtools.mock_hooks import STORAGE_FAULT_ENV
from devtools.mock_hooks.storagefaults import FailingDisk
from reliability.restart_support import assert_same, fingerprint, train_step, update_batch

MIB = 1024 * 1024
CHUNK_BYTES = wire.MAX_BODY_BYTES - wire.CHUNK_HEADROOM


def wide_update(seed: int, rows: int = 96, width: int = 256) -> dict[str, Any]:
    """A forward-backward whose answer carries [rows, width] log-probs (~130 KB inline)."""
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 256, (rows, width), generator=gen)
    half = width // 2
    kwargs = {
        "input_ids": ids,
        "attention_mask": torch.ones_like(ids),
        "responses": ids[:, half:],
        "response_mask": torch.ones(rows, width - half, dtype=torch.int64),
        "advantages": torch.randn(rows, width - half, generator=gen),
        "old_log_probs": torch.full((rows, width - half), -6.0),
    }
    processing = {"loss_fn": "grpo", "config": {}, "post": ["logprobs"]}
    return {"args": [], "kwargs": kwargs, "meta": {}, "processing": processing}


def saved_generations(mock: LiveMock, job_id: str) -> list[bytes]:
    """The job's generation files, as the backend left them on disk."""
    return [path.read_bytes() for path in (mock.state_dir / "backend" / job_id).glob("state-*")]


def failing_disk(mock: LiveMock) -> FailingDisk:
    disk = mock.app.state.hooks.disk
    assert isinstance(disk, FailingDisk)
    return disk


def failed_with_storage_full(api: MockApi, job_id: str, request_id: str) -> None:
    status = api.wait(job_id, request_id)
    assert (status["status"], status.get("error_code")) == ("failed", "storage_full"), status
    assert api.http.get(f"/{job_id}").json()["status"] == JobState.running


def assert_as_a_twin(
    api: MockApi, job_id: str, step: dict[str, Any], *, seed: int, batch_seed: int
) -> None:
    """A fresh job of ``seed`` trained once on ``batch_seed`` steps as ``step`` says the
    job did, and ends on the job's weights: the job holds nothing more."""
    twin = api.create_job(seed=seed, lr=5e-2)
    assert train_step(api, twin, batch_seed) == step
    assert_same(fingerprint(api, job_id), fingerprint(api, twin))


@contextmanager
def faulty_mock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str, backend: str
) -> Iterator[tuple[LiveMock, MockApi]]:
    """A mock started with test hooks on and ``fault`` armed; the fault is cleared at once
    (it lives on in that app alone), so a restart comes back with a healthy disk."""
    monkeypatch.setenv(STORAGE_FAULT_ENV, fault)
    with serving_in_process(tmp_path, backend=backend, service="proposed", test_hooks=True) as mock:
        monkeypatch.delenv(STORAGE_FAULT_ENV)
        api = MockApi(mock)
        try:
            yield mock, api
        finally:
            api.close()


def test_a_failed_update_never_comes_back_after_retention_and_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The backend saves a forward-backward's gradients, then its answer does not fit the
    database: the request fails. Retention prunes it, the mock restarts: the job's state
    is still that of its last done request, so the next update equals a twin's."""
    with faulty_mock(tmp_path, monkeypatch, f"ENOSPC:{64 * MIB}:{64 * 1024}", "reference") as (
        mock,
        api,
    ):
        job_id = api.create_job(seed=3, lr=5e-2)
        chunks = request_chunks(wide_update(0), payload_bytes=CHUNK_BYTES)
        failed = api.post_chunks(job_id, "forward-backward", chunks)[-1].json()["request_id"]
        failed_with_storage_full(api, job_id, failed)
        assert not any(failed.encode() in g for g in saved_generations(mock, job_id))

        mock.restart(result_retention_s=0.0)  # start-up prunes the failed request
        assert api.http.get(f"/{job_id}/requests/{failed}").status_code == 410
        assert api.http.get(f"/{job_id}").json()["status"] == JobState.running
        assert_as_a_twin(api, job_id, train_step(api, job_id, 1), seed=3, batch_seed=1)


def test_a_state_save_that_does_not_fit_fails_the_request_and_rolls_the_job_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The canned backend's counters cannot be saved: the step fails, and the job's
    counters are those of its last done step, in memory and after a restart."""
    with faulty_mock(tmp_path, monkeypatch, f"ENOSPC:{MIB}:{16 * MIB}", "canned") as (mock, api):
        job_id = api.create_job()
        assert api.run(job_id, "step", {})["global_steps"] == 1
        disk = failing_disk(mock)
        disk.grow(-disk.budget)  # no room for any file from now on
        failed = api.http.post(f"/{job_id}/step", json={}).json()["request_id"]
        failed_with_storage_full(api, job_id, failed)
        disk.grow(MIB)
        assert api.run(job_id, "step", {})["global_steps"] == 2
        mock.restart()
        assert api.run(job_id, "step", {})["global_steps"] == 3


def test_a_weights_file_cut_short_is_removed_and_the_job_rolls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference backend's weights do not fit while a step saves them: the step fails,
    its partial file is gone, and the gradients it would have applied are applied once by
    the next step, as a twin's are."""
    with faulty_mock(tmp_path, monkeypatch, f"ENOSPC:{64 * MIB}", "reference") as (mock, api):
        job_id = api.create_job(seed=5, lr=5e-2)
        pending = api.run_frame(job_id, "forward-backward", update_batch(0))
        state_dir = mock.state_dir / "backend" / job_id
        before = sorted(path.name for path in state_dir.iterdir())
        disk = failing_disk(mock)
        disk.grow(1024 - disk.free_bytes())  # 1 KiB left: the weights (MiBs) do not fit
        failed = api.http.post(f"/{job_id}/step", json={}).json()["request_id"]
        failed_with_storage_full(api, job_id, failed)
        assert sorted(path.name for path in state_dir.iterdir()) == before
        disk.grow(64 * MIB)
        step = api.run(job_id, "step", {})
        assert (step["global_steps"], step["metrics"]["grad_norm"]) == (
            1,
            pending["metrics"]["grad_norm"],
        )
        assert_as_a_twin(api, job_id, step, seed=5, batch_seed=0)


def test_a_request_that_crashed_after_its_state_was_saved_is_rolled_back(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a storage fault: storing the step as done raises (a bug). The step fails with
    ``internal_error`` and is undone: the next step is the job's second, in memory and
    after retention pruned the failed one and the mock restarted."""
    api = MockApi(live_mock)
    job_id = api.create_job()
    assert api.run(job_id, "step", {})["global_steps"] == 1
    requests = live_mock.app.state.service.store.requests
    store_status = requests.set_request_status

    def crash_when_done(request_id: str, status: str, **fields: Any) -> Any:
        if status == RequestState.done:
            raise RuntimeError("a bug while storing the result")
        return store_status(request_id, status, **fields)

    monkeypatch.setattr(requests, "set_request_status", crash_when_done)
    failed = api.http.post(f"/{job_id}/step", json={}).json()["request_id"]
    status = api.wait(job_id, failed)
    assert (status["status"], status.get("error_code")) == ("failed", "internal_error"), status
    monkeypatch.undo()
    assert api.run(job_id, "step", {})["global_steps"] == 2
    live_mock.restart(result_retention_s=0.0)
    assert api.http.get(f"/{job_id}/requests/{failed}").status_code == 410
    assert api.run(job_id, "step", {})["global_steps"] == 3
    api.close()
