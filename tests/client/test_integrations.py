"""SkyRL's and verl's Arctic flows replayed in subprocesses, through `arctic_platform.rl`,
against the mock as today's service (the default: the legacy client lowers their requests)
and as a service serving the proposals.

SkyRL (`standins/skyrl_repo`): `main_base` dispatches to
`trainer.override_entrypoint=arctic_rl.integrations.skyrl`, the driver builds the client
with backend "local", and a fresh "Ray task" process with only ARCTIC_* variables
reconnects through `reconnect_config()` and trains the mock's reference model.

verl (`standins/verl_replay.py`): the plugin `arctic_rl.integrations.verl.register`
(VERL_USE_EXTERNAL_MODULES), `trainer.remote_backend=cortex` and the group file; a
worker process re-attaches with the reconnect handle, trains, and slices the answers
with `make_njt`.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from arctic_rl._tracking import normalize_state

STANDINS = Path(__file__).parent / "standins"
SKYRL_REPO = STANDINS / "skyrl_repo"
HIDE_PUBLISHED = STANDINS / "hide_published"
VERL_REPLAY = STANDINS / "verl_replay.py"
PAT_ENV = "ARCTIC_REPLAY_PAT"
ITERATIONS = 20
SKYRL_DROPPED = (
    "arctic_rl: Cortex has no place for ds_config.gradient_accumulation_steps, "
    "ds_config.optimizer.params.eps, ds_config.train_micro_batch_size_per_gpu, "
    "ds_config.zero_optimization, ds_worker_config.attn_implementation, "
    "ds_worker_config.use_liger (from the client config): ignored"
)


@pytest.fixture
def reference_mock(live_mock_factory):
    return live_mock_factory("reference")


@pytest.fixture
def proposed_mock(live_mock_factory):
    return live_mock_factory("reference", service="proposed")


def _cortex_file(tmp_path: Path, mock) -> Path:
    """The small cortex yaml a recipe names: base_url as scheme + host, as published."""
    path = tmp_path / "cortex.yaml"
    settings = {
        "base_url": mock.root_url,
        "database": "RL_DB",
        "schema": "PUBLIC",
        "pat_env": PAT_ENV,
        "long_poll_s": 2,
        "progress": False,
    }
    path.write_text(yaml.safe_dump({"cortex": settings}))
    return path


def _run_skyrl(tmp_path: Path, mock, *, hide_published: bool) -> tuple[dict, str]:
    """SkyRL's run against the mock: its report and its stderr (both processes')."""
    paths = [str(SKYRL_REPO)] + ([str(HIDE_PUBLISHED)] if hide_published else [])
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": os.pathsep.join(paths),
        "OMP_NUM_THREADS": "1",
        PAT_ENV: mock.token,
        "ARCTIC_REPLAY_ITERATIONS": str(ITERATIONS),
    }
    argv = [
        "trainer.override_entrypoint=arctic_rl.integrations.skyrl",
        f"arctic_rl.cortex_file={_cortex_file(tmp_path, mock)}",
        f"trainer.export_path={tmp_path}",
        "trainer.policy.optimizer_config.lr=0.03",
        "generator.n_samples_per_prompt=8",
    ]
    cmd = [sys.executable, "-m", "skyrl.train.entrypoints.main_base", *argv]
    done = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert mock.token not in done.stdout + done.stderr
    return json.loads((tmp_path / "report.json").read_text()), done.stderr


def _assert_learned(report: dict) -> None:
    rewards = report["rewards"]
    assert len(rewards) == ITERATIONS
    first, last = sum(rewards[:3]) / 3, sum(rewards[-3:]) / 3
    assert last > first + 0.1, rewards


@pytest.mark.parametrize("hide_published", [False, True], ids=["beside-published", "alone"])
def test_skyrl_replay_trains_through_arctic_platform_rl(tmp_path, reference_mock, hide_published):
    report, stderr = _run_skyrl(tmp_path, reference_mock, hide_published=hide_published)
    assert report["config_type"] == "arctic_rl._config.ArcticRLClientConfig"
    # What SkyRL's DeepSpeed settings hold beyond what Cortex takes is said once, on the
    # driver that creates the job (the Ray task only reconnects).
    dropped = [line for line in stderr.splitlines() if "Cortex has no place for" in line]
    assert dropped == [SKYRL_DROPPED], stderr[-3000:]
    training, sampling, log_prob = report["job_ids"]
    assert training.endswith(":training:0") and sampling.endswith(":sampling:0")
    assert log_prob is None
    _assert_learned(report)
    # Today's service computes no entropy: SkyRL's policy/entropy reduces NaN, never zeros.
    assert all(math.isnan(e) for e in report["entropy"])
    # SkyRL's driver never shuts its client down: the job it created ends with its process.
    job_id = training.split(":", 1)[0]
    store = sqlite3.connect(f"file:{reference_mock.state_dir / 'mock.sqlite3'}?mode=ro", uri=True)
    (status,) = store.execute("SELECT status FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
    store.close()
    assert normalize_state(status) == "cancelled"


def test_skyrl_replay_against_a_service_serving_the_proposals(tmp_path, proposed_mock):
    report, _ = _run_skyrl(tmp_path, proposed_mock, hide_published=True)
    _assert_learned(report)
    assert all(math.isfinite(e) and e > 0 for e in report["entropy"])


def _run_verl(tmp_path: Path, mock, *extra: str) -> dict:
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(STANDINS / "verl_repo"),
        "OMP_NUM_THREADS": "1",
        "VERL_USE_EXTERNAL_MODULES": "arctic_rl.integrations.verl.register",
        PAT_ENV: mock.token,
    }
    overrides = [  # a full service URL (with /api/v2/) is still understood
        f"remote_backend.cortex.base_url={mock.base_url}",
        f"remote_backend.cortex.pat_env={PAT_ENV}",
        "remote_backend.cortex.long_poll_s=2",
        "remote_backend.cortex.progress=false",
        *extra,
    ]
    cmd = [sys.executable, str(VERL_REPLAY), str(tmp_path), *overrides]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    rewards = report["rewards"]
    assert sum(rewards[-3:]) / 3 > sum(rewards[:3]) / 3 + 0.1, rewards
    njt = report["njt"]
    assert njt["rows"] == 16 and njt["exact"] is True
    assert njt["max_gap_to_route"] < 1e-5  # the response slice is what the service scores
    assert report["entropy_rows"] == 16
    for metrics in report["metrics"]:  # np.mean reduced every metric: no None reached it
        assert "lr" in metrics and all(isinstance(v, float) for v in metrics.values())
    return report


def test_verl_replay_trains_and_make_njt_slices_the_answer(tmp_path, reference_mock):
    """Today's service, as a verl user runs it: no KL loss term (grpo has none), so verl
    computes no reference log-probs; the entropy it logs is NaN, reduced without a crash."""
    report = _run_verl(tmp_path, reference_mock)
    assert report["ref_keys"] == []
    assert all(math.isnan(e) for e in report["entropy"])


def test_verl_replay_with_a_kl_loss_against_the_proposals(tmp_path, proposed_mock):
    report = _run_verl(tmp_path, proposed_mock, "actor_rollout_ref.actor.use_kl_loss=true")
    assert report["ref_keys"] == ["log_probs"]
    assert all(math.isfinite(e) and e > 0 for e in report["entropy"])
    # Step 1 is on-policy (policy == old == reference): verl's response-aligned old and
    # reference log-probs, left-padded, line up with the tokens the loss scores.
    first = report["metrics"][0]
    assert (first["ppo_kl"], first["pg_clipfrac_lower"], first["kl_loss"]) == (0.0, 0.0, 0.0)
