"""Errors that say what to fix: no server listening ends after the short first-contact
budget with one line naming the URL and the settings; each retry is one readable log line;
a 404 names the URL and the settings that built it; a 401 names the token's variable."""

from __future__ import annotations

import asyncio
import logging
import re
import socket

import pytest

from arctic_rl import APIConnectionError, ArcticRLError, AsyncArcticRLClient
from arctic_rl._http import FIRST_CONTACT_RETRY_S
from devtools.live_mock import LiveMock, serving_in_process

from .reliability_support import PAT_ENV, config

TOKEN = "pat-remedy-4f1e9a7c-never-shown"


@pytest.fixture
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PAT_ENV, TOKEN)


@pytest.fixture
def mock(tmp_path) -> LiveMock:
    with serving_in_process(tmp_path, token=TOKEN) as live:
        yield live


def connect(base_url: str, **settings: object) -> None:
    async def run() -> None:
        client = await AsyncArcticRLClient.connect(config(base_url, **settings))
        await client.shutdown(cancel=False)

    asyncio.run(run())


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.usefixtures("_token")
def test_no_server_listening_ends_after_the_first_contact_budget_with_one_line(caplog):
    url = f"http://127.0.0.1:{closed_port()}/api/v2/databases/DB/schemas/S/cortex-training"
    with caplog.at_level(logging.INFO), pytest.raises(APIConnectionError) as caught:
        connect(url, max_retries=10, retry_timeout=600)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"cannot reach {url}: ConnectError")
    assert "The URL comes from cortex.base_url, or cortex.host" in message
    retries = [r for r in caplog.records if r.name == "stamina"]
    assert retries, "each retry is logged"
    waits = [float(m.group(1)) for r in retries if (m := re.search(r"in (\S+) s$", r.getMessage()))]
    assert len(waits) == len(retries)  # every retry line is the readable one
    # Scheduled waits (stamina's own numbers): the budget is spent before the last one is
    # scheduled, and all of them stay under 10 s, not the configured 600 s.
    assert sum(waits[:-1]) <= FIRST_CONTACT_RETRY_S
    assert sum(waits) < 10
    for record in retries:
        # The client's first call asks which service it is (the capabilities route).
        assert record.getMessage().startswith(
            f"arctic_rl: GET {url}/capabilities failed (ConnectError("
        )
        assert "ConnectError" in record.getMessage()


@pytest.mark.usefixtures("_token")
def test_a_wrong_path_names_the_url_and_the_settings_that_built_it(mock: LiveMock):
    url = mock.root_url + "/api/v2/databases/DB/schemas/S/not-the-endpoint"
    with pytest.raises(ArcticRLError) as caught:
        connect(url)
    message = str(caught.value)
    assert caught.value.status == 404
    assert f"{url}/" in message
    assert "that URL is built from cortex.base_url, or cortex.host with cortex.database" in message


def test_a_refused_token_names_its_variable(mock: LiveMock, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(PAT_ENV, "pat-wrong-value-0000")
    with pytest.raises(ArcticRLError) as caught:
        connect(mock.base_url)
    message = str(caught.value)
    assert caught.value.status == 401
    assert f"refused the token in ${PAT_ENV} (cortex.pat_env)" in message
    assert "pat-wrong-value-0000" not in message
