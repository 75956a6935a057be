"""Fixtures of the reliability tests.

``mock``
    ``python -m arctic_rl_mock`` (canned backend) on a fixed port and its own state dir, not
    started yet (:class:`devtools.mock_process.MockProcess`: ``start``, ``stop``, ``kill``,
    restart on the same port and state); stopped at teardown.
``mock_service``
    ``"proposed"``: these tests hold the mock's own guarantees (exactly-once under the
    proposed ``Idempotency-Key``, budgets, ``n``, the forward without gradients, restarts
    and retention of what those write), so ``live_mock``, ``live_reference_mock`` and
    ``mock`` serve the contract's proposals.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.mock_process import MockProcess, stable_port


@pytest.fixture
def mock_service() -> str:
    return "proposed"


@pytest.fixture
def mock(tmp_path: Path, mock_service: str) -> Iterator[MockProcess]:
    server = MockProcess(tmp_path / "state", port=stable_port(), service=mock_service)
    try:
        yield server
    finally:
        server.stop()
