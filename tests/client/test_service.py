"""CortexService and the HTTP seam against the live mock, through the fault proxy.

One server double: the real mock over loopback. Failures come from `FaultProxy` in front
of it (cuts, lost answers, injected 429/503, swallowed chunks); what the client sent is
read from a recording transport under the seam, and what ran from the mock's own store.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
import stamina
from hardening.support import executed

from arctic_rl import (
    APIConnectionError,
    ArcticRLClientConfig,
    AsyncArcticRLClient,
    AuthenticationError,
    NotFoundError,
    ServiceUnavailableError,
    wire,
)
from arctic_rl._cortex import CortexService
from arctic_rl._options import ServiceOptions
from devtools.batches import CHUNK_BYTES, big_batch, train_tensors
from devtools.faults import Fault, FaultProxy
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV

PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
FWD = b"/forward-backward"


class Recorder(httpx.AsyncBaseTransport):
    """Real HTTP, with every request the seam hands down kept (retries included)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.sent: list[httpx.Request] = []
        self.bodies: list[bytes] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = b"".join([part async for part in request.stream])  # type: ignore[union-attr]
        self.sent.append(request)
        self.bodies.append(body)
        return await self.inner.handle_async_request(request)

    def uploads(self) -> list[int]:
        """The chunk index of each forward-backward body sent, in order."""
        return [
            _chunk_index(body)
            for request, body in zip(self.sent, self.bodies, strict=True)
            if request.url.path.endswith("/forward-backward")
        ]


Session = Callable[..., Any]


def _chunk_index(body: bytes) -> int:
    descriptor = wire.read_chunk(body).descriptor
    assert descriptor is not None, "forward-backward travels as a chunk envelope"
    return descriptor.chunk_idx


@pytest.fixture
def session(live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch) -> Session:
    """``async with session(*faults, **cortex) as (client, recorder)``: a client via a proxy."""
    monkeypatch.setenv(PAT_ENV, live_mock.token)

    @asynccontextmanager
    async def open_session(
        *faults: Fault, served_idempotency: bool = False, **options: Any
    ) -> AsyncIterator[tuple[AsyncArcticRLClient, Recorder]]:
        async with FaultProxy(live_mock.port, *faults) as proxy:
            recorder = Recorder()
            settings = {
                "long_poll_s": 2.0,
                "chunk_bytes": CHUNK_BYTES,
                "max_retries": 3,
                "read_timeout": 30.0,
                **options,
            }
            service = CortexService(
                proxy.url(live_mock.base_url, live_mock.port),
                live_mock.token,
                ServiceOptions(**settings),
                served_idempotency=served_idempotency,
                httpx_transport=recorder,
            )
            config = ArcticRLClientConfig(
                backend="cortex",
                model_name="tiny-byte-lm",
                training_gpus=1,
                sampling_gpus=1,
                cortex={"base_url": live_mock.base_url, "pat_env": PAT_ENV},
            )
            client = await AsyncArcticRLClient.connect(config, service=service)
            try:
                yield client, recorder
            finally:
                await client.shutdown(cancel=True)

    return open_session


@pytest.fixture
def retry_waits() -> Any:
    """The waits stamina chose, so tests can check Retry-After without timing anything."""
    waits: list[float] = []
    stamina.instrumentation.set_on_retry_hooks([lambda details: waits.append(details.wait_for)])
    yield waits
    stamina.instrumentation.set_on_retry_hooks(None)


async def test_auth_headers_and_one_idempotency_key_per_logical_call(
    session: Session, live_mock: LiveMock, retry_waits: list[float]
) -> None:
    create = Fault(b"POST /api/v2/databases/RL_DB/schemas/PUBLIC/cortex-training/ ", "status")
    async with session(create) as (client, recorder):
        await client.step()
        await client.fwd_bwd(big_batch(), processing=PROCESSING)
    creates = [r for r in recorder.sent if r.method == "POST" and r.url.path.endswith("-training/")]
    steps = [r for r in recorder.sent if r.url.path.endswith("/step")]
    uploads = [r for r in recorder.sent if r.url.path.endswith("/forward-backward")]
    assert len(creates) == 2 and len(retry_waits) == 1  # the injected 503, then the retry
    assert creates[0].headers["idempotency-key"] == creates[1].headers["idempotency-key"]
    assert creates[0].headers["idempotency-key"] != steps[0].headers["idempotency-key"]
    for request in (*creates, *steps, *uploads):
        assert request.headers["authorization"] == f"Bearer {live_mock.token}"
        assert (
            request.headers["x-snowflake-authorization-token-type"] == "PROGRAMMATIC_ACCESS_TOKEN"
        )
    # A chunk's key is its chunk group id; each chunk's body length is announced.
    assert uploads and all("idempotency-key" not in r.headers for r in uploads)
    assert all(int(r.headers["content-length"]) > 0 for r in uploads)


async def test_retry_after_is_honoured_and_the_step_runs_once(
    session: Session, live_mock: LiveMock, retry_waits: list[float]
) -> None:
    async with session(Fault(b"/step", "status", status=429, retry_after=1)) as (client, _):
        assert (await client.step())["global_steps"] == 1
        assert retry_waits == [1.0]
        assert executed(live_mock.state_dir, str(client.job_id), "step") == 1


async def test_a_group_the_server_never_saw_start_is_replayed_once(
    session: Session, live_mock: LiveMock
) -> None:
    # Chunk 0 is acknowledged on the way and lost: chunk 1 gets restart_required.
    async with session(Fault(FWD, "swallow")) as (client, recorder):
        result = await client.fwd_bwd(big_batch(), processing=PROCESSING)
        assert result["avg_loss"] is not None
        assert executed(live_mock.state_dir, str(client.job_id), "forward_backward") == 1
    assert recorder.uploads() == [0, 1, 0, 1, 2]


async def test_a_lost_middle_chunk_is_resent_then_the_final_one(
    session: Session, live_mock: LiveMock
) -> None:
    # Chunk 1 is lost: the final chunk gets missing_chunks naming it.
    async with session(Fault(FWD, "swallow", skip=1)) as (client, recorder):
        result = await client.fwd_bwd(big_batch(), processing=PROCESSING)
        assert result["avg_loss"] is not None
        assert executed(live_mock.state_dir, str(client.job_id), "forward_backward") == 1
    assert recorder.uploads() == [0, 1, 2, 1, 2]


async def test_a_delete_whose_answer_is_lost_is_not_an_error(
    session: Session, retry_waits: list[float]
) -> None:
    async with session(Fault(b"DELETE ", "cut_response")) as (client, _):
        saved = await client.save_checkpoint()
        await client.delete_checkpoint(saved["checkpoint_id"])
        assert len(retry_waits) == 1
        assert saved["checkpoint_id"] not in {
            c["checkpoint_id"] for c in await client.list_checkpoints()
        }
        with pytest.raises(NotFoundError):  # without a retry, a 404 is still an error
            await client.delete_checkpoint("ckpt-never-existed")


async def test_long_polls_get_a_read_timeout_that_outlasts_the_hold(session: Session) -> None:
    async with session(read_timeout=1.0, long_poll_s=3.0) as (client, recorder):
        await client.step()
    polls = [r for r in recorder.sent if "wait_s" in r.url.params]
    assert polls, "the client did not long-poll"
    for poll in polls:
        held = float(poll.url.params["wait_s"])
        assert poll.extensions["timeout"]["read"] == pytest.approx(1.0 + held)


def _calls(recorder: Recorder) -> list[tuple[str, str]]:
    """(method, last path segment) of each request sent."""
    return [(r.method, r.url.path.rsplit("/", 1)[-1]) for r in recorder.sent]


async def test_a_training_iteration_takes_two_requests_with_submit_wait_s(
    session: Session,
) -> None:
    """Each submit carries the proposed wait_s; a finished request comes back with it."""
    async with session(chunk_bytes=wire.MAX_BODY_BYTES) as (client, recorder):
        recorder.sent.clear()
        trained = await client.fwd_bwd(train_tensors(), processing=PROCESSING)
        stepped = await client.step()
        sent = list(recorder.sent)  # before shutdown's cancel
    assert trained["avg_loss"] is not None
    assert stepped["global_steps"] == 1
    assert [(r.method, r.url.path.rsplit("/", 1)[-1]) for r in sent] == [
        ("POST", "forward-backward"),
        ("POST", "step"),
    ]
    assert [float(r.url.params["wait_s"]) for r in sent] == [2.0, 2.0]


async def test_a_request_that_outlasts_the_submit_wait_is_polled(
    session: Session, live_mock: LiveMock
) -> None:
    live_mock.restart(request_latency_s=1.0)
    async with session(long_poll_s=0.2) as (client, recorder):
        recorder.sent.clear()
        stepped = await client.step()
        calls = _calls(recorder)  # before shutdown's cancel
    assert stepped["global_steps"] == 1
    assert calls[0] == ("POST", "step")
    polls = calls[1:]
    assert polls and all(method == "GET" for method, _ in polls)


async def test_without_long_polls_submits_send_no_wait_s(session: Session) -> None:
    async with session(long_poll_s=0.0) as (client, recorder):
        recorder.sent.clear()
        await client.step()
        calls = _calls(recorder)  # before shutdown's cancel
    assert calls[0] == ("POST", "step")
    assert {method for method, _ in calls[1:]} == {"GET"}  # the 202's polls
    assert all("wait_s" not in r.url.params for r in recorder.sent)


@pytest.mark.parametrize("long_poll_s", [0.0, 0.3], ids=["short polls", "long polls"])
async def test_a_cut_poll_is_retried_and_generate_runs_once(
    session: Session, live_mock: LiveMock, retry_waits: list[float], long_poll_s: float
) -> None:
    # The request outlasts the submit's wait_s, so even with long polls it is polled.
    live_mock.restart(request_latency_s=2 * long_poll_s)
    cut = Fault(b"/requests/", "cut_response")
    async with session(cut, long_poll_s=long_poll_s) as (client, _):
        result = await client.generate(["a", [1, 2]], {"max_tokens": 4})
        assert len(result["results"]) == 2 and len(retry_waits) == 1
        assert executed(live_mock.state_dir, str(client.job_id), "generate") == 1


async def test_a_cut_held_submit_answer_is_retried_and_generate_runs_once(
    session: Session, live_mock: LiveMock, retry_waits: list[float]
) -> None:
    """The final chunk's 200 (finished within wait_s) is lost: the resend names the same
    request (its chunk group), which ran once. A chunked generate is resent only to a
    service that deduplicates it (the mock does; today's service is not counted on)."""
    fault = Fault(b"/generate", "cut_response")
    async with session(fault, served_idempotency=True) as (client, recorder):
        recorder.sent.clear()
        result = await client.generate(["a", [1, 2]], {"max_tokens": 4})
        assert len(result["results"]) == 2 and len(retry_waits) == 1
        assert executed(live_mock.state_dir, str(client.job_id), "generate") == 1
        assert _calls(recorder) == [("POST", "generate"), ("POST", "generate")]


async def test_errors_are_typed_and_never_hold_the_token(
    session: Session, live_mock: LiveMock
) -> None:
    async with session(Fault(b"/step", "status", times=99), max_retries=2) as (client, _):
        with pytest.raises(ServiceUnavailableError) as info:
            await client.step()
    assert str(info.value.request_id).startswith("proxy-")
    assert live_mock.token not in str(info.value)
    wrong = CortexService(live_mock.base_url, "not-the-token")
    with pytest.raises(AuthenticationError):
        await wrong.get_job("job-anything")
    await wrong.aclose()


async def test_an_unreachable_service_is_one_api_connection_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there
    service = CortexService(f"http://127.0.0.1:{port}/api", "t", ServiceOptions(max_retries=2))
    with pytest.raises(APIConnectionError) as info:
        await service.get_job("job-1")
    assert isinstance(info.value.__cause__, httpx.TransportError)
    await service.aclose()


async def test_inline_operations_answer_at_once_others_are_polled(session: Session) -> None:
    async with session() as (client, recorder):
        job_id = str(client.job_id)
        inline = await client.service.run_operation(job_id, _operation("reset-prefix-cache", {}))
        polled_before = len([r for r in recorder.sent if "/requests/" in r.url.path])
        assert polled_before == 0 and isinstance(inline, dict)
        target = client.sub_jobs["sampling"]
        synced = await client.service.run_operation(
            job_id, _operation("weight-sync", {"target_sub_job_ids": [target]})
        )
        assert isinstance(synced, dict)
        assert [r for r in recorder.sent if "/requests/" in r.url.path]


def _operation(kind: str, payload: dict[str, Any]) -> Any:
    from cortex_gs_client.models import OperationRequest

    return OperationRequest.from_dict({"operation_type": kind, "payload": payload})
