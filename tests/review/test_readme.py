"""The README stays true: its make targets exist, its paths exist, its yaml really works."""

from __future__ import annotations

import importlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from arctic_rl.integrations.verl import GROUP_FILE

from ._make import expanded
from .readme_blocks import README, ROOT, block_after

MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
STANDINS = ROOT / "tests" / "client" / "standins"
# The output of a real `make chaos` (with the Makefile's defaults), which the README quotes.
CHAOS_RUN = ROOT / "docs" / "chaos-run.txt"
MAIN_BASE = "skyrl.train.entrypoints.main_base"


def test_every_make_target_in_the_readme_exists():
    targets = set(re.findall(r"^([a-z][\w-]*):", MAKEFILE, re.M))
    used = set(re.findall(r"`make ([a-z][\w-]*)", README))
    assert used and used <= targets, used - targets


def test_every_path_in_the_readme_exists():
    paths = set(re.findall(r"\]\(((?!https?:)[^)#]+)\)", README))  # markdown links
    paths |= {p for p in re.findall(r"`([\w./-]+/[\w./-]*)`", README) if "/" in p}
    # made by the commands themselves
    skip = ("demo-output/", "bench-results/", "site/", "contract-check-report/")
    missing = [
        p
        for p in sorted(paths)
        if not p.startswith(skip) and not p.startswith(("pkg:", "http")) and "{" not in p
        and not (ROOT / p).exists()
    ]  # fmt: skip
    assert not missing


def _command(marker: str) -> list[str]:
    """The README's shell command as arguments: continuation lines joined, `...` dropped."""
    lines = [ln for ln in block_after(marker).splitlines() if not ln.startswith("export ")]
    words = shlex.split(" ".join(ln.rstrip("\\") for ln in lines), comments=True)
    return [w for w in words if w != "..."]


def _exports(marker: str) -> dict[str, str]:
    found = re.findall(r"^export (\w+)=(\S+)", block_after(marker), re.M)
    return {name: value for name, value in found if value != "..."}


_BASE_ENV = {"PATH": os.environ["PATH"], "OMP_NUM_THREADS": "1"}


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> None:
    done = subprocess.run(
        cmd,
        env={**_BASE_ENV, "ARCTIC_REPLAY_ITERATIONS": "2", **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture
def reference_mock(live_mock_factory):
    return live_mock_factory("reference")


def test_skyrl_quickstart_runs_as_written(reference_mock, tmp_path):
    """The README's command and cortex.yaml, host pointed at the mock, run SkyRL's replay."""
    documented = yaml.safe_load(block_after("skyrl-cortex-yaml"))
    cortex = documented["cortex"]
    assert cortex["pat_env"] in block_after("skyrl-command")  # the variable it exports
    cortex["base_url"] = reference_mock.root_url  # scheme + host, as the comment says
    (tmp_path / "cortex.yaml").write_text(yaml.safe_dump(documented))
    argv = _command("skyrl-command")
    assert argv[:3] == ["python", "-m", MAIN_BASE]
    env = {"PYTHONPATH": str(STANDINS / "skyrl_repo"), cortex["pat_env"]: reference_mock.token}
    replay = [*argv[3:], f"trainer.export_path={tmp_path}"]
    _run([sys.executable, "-m", MAIN_BASE, *replay], env, tmp_path)
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["job_ids"][0].endswith(":training:0") and len(report["rewards"]) == 2


def test_verl_quickstart_runs_as_written(reference_mock, tmp_path):
    """The README's plugin, group and overrides, the host pointed at the mock, run verl's replay."""
    argv = _command("verl-command")
    exports = _exports("verl-command")
    assert exports == {"VERL_USE_EXTERNAL_MODULES": "arctic_rl.integrations.verl.register"}
    search = next(a for a in argv if a.startswith("hydra.searchpath="))
    package = re.fullmatch(r"hydra\.searchpath=\[pkg://([\w.]+)\]", search).group(1)
    group = "remote_backend=cortex"
    assert group in argv and Path(importlib.import_module(package).__file__).parent == (
        GROUP_FILE.parent.parent
    )
    group_keys = yaml.safe_load(GROUP_FILE.read_text(encoding="utf-8"))["cortex"]
    overrides = [a for a in argv if a.startswith(("remote_backend.", "trainer.remote_backend"))]
    keys = [a.split("=", 1)[0].removeprefix("remote_backend.cortex.") for a in overrides]
    assert {"host", "database", "schema"} <= set(keys) <= {*group_keys, "trainer.remote_backend"}
    # verl's remote-backend trainer refuses more than one forwarder or rollout replica
    single = {"actor_rollout_ref.rollout.agent.num_workers=1", "trainer.n_gpus_per_node=1"}
    assert single <= set(argv)
    overrides += [
        f"remote_backend.cortex.base_url={reference_mock.root_url}",
        "remote_backend.cortex.long_poll_s=2",
        "remote_backend.cortex.progress=false",
    ]
    env = {
        **exports,
        "PYTHONPATH": str(STANDINS / "verl_repo"),
        "ARCTIC_CORTEX_PAT": reference_mock.token,
    }
    _run(
        [sys.executable, str(STANDINS / "verl_replay.py"), str(tmp_path), *overrides], env, tmp_path
    )
    report = json.loads((tmp_path / "report.json").read_text())
    assert len(report["rewards"]) == 2 and report["njt"]["exact"] is True


def test_readme_fits_its_readers():
    """About 200 lines, no machine paths or tracker references."""
    assert len(README.splitlines()) <= 220
    assert not re.search(r"/work/|/tmp/|#\d+\b|\bissue \d", README)


def test_sdk_snippets_run_against_the_mock_with_the_line_shown(live_mock, tmp_path):
    """The README's SDK lines, async then blocking, with the one line it shows for the mock
    (its port moved to this mock's) in place of the host line, train and sample."""
    code = block_after("sdk-python") + "\n" + block_after("sdk-blocking")
    hosts = [ln for ln in code.splitlines() if ln.lstrip().startswith('"host":')]
    assert len(hosts) == 1 and "ArcticRLClient(cfg)" in code and ".connect" not in hosts[0]
    mock_line = block_after("sdk-mock-line").rstrip("\n")
    assert '"base_url": "http://127.0.0.1:8765"' in mock_line
    port = live_mock.root_url.rsplit(":", 1)[1]
    script = tmp_path / "sdk.py"
    script.write_text(code.replace(hosts[0], mock_line.replace(":8765", f":{port}")))
    done = subprocess.run(
        [sys.executable, str(script)],
        env={**_BASE_ENV, "ARCTIC_CORTEX_PAT": live_mock.token},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("'global_steps': 1") == 2  # one job each
    assert done.stdout.count("'results': [") == 2


def test_layout_row_names_every_test_folder():
    row = next(line for line in README.splitlines() if line.startswith("| `tests/` |"))
    folders = [p.name for p in (ROOT / "tests").iterdir() if (p / "__init__.py").is_file()]
    assert folders and all(name in row for name in folders), folders


def test_chaos_transcript_is_a_whole_make_chaos_run():
    """docs/chaos-run.txt is what ``make chaos`` printed (stdout, defaults): its command,
    a row per iteration, and the script's own report of those numbers, verdict included."""
    from examples import chaos

    lines = CHAOS_RUN.read_text(encoding="utf-8").splitlines()
    recipe = re.search(r"^chaos:.*\n\t(.+)$", MAKEFILE, re.M)
    assert recipe
    assert lines[0] == expanded(recipe.group(1))
    seed, iterations = int(expanded("$(SEED)")), int(expanded("$(ITERATIONS)"))
    plan = re.fullmatch(
        rf"chaos run \(seed {seed}\): (\d+) kills, (\d+) faults, (\d+) driver kills, "
        rf"(\d+) iterations \.\.\.",
        lines[1],
    )
    assert plan and int(plan[4]) == iterations and lines[2] == "clean run, same seed ..."
    rows = [ln.split() for ln in lines[4:-3]]
    assert [int(r[0]) for r in rows] == list(range(1, iterations + 1))
    final = re.fullmatch(r"final weights: (.+) \(chaos\) / (.+) \(clean\)", lines[-3])
    hits = re.fullmatch(
        r"chaos: (\d+) SIGKILLs of the mock \((\d+) while .*, (\d+) network faults, "
        r"(\d+) SIGKILLs of the driver .*",
        lines[-2],
    )
    assert final and hits
    kills, while_running, faults, driver_kills = map(int, hits.groups())
    assert kills == int(plan[1]) and while_running <= kills and faults <= int(plan[2])
    assert driver_kills == int(plan[3])
    chaotic = chaos.Outcome(
        [(r[0], *r[1:4]) for r in rows], final[1], kills, while_running, faults, driver_kills
    )
    clean = chaos.Outcome([(r[0], *r[5:8]) for r in rows], final[2])
    assert lines[3:] == chaos.report(chaotic, clean).splitlines()
    assert lines[-1] == "metrics, samples and final weights: bit-identical"


def test_the_readmes_chaos_output_is_the_recorded_run():
    """Every line the README shows is the recorded run's, in order; it leaves out only
    the rows it says it leaves out. The reliability guide shows the whole run."""
    shown = block_after("chaos-output").splitlines()
    recorded = CHAOS_RUN.read_text(encoding="utf-8").splitlines()[1:]  # after the command
    left_out = re.search(r"\(rows (\d+)-(\d+) left out\)", README)
    assert left_out
    first, last = int(left_out[1]), int(left_out[2])
    kept = [
        line
        for line in recorded
        if not (re.match(r"\s+\d+\s", line) and first <= int(line.split()[0]) <= last)
    ]
    assert shown == kept
    assert block_after("chaos-run").splitlines() == recorded
