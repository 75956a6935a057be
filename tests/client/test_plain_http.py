"""A user who names the local mock as ``host`` (so the client speaks TLS to a plain-HTTP
server) is told at once to write ``base_url: http://...``; other TLS failures stay
connection failures."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from arctic_rl import APIConnectionError, ArcticRLClient, ArcticRLClientConfig, ConfigError
from arctic_rl._plain_http import PLAIN_HTTP_CODE
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV


def _config(host: str, **cortex: object) -> ArcticRLClientConfig:
    settings = {"host": host, "database": "RL_DB", "schema": "PUBLIC", "pat_env": PAT_ENV}
    return ArcticRLClientConfig(backend="cortex", model_name="m", cortex={**settings, **cortex})


def test_the_mock_named_as_host_says_to_write_base_url_without_retrying(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    host = urlsplit(live_mock.root_url).netloc  # what a user writes: 127.0.0.1:PORT
    caplog.set_level(logging.INFO)
    with pytest.raises(ConfigError) as raised:
        ArcticRLClient(_config(host))
    assert raised.value.code == PLAIN_HTTP_CODE
    assert f"base_url: http://{host} " in str(raised.value)
    assert not [r for r in caplog.records if "retry" in r.getMessage()]  # failed at once


@pytest.fixture
def closes_at_once() -> Iterator[str]:
    """A server that accepts and closes every connection: neither TLS nor HTTP."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    listener.close()
    thread.join(timeout=10)


def test_another_failed_handshake_stays_a_connection_failure(
    closes_at_once: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PAT_ENV, "any")
    with pytest.raises(APIConnectionError) as raised:
        ArcticRLClient(_config(closes_at_once, max_retries=1))
    assert "base_url: http://" not in str(raised.value)
