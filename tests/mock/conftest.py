"""The mock tests' HTTP helper over the shared live mock (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arctic_rl_mock.testsupport.harness import LiveMock, MockApi


@pytest.fixture
def api(live_mock: LiveMock) -> Iterator[MockApi]:
    client = MockApi(live_mock)
    yield client
    client.close()
