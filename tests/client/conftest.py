"""Fixtures for client tests: a Cortex endpoint (the live mock over HTTP when available)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from arctic_rl import _client, _shim

from .fake_service import BASE_URL, TOKEN, FakeCortex

PAT_ENV = "ARCTIC_RL_TEST_PAT"


@dataclass
class Endpoint:
    base_url: str
    token: str
    live: Any = None
    fake: FakeCortex | None = None

    def cortex_block(self, **extra: Any) -> dict[str, Any]:
        return {"base_url": self.base_url, "pat_env": PAT_ENV, "long_poll_s": 2, **extra}


@pytest.fixture(autouse=True)
def _no_routing() -> Iterator[None]:
    """Integrations switch the factory's routing globally; each test starts without it."""
    yield
    _shim.route_on_prem_to_cortex(False)


@pytest.fixture
def endpoint(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Endpoint:
    """The mock server over real HTTP when its fixture exists, else the in-process fake."""
    try:
        live = request.getfixturevalue("live_mock")
    except pytest.FixtureLookupError:
        fake = FakeCortex()
        patched = functools.partial(_client.CortexTransport, httpx_transport=fake.transport())
        monkeypatch.setattr(_client, "CortexTransport", patched)
        monkeypatch.setenv(PAT_ENV, TOKEN)
        return Endpoint(BASE_URL, TOKEN, fake=fake)
    monkeypatch.setenv(PAT_ENV, live.token)
    return Endpoint(live.base_url, live.token, live=live)
