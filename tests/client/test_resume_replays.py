"""SkyRL's run, killed after a save and relaunched with `trainer.resume_mode=latest`,
ends bit-identical to the run never interrupted (the reference backend, same seed).

The replay (`standins/skyrl_repo`) is SkyRL's flow: `main_base` dispatches to our
entrypoint, the driver creates the job, a fresh "Ray task" process reconnects and trains;
SkyRL's core trainer saves `global_step_N/` every `ckpt_interval` steps through the Arctic
dispatch, prunes to `max_ckpts_to_keep` and, relaunched, resumes from the latest folder.
The interrupted run is stopped with SIGKILL (driver and task), as a preempted node is.
"""

from __future__ import annotations

import json
import os
import signal
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
STEPS = 6
HELD_AT = 4  # the save the interrupted run is killed after
KEEP = 2


@pytest.fixture
def reference_mock(live_mock_factory: Any) -> Any:
    return live_mock_factory("reference")


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
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(STANDINS / "skyrl_repo"),
        "OMP_NUM_THREADS": "1",
        PAT_ENV: mock.token,
        "ARCTIC_REPLAY_ITERATIONS": str(STEPS),
        **env,
    }
    cmd = [sys.executable, "-m", "skyrl.train.entrypoints.main_base", *argv]
    return subprocess.Popen(
        cmd,
        env=environ,
        cwd=run,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the kill takes driver and task
    )


def _finished(process: subprocess.Popen[str]) -> str:
    _, stderr = process.communicate(timeout=240)
    assert process.returncode == 0, stderr[-3000:]
    return stderr


def _metrics(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def _final_state(mock: Any, run: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The identity of the last save, and its checkpoint's tensors on the service."""
    identity = json.loads(
        (run / "ckpt" / f"global_step_{STEPS}" / "policy" / IDENTITY_FILE).read_text()
    )
    where = mock.state_dir / "checkpoints" / identity["job_id"] / identity["checkpoint_id"]
    tensors = {
        f"{name}:{k}": v
        for name in ("model", "optimizer")
        for k, v in load_file(where / f"{name}.safetensors").items()
    }
    return identity, tensors


def _listed(mock: Any, job_id: str) -> list[str]:
    import sqlite3

    store = sqlite3.connect(f"file:{mock.state_dir / 'mock.sqlite3'}?mode=ro", uri=True)
    rows = store.execute(
        "SELECT checkpoint_id FROM checkpoints WHERE job_id = ? ORDER BY global_steps", (job_id,)
    ).fetchall()
    store.close()
    return [row[0] for row in rows]


def test_skyrl_killed_after_a_save_resumes_bit_identical(
    tmp_path: Path, reference_mock: Any
) -> None:
    whole = tmp_path / "whole"
    _finished(_skyrl(tmp_path, reference_mock, whole))

    broken = tmp_path / "broken"
    first = _skyrl(tmp_path, reference_mock, broken, ARCTIC_REPLAY_HOLD_AFTER_STEP=str(HELD_AT))
    deadline = time.monotonic() + 240
    while not (broken / "held").exists():
        assert first.poll() is None, first.communicate()[1][-3000:]
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.communicate(timeout=60)
    assert first.returncode == -signal.SIGKILL
    killed_job = json.loads(
        (broken / "ckpt" / f"global_step_{HELD_AT}" / "policy" / IDENTITY_FILE).read_text()
    )["job_id"]
    assert [m["global_step"] for m in _metrics(broken)] == list(range(1, HELD_AT + 1))

    stderr = _finished(_skyrl(tmp_path, reference_mock, broken))
    assert f"job {killed_job}, whose checkpoint this run resumed from, still runs" in stderr

    # Per step: rewards, sampled tokens, the loss's and the step's metrics (timing aside).
    assert _metrics(broken) == _metrics(whole)
    assert [m["optim"]["global_steps"] for m in _metrics(broken)] == list(range(1, STEPS + 1))
    (whole_id, whole_tensors), (resumed_id, resumed_tensors) = (
        _final_state(reference_mock, whole),
        _final_state(reference_mock, broken),
    )
    assert resumed_id["job_id"] not in (whole_id["job_id"], killed_job)
    assert resumed_tensors.keys() == whole_tensors.keys()
    assert all(resumed_tensors[k].equal(whole_tensors[k]) for k in whole_tensors)

    # Retention: SkyRL kept the newest KEEP folders; the service keeps what they record.
    kept = sorted(p.name for p in (broken / "ckpt").glob("global_step_*"))
    assert kept == [f"global_step_{HELD_AT}", f"global_step_{STEPS}"]
    assert _listed(reference_mock, whole_id["job_id"]) == [
        f"global_step{HELD_AT}",
        f"global_step{STEPS}",
    ]
    assert _listed(reference_mock, killed_job) == [f"global_step{HELD_AT}"]
    assert _listed(reference_mock, resumed_id["job_id"]) == [f"global_step{STEPS}"]
