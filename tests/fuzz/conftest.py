"""Every fuzz test gets a fresh in-process mock behind the schema's swappable app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import APP


@pytest.fixture(autouse=True)
def fresh_mock_app(tmp_path: Path) -> Iterator[None]:
    """A new mock app and state dir per test; schemathesis ends its lifespan afterwards."""
    APP.install_fresh_mock(tmp_path)
    yield
    APP.current = None
