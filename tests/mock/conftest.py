"""The mock tests' HTTP helper over the shared live mock (tests/conftest.py).

``live_mock`` and ``api`` play today's service (the mock's default); the ``proposed_*``
fixtures start a mock with ``service="proposed"`` for the tests that exercise proposals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from devtools.live_mock import LiveMock, MockApi


@pytest.fixture
def api(live_mock: LiveMock) -> Iterator[MockApi]:
    client = MockApi(live_mock)
    yield client
    client.close()


@pytest.fixture
def proposed_mock(live_mock_factory: Callable[..., LiveMock]) -> LiveMock:
    """A canned mock serving the contract's proposals as well."""
    return live_mock_factory(service="proposed")


@pytest.fixture
def proposed_reference_mock(live_mock_factory: Callable[..., LiveMock]) -> LiveMock:
    """A reference-backend mock serving the contract's proposals as well."""
    return live_mock_factory("reference", service="proposed")


@pytest.fixture
def proposed_api(proposed_mock: LiveMock) -> Iterator[MockApi]:
    client = MockApi(proposed_mock)
    yield client
    client.close()
