"""The `cortex` forwarder worker and rollout replica driven as verl's release/v0.7.1
trainer and PR #7102's V1 trainer drive them (`standins/verl_trainer_replay.py`, on the
release registry stand-in), against the reference mock on loopback: every worker and
replica call with the signature each build uses, `max_ckpt_to_keep` retention on the
service, and verl's own resume.

The resume runs are verl's pattern: a run saves at `save_freq`, dies right after a save (a
kill: no destroy, no exit handler), and a new process finds verl's tracker file, calls the
worker's `load_checkpoint` on `global_step_N/actor` and carries on. Its steps and final
weights must be bit-identical to a run that was never interrupted: unseeded sampling
included, whose state travels with the service's checkpoint.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

STANDINS = Path(__file__).parent / "standins"
REPLAY = STANDINS / "verl_trainer_replay.py"
PAT_ENV = "ARCTIC_VERL_WORKER_PAT"
BUILDS = ("release", "v1")
# What each build calls on the worker in these runs (profiling off, one forwarder).
CALLED = [
    "compute_log_prob",
    "compute_ref_log_prob",
    "destroy",
    "init_model",
    "save_checkpoint",
    "update_actor",
    "update_weights",
]


# What each build calls on the `cortex` rollout replica's server in these runs, and the
# other controls the replay calls once (what verl's managers may fan out to a replica).
REPLICA_CALLED = {"release": ["generate", "sleep"], "v1": ["generate", "set_global_steps", "sleep"]}
REPLICA_CONTROLS = [
    "abort_all_requests",
    "clear_kv_cache",
    "release_kv_cache",
    "resume_generation",
    "resume_kv_cache",
    "start_profile",
    "stop_profile",
    "wake_up",
]


@pytest.fixture
def reference_mock(live_mock_factory):
    return live_mock_factory("reference")


def _launch(mock, out: Path, build: str, steps: int, save_freq: int, **env: str):
    out.mkdir(exist_ok=True)
    environ = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": os.pathsep.join([str(STANDINS / "verl_merged"), str(STANDINS)]),
        "OMP_NUM_THREADS": "1",
        "VERL_USE_EXTERNAL_MODULES": "arctic_rl.integrations.verl.register",
        PAT_ENV: mock.token,
        **env,
    }
    overrides = [
        f"remote_backend.cortex.base_url={mock.base_url}",
        f"remote_backend.cortex.pat_env={PAT_ENV}",
        "remote_backend.cortex.long_poll_s=1",
        "remote_backend.cortex.progress=false",
        # today's service answers the reference model's log-probs from their own sub-job
        "remote_backend.log_prob_gpus=1",
    ]
    cmd = [sys.executable, str(REPLAY), str(out), build, str(steps), str(save_freq), *overrides]
    return subprocess.run(cmd, env=environ, capture_output=True, text=True, timeout=240)


def _run(mock, out: Path, build: str, steps: int, save_freq: int, **env: str) -> dict:
    done = _launch(mock, out, build, steps, save_freq, **env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((out / "report.json").read_text())


def _untimed(steps: dict) -> dict:
    return {
        s: {k: v for k, v in m.items() if not k.startswith("timing/")} for s, m in steps.items()
    }


@pytest.mark.parametrize("build", BUILDS)
def test_each_build_drives_the_worker_and_retention_deletes_service_checkpoints(
    reference_mock, tmp_path, build
):
    report = _run(reference_mock, tmp_path, build, 3, 2, ARCTIC_REPLAY_KEEP="1")
    assert report["loaded"] is None and report["start"] == 0
    assert report["worker_calls"] == CALLED
    assert report["replica_calls"] == sorted(REPLICA_CALLED[build] + REPLICA_CONTROLS)
    # the weights' step each rollout's answers carry: the V1 sync fans the step out
    expected = [[None]] * 3 if build == "release" else [[0], [1], [2]]
    assert report["weight_steps"] == expected
    probe = report["with_log_probs"]
    assert 1 <= probe["tokens"] <= 3 and probe["stop"] == "completed"
    assert len(probe["log_probs"]) == probe["tokens"]
    assert all(lp <= 0 for lp in probe["log_probs"])
    for metrics in report["steps"].values():
        assert {"loss", "lr", "grad_norm", "pg_loss", "mfu"} <= set(metrics)
    grads = [m["grad_norm"] for m in report["steps"].values()]
    assert all(g > 0 for g in grads), grads  # the rewards differ within groups: it learns
    ckpt = tmp_path / "ckpt"
    first, last = report["saved"]
    assert (first["global_step"], last["global_step"]) == (2, 3)
    identity = json.loads((ckpt / "global_step_3" / "actor" / "cortex_checkpoint.json").read_text())
    assert identity["checkpoint_id"] == last["checkpoint_id"] and identity["global_step"] == 3
    # max_ckpt_to_keep=1: the step-2 save is gone on the service and its actor folder too
    assert not (ckpt / "global_step_2" / "actor").exists()
    assert not Path(first["checkpoint_path"]).exists() and Path(last["checkpoint_path"]).exists()


@pytest.mark.parametrize("build", BUILDS)
def test_verl_resume_is_bit_identical_to_an_uninterrupted_run(reference_mock, tmp_path, build):
    whole = _run(reference_mock, tmp_path / "whole", build, 4, 2)
    killed = _run(reference_mock, tmp_path / "cut", build, 4, 2, ARCTIC_REPLAY_DIE_AFTER="2")
    assert sorted(killed["steps"]) == ["1", "2"] and "final_log_probs" not in killed
    resumed = _run(reference_mock, tmp_path / "cut", build, 4, 2)
    loaded = resumed["loaded"]
    assert (loaded["global_step"], loaded["service_step"]) == (2, 2)
    assert loaded["job_id"] == killed["saved"][0]["job_id"] != resumed["job_id"]
    assert resumed["start"] == 2 and sorted(resumed["steps"]) == ["3", "4"]
    assert "load_checkpoint" in resumed["worker_calls"]
    if build == "v1":  # the relaunch's first sync names the step it resumed at
        assert resumed["weight_steps"] == [[2], [3]]
    assert _untimed({**killed["steps"], **resumed["steps"]}) == _untimed(whole["steps"])
    assert resumed["final_log_probs"] == whole["final_log_probs"]


def test_a_folder_without_a_cortex_checkpoint_is_refused_not_a_fresh_start(
    reference_mock, tmp_path
):
    ckpt = tmp_path / "ckpt"
    (ckpt / "global_step_2" / "actor").mkdir(parents=True)
    (ckpt / "latest_checkpointed_iteration.txt").write_text("2")
    done = _launch(reference_mock, tmp_path, "release", 4, 2)
    assert done.returncode != 0 and not (tmp_path / "report.json").exists()
    assert "CheckpointIdentityError" in done.stderr
    assert "holds no Cortex checkpoint identity" in done.stderr


def test_a_folder_whose_checkpoint_is_at_another_step_is_refused(reference_mock, tmp_path):
    _run(reference_mock, tmp_path, "v1", 4, 2)
    ckpt = tmp_path / "ckpt"
    later = ckpt / "global_step_4" / "actor" / "cortex_checkpoint.json"
    shutil.copy(later, ckpt / "global_step_2" / "actor" / "cortex_checkpoint.json")
    (ckpt / "latest_checkpointed_iteration.txt").write_text("2")
    done = _launch(reference_mock, tmp_path, "v1", 4, 2)
    assert done.returncode != 0 and "CheckpointMismatchError" in done.stderr
    assert "resumes verl at step 2" in done.stderr and "taken at step 4" in done.stderr
