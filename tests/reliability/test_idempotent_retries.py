"""generate and log-probs run once when their answer is lost after the mock accepted them.

The client retries a call whose answer never came; what makes that retry safe is the
call's idempotency identity: generate travels as a (single-chunk) chunk group whose id
is the key, log-probs carries an ``Idempotency-Key``. The answer is cut by
:class:`faults.proxy.FaultProxy` after the mock did the work; "once" is counted in the
mock's own store (its request rows).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
from faults.proxy import Fault, FaultProxy
from hardening.support import executed

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient
from mock_server.testing import LiveMock

PAT_ENV = "ARCTIC_RL_RETRY_TEST_PAT"
PROMPTS = ["2 + 2 =", "The capital of France is"]


@asynccontextmanager
async def client_via(
    live_mock: LiveMock, fault: Fault, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[AsyncArcticRLClient]:
    """A client whose calls pass through a proxy that applies ``fault``."""
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    async with FaultProxy(live_mock.port, fault) as proxy:
        settings = {
            "base_url": proxy.url(live_mock.base_url, live_mock.port),
            "pat_env": PAT_ENV,
            "long_poll_s": 2,
            "progress": False,
        }
        config = ArcticRLClientConfig(
            backend="cortex", model_name="tiny-byte-lm", training_gpus=1, cortex=settings
        )
        client = await AsyncArcticRLClient.connect(config)
        try:
            yield client
        finally:
            await client.shutdown(cancel=False)
        await proxy.idle()
    assert fault.hits == 1, "the fault never fired"


async def _generate(client: AsyncArcticRLClient) -> None:
    result = await client.generate(PROMPTS, {"max_tokens": 4})
    assert len(result["results"]) == len(PROMPTS)


async def _log_probs(client: AsyncArcticRLClient) -> None:
    result = await client.log_probs(PROMPTS, [" 4", " Paris"], top_k=1)
    assert len(result["logprobs"]) == len(PROMPTS)


# operation (the store's request kind) -> (its request line's end, the call)
CALLS: dict[str, tuple[bytes, Callable[[AsyncArcticRLClient], Awaitable[None]]]] = {
    "generate": (b"/generate HTTP/1.1", _generate),
    "log_probs": (b"/log-probs HTTP/1.1", _log_probs),
}
# Where the answer is cut: none of it arrives, or it stops inside the status line's head.
CUT_AT = {"answer lost": 0, "answer cut mid-head": 25}


@pytest.mark.parametrize("cut", list(CUT_AT))
@pytest.mark.parametrize("operation", list(CALLS))
async def test_a_retry_after_a_lost_answer_runs_once(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch, operation: str, cut: str
) -> None:
    marker, call = CALLS[operation]
    fault = Fault(marker, "cut_response", at=CUT_AT[cut])
    async with client_via(live_mock, fault, monkeypatch) as client:
        await call(client)
        job_id = client.job_id
    assert executed(live_mock.state_dir, job_id, operation) == 1
