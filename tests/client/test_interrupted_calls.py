"""No call applied twice: a call interrupted after its submit left, then made again, runs once.

Each test lets the submit reach the mock through the fault proxy, which holds back the
answer (the work is done or under way on the service), and interrupts the caller there, as
the frameworks' users do: Ctrl-C in a blocking call, a cancelled task, an event loop dropped
mid-call (SkyRL's pattern: a fresh loop per call). The same call made again on that client
is answered by the interrupted one: one optimizer step, one forward-backward.
"""

from __future__ import annotations

import asyncio
import signal
import threading

import pytest
from hardening.support import executed

from arctic_rl import ArcticRLClient, AsyncArcticRLClient
from devtools.batches import train_tensors
from devtools.faults import Fault
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV
from .held_answers import config, forwarded, proxy_thread, wait_for

PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
# How long the proxy holds the answer to the interrupted submit: well past the interruption
# (the call is cut, so nothing waits it out) ...
HELD_S = 10.0
# ... or, where a dropped loop leaves the call running and the next one joins it, a while.
JOINED_S = 2.0


@pytest.fixture
def mock(live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch) -> LiveMock:
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    return live_mock


def test_ctrl_c_in_a_blocking_step_then_step_again_steps_once(mock: LiveMock) -> None:
    held = Fault(b"/step", "stall", seconds=HELD_S)
    with proxy_thread(mock, held) as proxy:
        client = ArcticRLClient(config(mock, proxy))
        try:

            def interrupt() -> None:
                wait_for(forwarded(proxy, b"/step"))
                # Ctrl-C, delivered to the main thread (where Python raises KeyboardInterrupt)
                signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

            threading.Thread(target=interrupt, daemon=True).start()
            with pytest.raises(KeyboardInterrupt):
                client.step()
            assert client.step()["global_steps"] == 1
            assert client.step()["global_steps"] == 2  # a delivered call is not repeated
            assert executed(mock.state_dir, str(client.job_id), "step") == 2
        finally:
            client.shutdown(cancel=True)


async def test_an_async_step_cancelled_after_its_submit_left_runs_once(mock: LiveMock) -> None:
    held = Fault(b"/step", "stall", seconds=HELD_S)
    with proxy_thread(mock, held) as proxy:
        client = await AsyncArcticRLClient.connect(config(mock, proxy))
        try:
            first = asyncio.ensure_future(client.step())
            await asyncio.to_thread(wait_for, forwarded(proxy, b"/step"))
            first.cancel()
            with pytest.raises(asyncio.CancelledError):
                await first
            assert (await client.step())["global_steps"] == 1
            assert executed(mock.state_dir, str(client.job_id), "step") == 1
        finally:
            await client.shutdown(cancel=True)


def test_a_fwd_bwd_whose_loop_was_dropped_accumulates_once(mock: LiveMock) -> None:
    held = Fault(b"/forward-backward", "stall", seconds=JOINED_S)
    with proxy_thread(mock, held) as proxy:
        client = ArcticRLClient(config(mock, proxy))
        try:
            batch = train_tensors()
            dropped = asyncio.new_event_loop()  # SkyRL: a fresh loop per call, never closed
            call = dropped.create_task(client.aio.fwd_bwd(batch, processing=PROCESSING))
            until_sent = asyncio.to_thread(wait_for, forwarded(proxy, b"/forward-backward"))
            dropped.run_until_complete(until_sent)
            assert not call.done()  # the loop is left with the call in flight, never run again

            again = asyncio.new_event_loop().run_until_complete(
                client.aio.fwd_bwd(batch, processing=PROCESSING)
            )
            assert again["avg_loss"] is not None
            assert executed(mock.state_dir, str(client.job_id), "forward_backward") == 1
            assert client.step()["global_steps"] == 1
        finally:
            client.shutdown(cancel=True)
            call.cancel()  # only to leave no task behind the test
            dropped.run_until_complete(asyncio.gather(call, return_exceptions=True))
            dropped.close()


async def test_identical_calls_in_flight_at_once_stay_two_calls(mock: LiveMock) -> None:
    with proxy_thread(mock) as proxy:
        client = await AsyncArcticRLClient.connect(config(mock, proxy))
        try:
            both = await asyncio.gather(client.step(), client.step())
            assert sorted(answer["global_steps"] for answer in both) == [1, 2]
        finally:
            await client.shutdown(cancel=True)
