"""Fixtures of the reliability tests.

``mock``
    ``python -m arctic_rl_mock`` (canned backend) on a fixed port and its own state dir, not
    started yet (:class:`reliability.test_crash_points.MockProcess`: ``start``, ``stop``,
    restart on the same port and state); stopped at teardown.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.mock_process import MockProcess, stable_port


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[MockProcess]:
    server = MockProcess(tmp_path / "state", stable_port())
    try:
        yield server
    finally:
        server.stop()
