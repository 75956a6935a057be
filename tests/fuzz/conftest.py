"""Every fuzz test gets a fresh in-process mock behind the schema's swappable app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mock_server.app import create_app
from mock_server.settings import Settings

from .harness import APP, FUZZ_TOKEN


@pytest.fixture(autouse=True)
def fresh_mock_app(tmp_path: Path) -> Iterator[None]:
    """A new mock app and state dir per test; schemathesis ends its lifespan afterwards."""
    APP.current = create_app(Settings(state_dir=tmp_path / "mock-state", token=FUZZ_TOKEN))
    yield
    APP.current = None
