"""Fixtures for client tests: a Cortex endpoint (the live mock over HTTP)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from arctic_rl import _shim

PAT_ENV = "ARCTIC_RL_TEST_PAT"


@dataclass
class Endpoint:
    base_url: str
    token: str
    live: Any = None

    def cortex_block(self, **extra: Any) -> dict[str, Any]:
        return {"base_url": self.base_url, "pat_env": PAT_ENV, "long_poll_s": 2, **extra}


@pytest.fixture(autouse=True)
def _no_routing() -> Iterator[None]:
    """Integrations switch the factory's routing globally; each test starts without it."""
    yield
    _shim.route_on_prem_to_cortex(False)


@pytest.fixture
def mock_service() -> str:
    """These tests were written against the contract's proposals; today's service (the
    mock's default) has its own: test_today_service.py and the replays in
    test_integrations.py."""
    return "proposed"


@pytest.fixture
def endpoint(live_mock: Any, monkeypatch: pytest.MonkeyPatch) -> Endpoint:
    """The mock server over real HTTP (canned backend), its token in the named env var."""
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    return Endpoint(live_mock.base_url, live_mock.token, live=live_mock)
