"""Shared fixtures: a live mock Cortex GS on 127.0.0.1 for any test that needs a server.

Fixtures
--------
``mock_token``
    The PAT the mock accepts (``"test-pat-0123"``).
``auth_headers``
    ``{"Authorization": "Bearer <token>", "X-Snowflake-Authorization-Token-Type":
    "PROGRAMMATIC_ACCESS_TOKEN"}`` for ``mock_token``.
``live_mock_factory``
    ``live_mock_factory(backend="canned", **settings) -> LiveMock``: starts a mock with
    its own temp state dir; any ``arctic_rl_mock.settings.Settings`` field may be overridden
    (``transition_delay_s``, ``inline_result_bytes``, ``result_chunk_bytes``,
    ``max_body_bytes``, ``auth``, ``database``, ...). Every mock started is stopped at
    teardown. Startup takes well under a second.
``live_mock``
    A canned-backend mock. ``.base_url`` is the full contract prefix
    (``http://127.0.0.1:PORT/api/v2/databases/RL_DB/schemas/PUBLIC/cortex-training``),
    ``.token``, ``.state_dir``, ``.headers(**extra)``, ``.restart()`` (same port and state
    dir, fresh process state), ``.stop()``.
``live_reference_mock``
    The same with the reference (tiny torch LM) backend.

The harness itself is ``devtools.live_mock`` (``LiveMock``, ``serving_in_process``,
``auth_headers``), importable outside pytest too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from arctic_rl_mock.settings import Settings

from devtools.live_mock import LiveMock
from devtools.live_mock import auth_headers as _auth_headers

MOCK_TOKEN = "test-pat-0123"


@pytest.fixture
def mock_token() -> str:
    """The PAT every live mock from these fixtures accepts."""
    return MOCK_TOKEN


@pytest.fixture
def auth_headers(mock_token: str) -> dict[str, str]:
    """Headers authenticating as ``mock_token``."""
    return _auth_headers(mock_token)


@pytest.fixture
def live_mock_factory(
    tmp_path_factory: pytest.TempPathFactory, mock_token: str
) -> Iterator[Callable[..., LiveMock]]:
    """Start mocks on free ports with fresh state dirs; all stopped at teardown."""
    started: list[LiveMock] = []

    def start(backend: str = "canned", **settings: Any) -> LiveMock:
        state_dir: Path = settings.pop("state_dir", None) or tmp_path_factory.mktemp("mock-state")
        settings.setdefault("token", mock_token)
        mock = LiveMock(Settings(state_dir=state_dir, backend=backend, **settings)).start()
        started.append(mock)
        return mock

    yield start
    for mock in started:
        mock.stop()


@pytest.fixture
def mock_service() -> str:
    """Which service `live_mock` and `live_reference_mock` play: today's, the mock's
    default. A folder whose tests exercise the contract's proposals overrides this
    fixture with ``"proposed"``."""
    return "today"


@pytest.fixture
def live_mock(live_mock_factory: Callable[..., LiveMock], mock_service: str) -> LiveMock:
    """A running canned-backend mock."""
    return live_mock_factory("canned", service=mock_service)


@pytest.fixture
def live_reference_mock(live_mock_factory: Callable[..., LiveMock], mock_service: str) -> LiveMock:
    """A running reference-backend mock (tiny torch LM that really trains)."""
    return live_mock_factory("reference", service=mock_service)
