"""A call cut by its client's own close raises `ClientClosedError` (an `ArcticRLError`, which
a framework's ``except Exception`` catches), never a bare cancellation; nothing is retried
once closing began, and the cut call made again is answered by it, not run twice."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from arctic_rl import ArcticRLClient, ArcticRLError, AsyncArcticRLClient, ClientClosedError
from devtools.faults import Fault
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV
from .held_answers import WAIT_S, config, forwarded, proxy_thread, wait_for

# The step's answer is held past the close.
HELD_S = 5.0


@pytest.fixture
def mock(live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch) -> LiveMock:
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    return live_mock


async def test_an_async_call_cut_by_aclose_raises_client_closed(mock: LiveMock) -> None:
    with proxy_thread(mock, Fault(b"/step", "stall", seconds=HELD_S)) as proxy:
        client = await AsyncArcticRLClient.connect(config(mock, proxy))
        call = asyncio.ensure_future(client.step())
        await asyncio.to_thread(wait_for, forwarded(proxy, b"/step"))
        await client.aclose()
        with pytest.raises(ClientClosedError) as closed:
            await call
        assert isinstance(closed.value, ArcticRLError) and closed.value.code == "client_closed"
        try:  # the client opens again; the cut step, made again, is answered, not rerun
            assert (await client.step())["global_steps"] == 1
        finally:
            await client.shutdown(cancel=True)


def test_a_blocking_call_cut_by_shutdown_from_another_thread_is_typed_and_not_retried(
    mock: LiveMock, caplog: pytest.LogCaptureFixture
) -> None:
    with proxy_thread(mock, Fault(b"/step", "stall", seconds=HELD_S)) as proxy:
        client = ArcticRLClient(config(mock, proxy))
        raised: list[BaseException] = []

        def step() -> None:
            try:
                client.step()
            except BaseException as exc:
                raised.append(exc)

        caller = threading.Thread(target=step)
        caller.start()
        wait_for(forwarded(proxy, b"/step"))
        with caplog.at_level(logging.INFO):
            client.shutdown(cancel=False)
            caller.join(WAIT_S)
        assert not caller.is_alive()
        assert len(raised) == 1 and isinstance(raised[0], ClientClosedError), raised
        retries = [r.getMessage() for r in caplog.records if "retry" in r.getMessage()]
        assert retries == []
