"""A SkyRL or verl run, killed after a save and relaunched to resume, ends bit-identical
to the run never interrupted (the mock's reference backend, same seed).

SkyRL (`standins/skyrl_repo`): `main_base` dispatches to our entrypoint, the driver creates
the job, a fresh "Ray task" process reconnects and trains; SkyRL's core trainer saves
`global_step_N/` every `ckpt_interval` steps through the Arctic dispatch, prunes to
`max_ckpts_to_keep` and, relaunched with `resume_mode=latest`, resumes from the latest
folder. verl (`standins/verl_resume_replay.py`): the verl replay's driver and worker with
the save, resume (`auto`) and retention of verl's trainer around the worker's steps. The
interrupted run is stopped with SIGKILL (its whole process group), as a preempted node is.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from safetensors.torch import load_file

from arctic_rl._resume import IDENTITY_FILE

STANDINS = Path(__file__).parent / "standins"
PAT_ENV = "ARCTIC_REPLAY_PAT"
STEPS = 4
HELD_AT = 2  # the save the interrupted run is killed after
KEEP = 1


@pytest.fixture
def reference_mock(live_mock_factory: Any, mock_service: str) -> Any:
    """The folder's service, the proposals': its loss reports entropy, so every per-step
    metric is a number compared exactly (today's computes none)."""
    return live_mock_factory("reference", service=mock_service)


def _launch(cmd: list[str], run: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cmd,
        env={"PATH": os.environ["PATH"], "OMP_NUM_THREADS": "1", **env},
        cwd=run,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the kill takes driver and task
    )


def _skyrl(tmp_path: Path, mock: Any, run: Path, **env: str) -> subprocess.Popen[str]:
    cortex = tmp_path / "cortex.yaml"
    settings = {"base_url": mock.base_url, "pat_env": PAT_ENV, "long_poll_s": 2, "progress": False}
    cortex.write_text(yaml.safe_dump({"cortex": settings}))
    run.mkdir(exist_ok=True)
    argv = [
        "trainer.override_entrypoint=arctic_rl.integrations.skyrl",
        f"arctic_rl.cortex_file={cortex}",
        f"trainer.export_path={run}",
        f"trainer.ckpt_path={run / 'ckpt'}",
        "trainer.ckpt_interval=2",
        f"trainer.max_ckpts_to_keep={KEEP}",
        "trainer.policy.optimizer_config.lr=0.03",
        "generator.n_samples_per_prompt=8",
    ]
    environ = {
        "PYTHONPATH": str(STANDINS / "skyrl_repo"),
        PAT_ENV: mock.token,
        "ARCTIC_REPLAY_ITERATIONS": str(STEPS),
        **env,
    }
    return _launch([sys.executable, "-m", "skyrl.train.entrypoints.main_base", *argv], run, environ)


def _verl(tmp_path: Path, mock: Any, run: Path, **env: str) -> subprocess.Popen[str]:
    run.mkdir(exist_ok=True)
    overrides = [
        f"remote_backend.cortex.base_url={mock.base_url}",
        f"remote_backend.cortex.pat_env={PAT_ENV}",
        "remote_backend.cortex.long_poll_s=2",
        "remote_backend.cortex.progress=false",
        f"trainer.default_local_dir={run / 'ckpt'}",
    ]
    environ = {
        "PYTHONPATH": str(STANDINS / "verl_repo"),
        "VERL_USE_EXTERNAL_MODULES": "arctic_rl.integrations.verl.register",
        PAT_ENV: mock.token,
        "ARCTIC_REPLAY_ITERATIONS": str(STEPS),
        "ARCTIC_REPLAY_KEEP": str(KEEP),
        **env,
    }
    script = str(STANDINS / "verl_resume_replay.py")
    return _launch([sys.executable, script, str(run), *overrides], run, environ)


def _finished(process: subprocess.Popen[str]) -> str:
    _, stderr = process.communicate(timeout=240)
    assert process.returncode == 0, stderr[-3000:]
    return stderr


def _metrics(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def _identity(run: Path, step: int) -> dict[str, Any]:
    """What the folder of `step` records (`policy/` for SkyRL, `actor/` for verl)."""
    (folder,) = [p for p in (run / "ckpt" / f"global_step_{step}").iterdir() if p.is_dir()]
    return json.loads((folder / IDENTITY_FILE).read_text())


def _final_tensors(mock: Any, identity: dict[str, Any]) -> dict[str, Any]:
    """The final checkpoint's weights and optimizer state, as the service stored them."""
    where = mock.state_dir / "checkpoints" / identity["job_id"] / identity["checkpoint_id"]
    return {
        f"{name}:{key}": value
        for name in ("model", "optimizer")
        for key, value in load_file(where / f"{name}.safetensors").items()
    }


def _listed(mock: Any, job_id: str) -> list[str]:
    store = sqlite3.connect(f"file:{mock.state_dir / 'mock.sqlite3'}?mode=ro", uri=True)
    rows = store.execute(
        "SELECT checkpoint_id FROM checkpoints WHERE job_id = ? ORDER BY global_steps", (job_id,)
    ).fetchall()
    store.close()
    return [row[0] for row in rows]


@pytest.mark.parametrize("launch", [_skyrl, _verl], ids=["skyrl", "verl"])
def test_killed_after_a_save_a_run_resumes_bit_identical(
    tmp_path: Path, reference_mock: Any, launch: Any
) -> None:
    whole = tmp_path / "whole"
    _finished(launch(tmp_path, reference_mock, whole))

    broken = tmp_path / "broken"
    first = launch(tmp_path, reference_mock, broken, ARCTIC_REPLAY_HOLD_AFTER_STEP=str(HELD_AT))
    deadline = time.monotonic() + 240
    while not (broken / "held").exists():
        assert first.poll() is None, first.communicate()[1][-3000:]
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.communicate(timeout=60)
    assert first.returncode == -signal.SIGKILL
    killed_job = _identity(broken, HELD_AT)["job_id"]
    assert [m["global_step"] for m in _metrics(broken)] == list(range(1, HELD_AT + 1))

    stderr = _finished(launch(tmp_path, reference_mock, broken))
    assert f"job {killed_job}, whose checkpoint this run resumed from, still runs" in stderr

    # Per step: rewards, sampled tokens, the loss's and the step's metrics (timing aside);
    # the steps the service reports carry on from the checkpoint's.
    assert _metrics(broken) == _metrics(whole)
    whole_final, resumed_final = _identity(whole, STEPS), _identity(broken, STEPS)
    assert resumed_final["job_id"] not in (whole_final["job_id"], killed_job)
    assert resumed_final["service_step"] == whole_final["service_step"] == STEPS
    whole_tensors = _final_tensors(reference_mock, whole_final)
    resumed_tensors = _final_tensors(reference_mock, resumed_final)
    assert resumed_tensors.keys() == whole_tensors.keys()
    assert all(resumed_tensors[k].equal(whole_tensors[k]) for k in whole_tensors)

    # Retention: the framework kept its newest folder; the service keeps what it records,
    # and the folders removed took their checkpoints along, in the job that saved each.
    kept = sorted(p.name for p in (broken / "ckpt").glob("global_step_*"))
    assert kept == [f"global_step_{STEPS}"]
    assert _listed(reference_mock, whole_final["job_id"]) == [f"global_step{STEPS}"]
    assert _listed(reference_mock, killed_job) == []
    assert _listed(reference_mock, resumed_final["job_id"]) == [f"global_step{STEPS}"]
