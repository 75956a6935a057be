"""Runs of the contract-check kit against live mocks, shared by the tests of a module.

Each run is one call of the kit's CLI entry (``arctic_rl_kit.cli.execute``) against a
mock on 127.0.0.1 -- a clean one, or one started with test hooks on and the test-only
departure switch (``CORTEX_GS_MOCK_DEPART``). The token is a fresh random string held
only in the environment variable the kit is told to read; everything each run prints,
logs and writes is kept so the tests can look for it.
"""

from __future__ import annotations

import contextlib
import io
import logging
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arctic_rl_kit.cli import execute, parse_args
from arctic_rl_kit.report import Report
from devtools.live_mock import LiveMock, MockApi, serving_in_process
from devtools.mock_hooks.departures import ENV as DEPART_ENV

PAT_ENV = "KIT_TEST_PAT"
# Small and fixed: a couple of examples per operation, one seed, no coverage phase (its
# hundreds of boundary cases belong on staging, not in the project's test run).
QUICK = [
    "--max-examples",
    "2",
    "--seed",
    "7",
    "--phases",
    "examples,fuzzing",
    "--model",
    "tiny-byte-lm",
]
DEPARTURES = "renamed-required-field,wrong-status,missing-401,failing-step"


@dataclass
class KitRun:
    """One run of the kit: exit status, report object, files and everything it said."""

    status: int
    report: Report
    report_dir: Path
    output: str

    def texts(self) -> dict[str, bytes]:
        """Every file the run wrote, by path, plus its output and logs."""
        files = {str(p): p.read_bytes() for p in self.report_dir.rglob("*") if p.is_file()}
        return {**files, "<output and logs>": self.output.encode()}


@pytest.fixture(scope="session")
def kit_token() -> str:
    return f"kit-secret-{secrets.token_hex(16)}"


@pytest.fixture(scope="session")
def token_env(kit_token: str) -> Iterator[str]:
    """The token in ``$KIT_TEST_PAT`` only (schemathesis reads it from there, too)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(PAT_ENV, kit_token)
        yield PAT_ENV


@pytest.fixture(scope="session")
def clean_mock(tmp_path_factory: pytest.TempPathFactory, kit_token: str) -> Iterator[LiveMock]:
    with serving_in_process(tmp_path_factory.mktemp("clean"), token=kit_token) as mock:
        yield mock


@pytest.fixture(scope="session")
def proposed_mock(tmp_path_factory: pytest.TempPathFactory, kit_token: str) -> Iterator[LiveMock]:
    """A mock serving the contract's proposals as well (the full contract)."""
    state_dir = tmp_path_factory.mktemp("proposed")
    with serving_in_process(state_dir, token=kit_token, service="proposed") as mock:
        yield mock


@pytest.fixture(scope="session")
def departing_mock(tmp_path_factory: pytest.TempPathFactory, kit_token: str) -> Iterator[LiveMock]:
    """A mock that departs on purpose (the switch is read when the app is built)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DEPART_ENV, DEPARTURES)
        state_dir = tmp_path_factory.mktemp("departing")
        with serving_in_process(state_dir, token=kit_token, test_hooks=True) as live:
            patch.delenv(DEPART_ENV)  # only this mock departs
            yield live


def run_kit(tmp: Path, url: str, *args: str) -> KitRun:
    """The kit's CLI entry in process, its stdout, stderr and logs captured."""
    report_dir = tmp / "report"
    output = io.StringIO()
    handler = logging.StreamHandler(output)
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            argv = ["--url", url, "--pat-env", PAT_ENV, "--report-dir", str(report_dir)]
            status, report = execute(parse_args([*argv, *QUICK, *args]))
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)
    assert report is not None, output.getvalue()
    return KitRun(status, report, report_dir, output.getvalue())


@pytest.fixture(scope="session")
def running_job(clean_mock: LiveMock) -> str:
    """A running job on the clean mock, made by the test (as a server engineer would)."""
    api = MockApi(clean_mock)
    try:
        return api.create_job()
    finally:
        api.close()


@pytest.fixture(scope="session")
def safe_run(
    tmp_path_factory: pytest.TempPathFactory, clean_mock: LiveMock, running_job: str, token_env: str
) -> KitRun:
    return run_kit(tmp_path_factory.mktemp("safe"), clean_mock.base_url, "--job", running_job)


@pytest.fixture(scope="session")
def proposed_job(proposed_mock: LiveMock) -> str:
    api = MockApi(proposed_mock)
    try:
        return api.create_job()
    finally:
        api.close()


@pytest.fixture(scope="session")
def proposals_run(
    tmp_path_factory: pytest.TempPathFactory,
    proposed_mock: LiveMock,
    proposed_job: str,
    token_env: str,
) -> KitRun:
    """Safe mode over the full contract (today plus proposals), on a mock serving them."""
    tmp = tmp_path_factory.mktemp("proposals")
    return run_kit(tmp, proposed_mock.base_url, "--job", proposed_job, "--with-proposals")


@pytest.fixture(scope="session")
def full_run(
    tmp_path_factory: pytest.TempPathFactory, clean_mock: LiveMock, safe_run: KitRun, token_env: str
) -> KitRun:
    """After the safe run, so that run sees the mock exactly as the test left it."""
    return run_kit(tmp_path_factory.mktemp("full"), clean_mock.base_url, "--mode", "full")


@pytest.fixture(scope="session")
def departing_safe_run(
    tmp_path_factory: pytest.TempPathFactory, departing_mock: LiveMock, token_env: str
) -> KitRun:
    return run_kit(tmp_path_factory.mktemp("departing-safe"), departing_mock.base_url)


@pytest.fixture(scope="session")
def departing_full_run(
    tmp_path_factory: pytest.TempPathFactory, departing_mock: LiveMock, token_env: str
) -> KitRun:
    return run_kit(
        tmp_path_factory.mktemp("departing-full"), departing_mock.base_url, "--mode", "full"
    )
