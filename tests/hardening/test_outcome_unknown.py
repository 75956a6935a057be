"""A call today's service would run twice is sent again only when it provably never ran.

Today's service takes ``Idempotency-Key`` as a proposal: a ``step`` whose answer was lost
and that is sent again steps twice. So a lost answer to such a call is an
`OutcomeUnknownError` saying how to check, after exactly one request; a refusal that
says the call did not run (503, 429) is retried; reads and chunk uploads (whose chunk
group id is the service's own key) are retried; and a service that serves the proposal
(``served_idempotency``) gets the call again with the same key.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from arctic_rl import ArcticRLClientConfig, ArcticRLError, AsyncArcticRLClient
from devtools.faults import Fault, FaultProxy
from devtools.live_mock import LiveMock

from .hostile import HostileServer, Request, transport_client, whole
from .support import executed

OK = b'{"request_id": "r-1"}'
PAT_ENV = "ARCTIC_RL_OUTCOME_TEST_PAT"


async def lost_first(request: Request, writer: asyncio.StreamWriter, n: int) -> bool:
    """The first request is read whole, then the connection drops unanswered."""
    if n == 1:
        return False
    writer.write(whole(OK))
    return True


async def refused_first(request: Request, writer: asyncio.StreamWriter, n: int) -> bool:
    """The first request is refused unrun (503 with Retry-After: 0)."""
    if n == 1:
        writer.write(whole(b'{"message": "busy"}', "503 Service Unavailable", "retry-after: 0"))
    else:
        writer.write(whole(OK))
    return True


async def send(http: httpx.AsyncClient, method: str, path: str, **kwargs: object) -> httpx.Response:
    try:
        return await http.request(method, path, **kwargs)
    finally:
        await http.aclose()


async def test_a_step_whose_answer_was_lost_is_not_sent_again() -> None:
    async with HostileServer(lost_first) as server:
        http = transport_client(server.base_url)
        with pytest.raises(ArcticRLError) as caught:
            await send(http, "POST", "/j/step", json={"learning_rate": 0.1})
    assert len(server.requests) == 1
    err = caught.value
    assert type(err).__name__ == "OutcomeUnknownError"
    assert err.code == "outcome_unknown"
    assert "may or may not have run" in str(err)
    assert "global_steps" in str(err)
    assert err.idempotency_key == server.requests[0].headers["idempotency-key"]


@pytest.mark.parametrize(
    ("route", "how"),
    [("/j/save", "list_checkpoints"), ("/", "list_jobs"), ("/j/operation", "get_job")],
    ids=["save", "create", "operation"],
)
async def test_each_lost_call_says_how_to_check(route: str, how: str) -> None:
    async with HostileServer(lost_first) as server:
        http = transport_client(server.base_url)
        with pytest.raises(ArcticRLError) as caught:
            await send(http, "POST", route, json={})
    assert len(server.requests) == 1
    assert type(caught.value).__name__ == "OutcomeUnknownError"
    assert how in str(caught.value)


async def test_a_chunked_generate_whose_answer_was_lost_is_not_sent_again() -> None:
    """Only forward-backward's chunk group is deduplicated by today's service."""
    chunk = {"content": b"chunk", "headers": {"content-type": "application/octet-stream"}}
    async with HostileServer(lost_first) as server:
        http = transport_client(server.base_url)
        with pytest.raises(ArcticRLError) as caught:
            await send(http, "POST", "/j/generate", **chunk)
    assert len(server.requests) == 1
    assert type(caught.value).__name__ == "OutcomeUnknownError"


async def test_a_service_that_serves_idempotency_gets_the_call_again_with_its_key() -> None:
    async with HostileServer(lost_first) as server:
        http = transport_client(server.base_url, served_idempotency=True)
        answer = await send(http, "POST", "/j/step", json={})
    assert answer.json() == {"request_id": "r-1"}
    keys = [r.headers["idempotency-key"] for r in server.requests]
    assert len(keys) == 2 and keys[0] == keys[1]


async def test_a_step_refused_unrun_is_sent_again() -> None:
    async with HostileServer(refused_first) as server:
        http = transport_client(server.base_url)
        answer = await send(http, "POST", "/j/step", json={})
    assert answer.json() == {"request_id": "r-1"} and len(server.requests) == 2


@pytest.mark.parametrize(
    ("method", "route", "kwargs"),
    [
        ("GET", "/j", {}),
        ("POST", "/j:cancel", {}),
        (
            "POST",
            "/j/forward-backward",
            {"content": b"chunk", "headers": {"content-type": "application/octet-stream"}},
        ),
    ],
    ids=["read", "cancel", "chunk"],
)
async def test_calls_the_service_runs_once_are_sent_again(
    method: str, route: str, kwargs: dict[str, object]
) -> None:
    async with HostileServer(lost_first) as server:
        http = transport_client(server.base_url)
        answer = await send(http, method, route, **kwargs)
    assert answer.json() == {"request_id": "r-1"} and len(server.requests) == 2


async def test_through_the_sdk_a_lost_step_ran_once_and_says_so(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mock runs the step; the path in between drops its answer: one step, one error;
    the next step's global_steps shows the lost one ran (the check the error suggests)."""
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    async with FaultProxy(live_mock.port, Fault(b"/step", "cut_response")) as proxy:
        url = proxy.url(live_mock.base_url, live_mock.port)
        config = ArcticRLClientConfig(
            backend="cortex",
            model_name="tiny-byte-lm",
            training_gpus=1,
            cortex={"base_url": url, "pat_env": PAT_ENV, "long_poll_s": 1, "progress": False},
        )
        client = await AsyncArcticRLClient.connect(config)
        try:
            with pytest.raises(ArcticRLError) as caught:
                await client.step()
            steps_sent = sum(b"/step" in line for line in proxy.forwarded)
            after = await client.step()
            job_id = str(client.job_id)
        finally:
            await client.shutdown(cancel=False)
    assert type(caught.value).__name__ == "OutcomeUnknownError"
    assert "global_steps" in str(caught.value)
    assert steps_sent == 1
    assert after["global_steps"] == 2
    assert executed(live_mock.state_dir, job_id, "step") == 2
