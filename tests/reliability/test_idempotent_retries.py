"""generate and log-probs run once when their answer is lost after the mock accepted them.

The client retries a call whose answer never came; what makes that retry safe is the
call's idempotency identity: generate travels as a (single-chunk) chunk group whose id
is the key, log-probs carries an ``Idempotency-Key``. The answer is cut by
:class:`devtools.faults.FaultProxy` after the mock did the work; "once" is counted in the
mock's own store (its request rows).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from arctic_rl_mock.backends.canned import CannedBackend
from arctic_rl_mock.services.mock_service import MockService
from arctic_rl_mock.settings import Settings
from arctic_rl_mock.store import Store
from hardening.support import TRAINING_JOB, executed

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient
from devtools.faults import Fault, FaultProxy
from devtools.live_mock import LiveMock

PAT_ENV = "ARCTIC_RL_RETRY_TEST_PAT"
PROMPTS = ["2 + 2 =", "The capital of France is"]
COMPLETIONS = [" 4", " Paris"]
SAME_KEY = {"Idempotency-Key": "one-logical-call"}
CONCURRENT_CALLS = 8


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
            "service": "proposed",  # the mock serves the proposed Idempotency-Key
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
    result = await client.log_probs(PROMPTS, COMPLETIONS, top_k=1)
    assert len(result["logprobs"]) == len(PROMPTS)


# operation (the store's request kind) -> (the fault's marker: its route, with or without a
# query string; the call is the first request on it), the call
CALLS: dict[str, tuple[bytes, Callable[[AsyncArcticRLClient], Awaitable[None]]]] = {
    "generate": (b"/generate", _generate),
    "log_probs": (b"/log-probs", _log_probs),
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


async def _running_job(http: httpx.AsyncClient) -> str:
    created = await http.post("/", json=TRAINING_JOB)
    assert created.status_code == 200, created.text
    job_id = str(created.json()["job_id"])
    for _ in range(600):
        if (await http.get(f"/{job_id}")).json()["status"] == "running":
            return job_id
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} never ran")


async def test_concurrent_log_probs_under_one_key_run_once(live_mock: LiveMock) -> None:
    """Copies of one log-probs call sent at once under one Idempotency-Key all answer the
    same request, and the mock ran it once."""
    body = {"prompts": PROMPTS, "completions": COMPLETIONS}
    async with httpx.AsyncClient(
        base_url=live_mock.base_url, headers=live_mock.headers(), timeout=30
    ) as http:
        job_id = await _running_job(http)
        calls = (
            http.post(f"/{job_id}/log-probs", json=body, headers=SAME_KEY)
            for _ in range(CONCURRENT_CALLS)
        )
        answers = await asyncio.gather(*calls)
    assert [a.status_code for a in answers] == [202] * CONCURRENT_CALLS, answers[0].text
    assert len({a.json()["request_id"] for a in answers}) == 1
    assert executed(live_mock.state_dir, job_id, "log_probs") == 1


async def test_a_key_in_use_holds_back_only_its_own_calls(tmp_path: Path) -> None:
    """While a call under one key is still running (awaiting), a second call under that
    key waits and then answers the first one's record without running; a call under
    another key runs meanwhile (a lock per key, not one for the whole mock)."""
    settings = Settings(state_dir=tmp_path, service="proposed")  # the proposed Idempotency-Key
    service = MockService(settings, CannedBackend, Store(tmp_path))
    started, release = asyncio.Event(), asyncio.Event()
    runs: list[str] = []

    async def held() -> tuple[int, Any]:
        runs.append("held")
        started.set()
        await release.wait()
        return 200, {"answer": "held"}

    async def other() -> tuple[int, Any]:
        runs.append("other")
        release.set()
        return 200, {"answer": "other"}

    first = asyncio.create_task(service.idempotent("caller", "key-1", {}, held))
    await started.wait()
    repeat = asyncio.create_task(service.idempotent("caller", "key-1", {}, held))
    alongside = await asyncio.wait_for(service.idempotent("caller", "key-2", {}, other), 10)
    assert alongside == (200, {"answer": "other"})
    assert await first == await repeat == (200, {"answer": "held"})
    assert runs == ["held", "other"]
    service.store.close()
