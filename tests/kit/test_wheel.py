"""The kit from a wheel: built from the sources, installed into a fresh venv outside the
checkout, its console script checks the mock to a report.

Offline: the wheel is built without build isolation (the project venv's setuptools), and
the fresh venv borrows the project venv's third-party packages through one ``.pth`` line
(a ``.pth`` inside that directory is not read, so the project's own editable install does
not leak in); the wheel's own files and its declared extras are what is under test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from wheels import PIP, build_wheel, make_venv, purelib

from devtools.live_mock import LiveMock

from .conftest import PAT_ENV, QUICK

OURS = {
    "arctic_rl",
    "arctic_rl_kit",
    "arctic_rl_mock",
    "cortex_gs_client",
    "cortex_gs_models",
    "cortex_gs_contract",
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def fresh_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = make_venv(tmp_path_factory.mktemp("venv") / "fresh", with_pip=False)
    python = venv / "bin" / "python"
    subprocess.run(
        [*PIP, "--python", python, "install", "--no-deps", "--no-index", wheel],
        check=True,
        timeout=300,
    )
    (purelib(venv) / "project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def test_the_wheel_holds_only_our_packages_and_declares_the_kit_extra(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(archive.read(metadata).decode())
    top = {n.split("/", 1)[0] for n in names if "/" in n and ".dist-info" not in n}
    top = {n for n in top if not n.endswith(".data")}
    assert top == OURS
    assert "cortex_gs_contract/cortex_gs.yaml" in names
    assert "cortex_gs_contract/cortex_gs.today.yaml" in names
    assert {"kit", "mock"} <= set(meta.get_all("Provides-Extra"))
    requires = [Requirement(r) for r in meta.get_all("Requires-Dist")]

    def extra(name: str) -> set[str]:
        return {r.name for r in requires if r.marker and r.marker.evaluate({"extra": name})}

    base = {r.name for r in requires if r.marker is None}
    assert extra("kit") - base >= {"schemathesis", "requests", "hypothesis"}
    assert extra("mock") - base >= {"fastapi", "uvicorn", "httptools"}


@pytest.mark.parametrize("view", ["today", "full"])
def test_the_installed_console_script_checks_the_mock_to_a_report(
    fresh_venv: Path,
    clean_mock: LiveMock,
    proposed_mock: LiveMock,
    kit_token: str,
    tmp_path: Path,
    view: str,
) -> None:
    """Today's view against the mock's default (today's service); the full contract against
    a mock serving the proposals."""
    mock = proposed_mock if view == "full" else clean_mock
    report_dir = tmp_path / "report"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env[PAT_ENV] = kit_token
    argv = ["--url", mock.base_url, "--pat-env", PAT_ENV, "--report-dir", str(report_dir)]
    if view == "full":
        argv.append("--with-proposals")
    done = subprocess.run(
        [fresh_venv / "bin" / "cortex-gs-contract-check", *argv, *QUICK],
        cwd=tmp_path,  # outside the checkout: nothing is found by accident
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = (report_dir / "report.md").read_text()
    assert "- result: **conforms**" in report
    installed = fresh_venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    contract = installed / "site-packages" / "cortex_gs_contract" / "cortex_gs.yaml"
    assert f"contract: `{contract}` ({view} view)" in report
