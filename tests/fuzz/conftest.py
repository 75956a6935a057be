"""Every fuzz test gets a fresh in-process mock behind the schema's swappable app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import APPS


@pytest.fixture(autouse=True)
def fresh_mock_app(tmp_path: Path) -> Iterator[None]:
    """A new mock app and state dir per test and view; schemathesis ends their lifespans
    afterwards."""
    for app in APPS.values():
        app.install_fresh_mock(tmp_path)
    yield
    for app in APPS.values():
        app.current = None
