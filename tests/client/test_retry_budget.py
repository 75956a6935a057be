"""One retry budget per client, whichever loop calls.

Once a client has reached the service, any later call, from any loop (here SkyRL's fresh
loop per call), rides out a restart for the full retry budget; a client that never
reached it gives up within the short first-contact budget, and its error says which of
the two it was.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from arctic_rl_mock.settings import Settings

from arctic_rl import APIConnectionError, ArcticRLClientConfig, create_arctic_rl_client
from arctic_rl._cortex import CortexService
from arctic_rl._http import CONNECTION_LOST_CODE, UNREACHABLE_CODE
from arctic_rl._options import ServiceOptions
from devtools.live_mock import LiveMock
from devtools.mock_process import MockProcess, stable_port

from .conftest import PAT_ENV
from .standins.call_patterns import run_as_skyrl

RESTART_AFTER_S = 8.0  # longer than the first-contact budget
PREFIX = Settings(state_dir=Path(".")).prefix


def _config(base_url: str) -> ArcticRLClientConfig:
    return ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        cortex={"base_url": base_url, "pat_env": PAT_ENV, "long_poll_s": 2},
    )


def test_a_call_in_skyrls_pattern_rides_out_a_restart_of_the_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGKILL the mock after a call; it comes back on the same state dir and port after
    8 s; the next call, on a fresh loop as every SkyRL call is, still succeeds."""
    mock = MockProcess(tmp_path / "state", port=stable_port(), service="proposed")
    mock.start()
    try:
        monkeypatch.setenv(PAT_ENV, mock.token)
        legacy = create_arctic_rl_client(_config(mock.base_url))

        async def trainer() -> tuple[Any, Any]:
            before = run_as_skyrl(legacy.step())
            mock.kill()
            restart = threading.Timer(RESTART_AFTER_S, mock.start)
            restart.start()
            try:
                after = run_as_skyrl(legacy.step())
            finally:
                restart.join()
            return before["global_steps"], after["global_steps"]

        assert asyncio.run(trainer()) == (1, 2)
        legacy.shutdown()
    finally:
        mock.stop()


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again: nothing listens there


def test_a_first_contact_with_no_service_is_an_unreachable_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(PAT_ENV, "any-token")
    with pytest.raises(APIConnectionError) as caught:
        create_arctic_rl_client(_config(f"http://127.0.0.1:{_unused_port()}{PREFIX}"))
    assert caught.value.code == UNREACHABLE_CODE
    assert "never answered this client" in caught.value.message


async def test_a_service_that_stops_answering_is_a_lost_connection(live_mock: LiveMock) -> None:
    service = CortexService(live_mock.base_url, live_mock.token, ServiceOptions(max_retries=2))
    try:
        await service.get_capacity()
        live_mock.stop()
        with pytest.raises(APIConnectionError) as caught:
            await service.get_capacity()
    finally:
        await service.aclose()
    assert caught.value.code == CONNECTION_LOST_CODE
