"""The verl plugin and the `cortex` backend against each verl registry shape, in fresh
interpreters as verl runs them.

Registries (`standins/`): `verl_repo` (pre-merge: a `MODULES` table, no worker slot),
`verl_merged` (release/v0.7.1: `register_worker` / `get_worker`, no table) and `verl_bare`
(a verl without remote backends). The published package is either absent (hidden) or the
stand-in `published_ap` beside it: the backend and its worker are this package's either
way, and nothing of the published package is imported.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arctic_rl._tracking import normalize_state

STANDINS = Path(__file__).parent / "standins"
PROBE = STANDINS / "verl_plugin_probe.py"
REGISTRIES = {"fork": STANDINS / "verl_repo", "merged": STANDINS / "verl_merged"}
PUBLISHED = {"published": STANDINS / "published_ap", "absent": STANDINS / "hide_published"}
PAT_ENV = "ARCTIC_PLUGIN_PAT"


def _probe(paths: list[Path], *args: str, **env: str) -> dict:
    environ = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": os.pathsep.join(map(str, paths)),
        "OMP_NUM_THREADS": "1",
        "VERL_USE_EXTERNAL_MODULES": "arctic_rl.integrations.verl.register",
        **env,
    }
    cmd = [sys.executable, str(PROBE), *args]
    done = subprocess.run(cmd, env=environ, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _chose(report: dict) -> str:
    (line,) = [x for x in report["log"] if x.startswith("INFO arctic_rl: verl plugin:")]
    return line


@pytest.mark.parametrize("published", sorted(PUBLISHED))
def test_fork_registry_gets_cortex_in_its_module_table(published):
    report = _probe([REGISTRIES["fork"], PUBLISHED[published]], "import")
    assert report["modules"]["cortex"] == "arctic_rl.integrations.verl.backend"
    assert "fork registry" in _chose(report)
    assert report["cortex"] == "CortexBackend" and report["backends"] == ["cortex"]
    assert report["published_imported"] == []
    # this stand-in has no rollout replica registry: the plugin says so and carries on
    assert report["replica"] is None and "no rollout replica registry" in _chose(report)


@pytest.mark.parametrize("published", sorted(PUBLISHED))
def test_merged_registry_gets_cortex_and_our_worker(published):
    report = _probe([REGISTRIES["merged"], PUBLISHED[published]], "import")
    assert report["cortex"] == "CortexBackend" and report["backends"] == ["cortex"]
    # main_ppo's get_worker: this package's worker, whether or not arctic-platform is there
    assert report["worker"] == "arctic_rl.integrations.verl.worker.CortexActorRolloutRefWorker"
    assert report["modules"] == {} and report["published_imported"] == []
    assert "merged registry (register_worker): backend and worker registered" in _chose(report)
    # the agent loop's get_rollout_replica_class("cortex"): this package's replica
    assert report["replica"] == "arctic_rl.integrations.verl.replica.CortexReplica"
    assert "rollout replica 'cortex' registered" in _chose(report)


def test_a_verl_without_remote_backends_keeps_import_verl_working():
    report = _probe([STANDINS / "verl_bare", PUBLISHED["published"]], "import")
    assert report["registry"] is False
    assert any(x.startswith("WARNING") and "no remote backends" in x for x in report["log"])


@pytest.fixture
def reference_mock(live_mock_factory):
    return live_mock_factory("reference", service="proposed")


def _job_status(mock, job_id: str) -> str:
    store = sqlite3.connect(f"file:{mock.state_dir / 'mock.sqlite3'}?mode=ro", uri=True)
    (status,) = store.execute("SELECT status FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
    store.close()
    return normalize_state(status)


@pytest.mark.parametrize("shape", sorted(REGISTRIES))
def test_cortex_backend_reaches_cortex_and_leaves_nothing_unawaited(reference_mock, shape):
    report = _probe(
        [REGISTRIES[shape], PUBLISHED["absent"]],
        "drive",
        reference_mock.root_url,
        PAT_ENV,
        **{PAT_ENV: reference_mock.token},
    )
    assert report["client"] == "LegacyCortexClient" and report["same_job"] is True
    # the forward answered: dense answers for the worker to make jagged
    assert report["answer"] == ["entropy", "log_probs"]
    assert report["saved"]["checkpoint_id"]  # a plain save (the fork-era worker's) works
    assert report["closed"] is True and report["warnings"] == []
    assert report["settle_threads"] == []  # no loop left behind in the process
    assert _job_status(reference_mock, report["job_id"].split(":", 1)[0]) == "cancelled"
