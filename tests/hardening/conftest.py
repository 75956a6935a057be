"""Fixtures for the hardening tests: an authenticated client and a running job."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from devtools.live_mock import LiveMock, serving_in_process

from .support import RunningJob, start_job

MODULE_TOKEN = "hardening-pat-5e2d"


@pytest.fixture
def mock_http(live_mock: LiveMock) -> Iterator[httpx.Client]:
    """An authenticated httpx client on the live mock's contract prefix."""
    with httpx.Client(base_url=live_mock.base_url, headers=live_mock.headers(), timeout=30) as http:
        yield http


@pytest.fixture
def running_job(live_mock: LiveMock, mock_http: httpx.Client) -> RunningJob:
    """A freshly created training+sampling job, already running."""
    return RunningJob(live_mock, mock_http, start_job(mock_http))


@pytest.fixture(scope="module")
def module_service() -> str:
    """Which service `module_job`'s mock plays: today's; a module of proposal tests
    overrides this with ``"proposed"`` (as it overrides `mock_service`)."""
    return "today"


@pytest.fixture(scope="module")
def module_job(
    tmp_path_factory: pytest.TempPathFactory, module_service: str
) -> Iterator[RunningJob]:
    """One mock and running job shared by a module's read-mostly tests (saves restarts)."""
    state_dir = tmp_path_factory.mktemp("mock-state")
    with (
        serving_in_process(state_dir, token=MODULE_TOKEN, service=module_service) as mock,
        httpx.Client(base_url=mock.base_url, headers=mock.headers(), timeout=30) as http,
    ):
        yield RunningJob(mock, http, start_job(http))
