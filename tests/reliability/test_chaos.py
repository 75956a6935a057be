"""The demo's GRPO loop carries on across SIGKILLs of the mock and random network faults,
and ends exactly where a clean run with the same seed ends (``make chaos``, shortened).

The mock is a real ``python -m arctic_rl_mock`` subprocess, killed with SIGKILL while a
request runs (the store says so) and restarted on the same state dir and port; the
client is the legacy client the demo uses, over real HTTP, in a driver process that
saves after each iteration and is itself killed after saves and relaunched. "Exactly" is
bit-for-bit: each iteration's reward, loss, grad_norm, kl and sample, and the final
weights' exact log-probabilities of a probe with the saved checkpoint's step.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arctic_rl import _shim
from examples import chaos

SETTINGS = chaos.ChaosSettings(seed=3, iterations=6, kills=3, faults=0, driver_kills=0)


@pytest.fixture(scope="module", autouse=True)
def _selected_in_process() -> Iterator[None]:
    """The loop selects Cortex on SkyRL's path in this process (hook + routing); undone."""
    meta_path = list(sys.meta_path)
    yield
    _shim.route_on_prem_to_cortex(False)
    sys.meta_path[:] = meta_path
    for name in ("arctic_platform.rl", "arctic_platform.rl.ray_server"):
        sys.modules.pop(name, None)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> chaos.Outcome:
    """The same loop, same seed, nothing going wrong."""
    return chaos.run(tmp_path_factory.mktemp("clean"), SETTINGS, chaos=False)


def assert_same(outcome: chaos.Outcome, clean: chaos.Outcome) -> None:
    for ours, theirs in zip(outcome.rows, clean.rows, strict=True):
        assert ours == theirs, f"iteration {ours[0]} differs"
    assert outcome.fingerprint == clean.fingerprint


def test_a_run_survives_sigkills_of_the_service(tmp_path: Path, clean: chaos.Outcome) -> None:
    outcome = chaos.run(tmp_path, SETTINGS, chaos=True)
    assert (outcome.kills, outcome.kills_while_running) == (3, 3)
    assert_same(outcome, clean)


def test_a_run_survives_faults_and_a_sigkill(tmp_path: Path, clean: chaos.Outcome) -> None:
    settings = chaos.ChaosSettings(seed=5, iterations=6, kills=1, faults=10, driver_kills=0)
    outcome = chaos.run(tmp_path, settings, chaos=True)
    assert (outcome.kills, outcome.kills_while_running) == (1, 1)
    assert outcome.faults_hit >= 5
    assert_same(outcome, clean)


def test_a_run_survives_sigkills_of_its_driver(tmp_path: Path, clean: chaos.Outcome) -> None:
    """The training driver itself is killed after saves and relaunched: each launch
    resumes from the last save through the SDK (a new job loading the killed one's
    checkpoint), while the mock is killed too."""
    settings = chaos.ChaosSettings(seed=3, iterations=6, kills=1, faults=0, driver_kills=2)
    outcome = chaos.run(tmp_path, settings, chaos=True)
    assert (outcome.driver_kills, outcome.kills) == (2, 1)
    log = (tmp_path / "driver.log").read_text()
    assert log.count("whose checkpoint this run resumed from, still runs") == 2
    assert_same(outcome, clean)
