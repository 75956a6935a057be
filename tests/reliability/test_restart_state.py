"""Issue #11: backend state survives a mock restart, or the job fails with the reason.

Each test trains through real HTTP, restarts the mock on the same state directory
(``LiveMock.restart``: a fresh app, worker and backend; only the disk carries over) and
checks that the job goes on from where it stopped: the same weights (compared through
exact log-probabilities), the same optimizer state (the next update equals that of a job
that never restarted), the un-stepped gradient, the step counter, the weight version.
State that cannot come back must fail the job, never leave it ``running`` from scratch.

The mocks serve the proposals (``service="proposed"``): the steps send ``grpo`` without
advantages and the fingerprint reads ``/forward-no-grad``, neither served today.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from arctic_rl_mock.store import Store
from cortex_gs_contract import JobState, RequestState

from devtools.live_mock import LiveMock, MockApi

from .restart_support import assert_same, fingerprint, train_step, update_batch

MockFactory = Callable[..., LiveMock]


def restarted(mock: LiveMock, api: MockApi, **settings: Any) -> MockApi:
    """The mock restarted on its state directory (``settings`` changed), a new client."""
    api.close()
    mock.restart(**settings)
    return MockApi(mock)


def wait_failed(api: MockApi, job_id: str, timeout_s: float = 30.0) -> dict[str, Any]:
    """The job once it is ``failed`` (the worker restores right after start-up)."""
    deadline = time.monotonic() + timeout_s
    while (job := api.http.get(f"/{job_id}").json())["status"] != JobState.failed:
        assert time.monotonic() < deadline, f"job {job_id} never failed: {job}"
        time.sleep(0.01)
    return dict(job)


def test_reference_training_goes_on_after_a_restart(live_mock_factory: MockFactory) -> None:
    mock = live_mock_factory("reference", service="proposed")
    api = MockApi(mock)
    job_id = api.create_job(seed=4, lr=5e-2)
    steps = [train_step(api, job_id, seed) for seed in range(3)]
    assert [s["global_steps"] for s in steps] == [1, 2, 3]
    assert api.run(job_id, "sync-weights", {})["version"] == 1
    pending = api.run_frame(job_id, "forward-backward", update_batch(3))  # not stepped yet
    before = fingerprint(api, job_id)

    api = restarted(mock, api)
    assert api.http.get(f"/{job_id}").json()["status"] == JobState.running
    assert_same(fingerprint(api, job_id), before)
    # On disk, one file of weights (the synced sampling copy names it too) and one of
    # gradients: what earlier steps wrote is gone.
    saved = (mock.state_dir / "backend" / job_id).iterdir()
    assert sorted(path.name.split("-")[0] for path in saved) == ["grads", "state", "state", "train"]
    step = api.run(job_id, "step", {})
    assert step["global_steps"] == 4
    # The step applied the gradient accumulated before the restart, no more, no less.
    assert step["metrics"]["grad_norm"] == pending["metrics"]["grad_norm"]
    assert api.run(job_id, "sync-weights", {})["version"] == 2
    after = fingerprint(api, job_id)

    # A twin that never restarted, fed the same calls, ends on the same weights: the
    # optimizer's moments, step count and rate came back too.
    twin = api.create_job(seed=4, lr=5e-2)
    for seed in range(3):
        train_step(api, twin, seed)
    api.run(twin, "sync-weights", {})
    train_step(api, twin, 3)
    api.run(twin, "sync-weights", {})
    assert_same(fingerprint(api, twin), after)
    api.close()


def test_canned_counters_go_on_after_a_restart(live_mock: LiveMock) -> None:
    api = MockApi(live_mock)
    job_id = api.create_job()
    assert [api.run(job_id, "step", {})["global_steps"] for _ in range(3)] == [1, 2, 3]
    assert [api.run(job_id, "sync-weights", {})["version"] for _ in range(2)] == [1, 2]
    api = restarted(live_mock, api)
    assert api.http.get(f"/{job_id}").json()["status"] == JobState.running
    assert api.run(job_id, "step", {})["global_steps"] == 4
    assert api.run(job_id, "sync-weights", {})["version"] == 3
    api.close()


@pytest.mark.parametrize("torn", [False, True], ids=["saved", "torn"])
def test_a_step_cut_before_it_was_recorded_is_rolled_back(
    live_mock_factory: MockFactory, torn: bool
) -> None:
    """Killed after the backend saved a step (or while it wrote it: ``torn``) but before
    the store held the step as done.

    The stop-then-rewind stands in for that kill (the request row goes back to
    ``running``, as the store had it): after the restart the request runs again, from
    the weights before it, and steps once; a client polling it sees it end ``done``.
    """
    mock = live_mock_factory("reference", service="proposed")
    api = MockApi(mock)
    job_id = api.create_job(seed=2, lr=5e-2)
    train_step(api, job_id, 0)
    api.run_frame(job_id, "forward-backward", update_batch(1))
    cut = api.http.post(f"/{job_id}/step", json={}).json()["request_id"]
    stepped = api.result(job_id, cut)
    assert stepped["global_steps"] == 2
    after_step = fingerprint(api, job_id)
    api.close()
    mock.stop()
    store = Store(mock.state_dir)
    assert store.requests.set_request_status(
        cut, RequestState.running, only_from=[RequestState.done]
    )
    store.close()
    if torn:
        generations = (mock.state_dir / "backend" / job_id).glob("state-*.json")
        newest = next(path for path in generations if cut.encode() in path.read_bytes())
        newest.write_bytes(newest.read_bytes()[:-40])
    mock.start()
    api = MockApi(mock)

    rerun = api.result(job_id, cut)
    assert rerun["global_steps"] == 2
    assert rerun["metrics"]["grad_norm"] == stepped["metrics"]["grad_norm"]
    assert_same(fingerprint(api, job_id), after_step)
    # The re-run's state replaced the rolled-back one: a further restart keeps it.
    api = restarted(mock, api)
    assert_same(fingerprint(api, job_id), after_step)
    assert train_step(api, job_id, 2)["global_steps"] == 3
    api.close()


def _delete_state(state: Path) -> None:
    shutil.rmtree(state)


def _corrupt_weights(state: Path) -> None:
    for blob in state.glob("train-*.pt"):
        blob.write_bytes(blob.read_bytes()[:100])


def _corrupt_generations(state: Path) -> None:
    for generation in state.glob("state-*.json"):
        generation.write_text('{"format": 1, "revision": ')


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_delete_state, "there is no saved state for it"),
        (_corrupt_weights, "a state file is unreadable"),
        (_corrupt_generations, "its state files are unreadable"),
    ],
)
def test_state_that_cannot_come_back_fails_the_job(
    live_mock_factory: MockFactory, damage: Callable[[Path], None], reason: str
) -> None:
    mock = live_mock_factory("reference", service="proposed")
    api = MockApi(mock)
    job_id = api.create_job(seed=1)
    train_step(api, job_id, 0)
    api.close()
    mock.stop()
    damage(mock.state_dir / "backend" / job_id)
    mock.start()
    api = MockApi(mock)
    job = wait_failed(api, job_id)
    assert reason in job["reason"], job
    refused = api.http.post(f"/{job_id}/step", json={})
    assert refused.status_code == 409 and refused.json()["error_code"] == "job_not_running"
    api.close()


def test_state_of_another_backend_fails_the_job(live_mock_factory: MockFactory) -> None:
    mock = live_mock_factory("canned", service="proposed")
    api = MockApi(mock)
    job_id = api.create_job()
    api.run(job_id, "step", {})
    api = restarted(mock, api, backend="reference")
    job = wait_failed(api, job_id)
    assert "written by the 'canned' backend" in job["reason"], job
    api.close()
