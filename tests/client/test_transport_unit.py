"""CortexTransport and AsyncArcticRLClient against the in-process fake: failure paths."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import stamina
import torch

from arctic_rl import (
    APIConnectionError,
    ArcticRLClientConfig,
    ArcticRLError,
    AsyncArcticRLClient,
    AuthenticationError,
    ChunkGroupError,
    ConflictError,
    JobNotRunningError,
    NotFoundError,
    RequestFailedError,
    ServiceUnavailableError,
    ValidationError,
    wire,
)
from arctic_rl._errors import error_from_response
from arctic_rl._transport import CortexTransport

from .fake_service import BASE_URL, TOKEN, FakeCortex, Fault


def _batch(rows: int = 2, cols: int = 8) -> dict[str, torch.Tensor]:
    ids = torch.arange(rows * cols).reshape(rows, cols)
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}


def _transport(fake: FakeCortex, **kwargs: object) -> CortexTransport:
    kwargs.setdefault("long_poll_s", 0.0)
    return CortexTransport(BASE_URL, TOKEN, httpx_transport=fake.transport(), **kwargs)


async def _client(fake: FakeCortex, **transport_kwargs: object) -> AsyncArcticRLClient:
    cfg = ArcticRLClientConfig(
        model_name="m", backend="cortex", sampling_gpus=1, cortex={"base_url": BASE_URL}
    )
    return await AsyncArcticRLClient.connect(
        cfg, transport=_transport(fake, **transport_kwargs), environ={}
    )


@pytest.fixture
def retry_waits():
    """The waits stamina chose, so tests can check Retry-After without timing anything."""
    waits: list[float] = []
    stamina.instrumentation.set_on_retry_hooks([lambda details: waits.append(details.wait_for)])
    yield waits
    stamina.instrumentation.set_on_retry_hooks(None)


async def test_headers_auth_and_idempotency_keys():
    fake = FakeCortex()
    client = await _client(fake)
    await client.step()
    create, step = fake.seen[0], next(r for r in fake.seen if r.url.path.endswith("/step"))
    for request in (create, step):
        assert request.headers["authorization"] == f"Bearer {TOKEN}"
        assert (
            request.headers["x-snowflake-authorization-token-type"] == "PROGRAMMATIC_ACCESS_TOKEN"
        )
        assert request.headers["idempotency-key"]
    assert client.sub_jobs == {"training": "job-1:training:0", "sampling": "job-1:sampling:0"}
    assert TOKEN not in repr(client)
    await client.aclose()


async def test_retry_after_is_honoured_and_call_runs_once(retry_waits):
    fake = FakeCortex(faults=[Fault("/step", 429, retry_after="0.2", code="rate_limited")])
    client = await _client(fake)
    result = await client.step()
    assert result == {"global_steps": 1, "last_lr": 1e-6}
    assert retry_waits == [0.2] and fake.executions["step"] == 1
    await client.aclose()


async def test_dropped_connection_on_create_retries_with_the_same_key(retry_waits):
    fake = FakeCortex(faults=[Fault("POST /", None)])
    fake.faults[0].match = "POST "  # only the create call goes to the bare prefix
    fake.faults[0].times = 1
    client = await _client(fake)
    keys = [
        r.headers.get("idempotency-key") for r in fake.seen if r.url.path.endswith("-training/")
    ]
    assert len(keys) == 2 and keys[0] == keys[1]
    assert fake.executions["create_job"] == 1 and len(retry_waits) == 1
    await client.aclose()


async def test_chunked_upload_small_chunks_and_result_chunk_events():
    fake = FakeCortex(result_chunk_bytes=70 * 1024)
    client = await _client(fake, chunk_bytes=80 * 1024)
    batch = _batch(64, 256)  # ~256 KiB of int64 per tensor -> several request chunks
    result = await client.fwd_bwd(batch, meta={"step": 1}, processing={"loss_fn": "verl_grpo"})
    uploads = [r for r in fake.seen if r.url.path.endswith("/forward-backward")]
    assert len(uploads) > 3
    assert torch.equal(result["post_process_outputs"]["logprobs"], torch.full((64, 256), -0.5))
    assert result["echo_meta"] == {"step": 1} and fake.executions["forward-backward"] == 1
    await client.aclose()


async def test_chunk_cut_mid_group_is_resent_and_runs_once(retry_waits):
    fake = FakeCortex(faults=[Fault("/forward-no-grad", None, times=1)])
    client = await _client(fake, chunk_bytes=80 * 1024)
    result = await client.fwd_no_grad(_batch(64, 256), reference_model=True)
    assert result["reference"] is True and fake.executions["forward-no-grad"] == 1
    assert len(retry_waits) == 1
    await client.aclose()


async def test_restart_required_replays_the_group_once():
    fake = FakeCortex()
    client = await _client(fake, chunk_bytes=80 * 1024)
    real = fake._binary
    dropped = {"done": False}

    def lose_group_after_first_chunk(job, route, data):
        answer = real(job, route, data)
        if not dropped["done"] and fake.groups:
            dropped["done"] = True
            fake.groups.clear()  # the server "forgets" the group, as after a restart
        return answer

    fake._binary = lose_group_after_first_chunk
    result = await client.fwd_bwd(_batch(64, 256), processing={"loss_fn": "x"})
    assert result["avg_loss"] == 0.25 and fake.executions["forward-backward"] == 1
    sent = [r for r in fake.seen if r.url.path.endswith("/forward-backward")]
    total = wire.read_chunk_descriptor(sent[0].content)["total_chunks"]
    assert total > 2 and len(sent) == 2 + total  # chunk 0, refused chunk 1, whole group again
    await client.aclose()


@pytest.mark.parametrize(
    ("legacy", "resent"),
    [(False, lambda total: [1, total - 1]), (True, range)],
    ids=["indexes named (proposed details): those, then the final one", "legacy body: all"],
)
async def test_missing_chunks_are_resent_then_the_final_one(legacy, resent):
    fake = FakeCortex(lose_chunks={1}, legacy_missing_chunks=legacy)
    client = await _client(fake, chunk_bytes=80 * 1024)
    result = await client.fwd_bwd(_batch(64, 256), processing={"loss_fn": "x"})
    assert result["avg_loss"] == 0.25 and fake.executions["forward-backward"] == 1
    sent = [r for r in fake.seen if r.url.path.endswith("/forward-backward")]
    indexes = [wire.read_chunk_descriptor(r.content)["chunk_idx"] for r in sent]
    total = wire.read_chunk_descriptor(sent[0].content)["total_chunks"]
    assert indexes == [*range(total), *resent(total)]
    await client.aclose()


async def test_generate_bare_frame_and_poll_cut(retry_waits):
    fake = FakeCortex(faults=[Fault("GET /job-1/requests", None, times=1)], polls_before_done=2)
    client = await _client(fake)
    result = await client.generate(["a", [1, 2]], {"max_tokens": 4})
    assert [r["text"] for r in result["results"]] == ["echo a", "echo [1, 2]"]
    assert fake.executions["generate"] == 1 and len(retry_waits) == 1
    await client.aclose()


async def test_errors_are_typed_and_never_hold_the_token():
    fake = FakeCortex(faults=[Fault("/step", 503, code="unavailable", times=99)])
    client = await _client(fake, max_retries=2)
    with pytest.raises(ServiceUnavailableError) as info:
        await client.step()
    assert info.value.request_id == "fake-rid" and TOKEN not in str(info.value)
    await client.aclose()

    bad = CortexTransport(BASE_URL, "wrong", httpx_transport=fake.transport())
    with pytest.raises(AuthenticationError):
        await bad.get_job("job-1")
    await bad.aclose()


async def test_connection_failure_after_retries_is_api_connection_error():
    fake = FakeCortex(faults=[Fault("GET", None, times=99)])
    transport = _transport(fake, max_retries=2)
    with pytest.raises(APIConnectionError) as info:
        await transport.get_job("job-1")
    assert isinstance(info.value.__cause__, httpx.TransportError)
    await transport.aclose()


async def test_delete_retried_after_a_lost_answer_is_not_an_error(retry_waits):
    fake = FakeCortex()
    fake.checkpoints.append({"checkpoint_id": "c1", "global_steps": 1})
    real = fake.handle

    def lose_first_delete_answer(request):
        response = real(request)
        if request.method == "DELETE" and not retry_waits:
            raise httpx.ReadError("answer lost", request=request)
        return response

    fake.handle = lose_first_delete_answer
    transport = _transport(fake)
    await transport.delete_checkpoint("job-1", "c1")
    assert fake.checkpoints == [] and len(retry_waits) == 1
    with pytest.raises(NotFoundError):  # without a retry, a 404 is still an error
        await transport.delete_checkpoint("job-1", "never-existed")
    await transport.aclose()


async def test_long_poll_read_timeout_outlasts_the_server_hold():
    # A server may hold a poll for wait_s; a read timeout shorter than that would cut every poll.
    fake = FakeCortex()
    client = await _client(fake, long_poll_s=5.0, read_timeout=1.0)
    await client.step()
    polls = [r for r in fake.seen if "/requests/" in r.url.path and "wait_s" in r.url.params]
    assert polls, "the client did not long-poll"
    for poll in polls:
        wait_s = float(poll.url.params["wait_s"])
        assert poll.extensions["timeout"]["read"] == pytest.approx(1.0 + wait_s)


@pytest.fixture
def poll_sleeps(monkeypatch):
    """The pauses the client takes between polls (recorded, not slept)."""
    sleeps: list[float] = []
    real_sleep = asyncio.sleep

    async def record(delay: float, *args: object) -> None:
        sleeps.append(delay)
        await real_sleep(0)

    monkeypatch.setattr("arctic_rl._transport.asyncio.sleep", record)
    return sleeps


async def test_an_empty_next_cursor_is_neither_the_end_nor_a_drain(poll_sleeps):
    # Today a running request answers next_cursor "": back off and poll again, no cursor.
    fake = FakeCortex(polls_before_done=3)
    client = await _client(fake)
    poll_sleeps.clear()  # the job's own wait
    assert await client.step() == {"global_steps": 1, "last_lr": 1e-6}
    polls = [r for r in fake.seen if "/requests/" in r.url.path]
    assert len(polls) == 4 and not any("cursor" in p.url.params for p in polls)
    assert poll_sleeps == [0.5, 0.625, 0.78125]
    await client.aclose()


async def test_failed_request_error_string_is_typed():
    fake = FakeCortex(failures={"step": "bad_value: learning_rate must be positive"})
    client = await _client(fake)
    with pytest.raises(RequestFailedError) as info:
        await client.step(learning_rate=-1.0)
    assert "learning_rate must be positive" in str(info.value) and info.value.code == "failed"
    await client.aclose()


async def test_cancel_answers_an_empty_200():
    fake = FakeCortex()
    client = await _client(fake)
    assert await client.transport.cancel_job("job-1") == {}
    assert (await client.cancel())["status"] == "JOB_STATE_CANCELLED"  # read back after
    assert fake.executions["cancel"] == 2
    await client.aclose()


async def test_retried_final_chunk_may_answer_a_new_request_id(retry_waits):
    # The final chunk ran but its answer was lost; the retry is a second record of the same
    # execution under a new request id, and the client polls that one.
    fake = FakeCortex(new_request_id_on_repeat=True)
    real = fake.handle
    answered: list[str] = []

    def lose_the_first_final_answer(request):
        response = real(request)
        if request.url.path.endswith("/forward-backward") and response.status_code == 202:
            answered.append(response.json()["request_id"])
            if len(answered) == 1:
                raise httpx.ReadError("answer lost", request=request)
        return response

    fake.handle = lose_the_first_final_answer
    client = await _client(fake)
    result = await client.fwd_bwd(_batch(), processing={"loss_fn": "x"})
    assert result["avg_loss"] == 0.25 and fake.executions["forward-backward"] == 1
    assert len(answered) == 2 and answered[0] != answered[1] and len(retry_waits) == 1
    polled = {r.url.path.rsplit("/", 1)[1] for r in fake.seen if "/requests/" in r.url.path}
    assert polled == {answered[1]}
    await client.aclose()


@pytest.mark.parametrize(
    ("status", "body", "cls", "code", "message"),
    [
        (409, {"message": "job is cancelled", "code": 409}, ConflictError, 409, "job is cancelled"),
        (
            409,
            {"message": "not running", "code": 409, "error_code": "job_not_running"},
            JobNotRunningError,
            "job_not_running",
            "not running",
        ),
        (
            422,
            {"detail": [{"loc": ["body", "x"], "msg": "Field required", "type": "missing"}]},
            ValidationError,
            None,
            "body.x: Field required",
        ),
        (404, {"detail": "Not Found"}, NotFoundError, None, "Not Found"),
        (
            409,
            {"chunk_group_id": "g-1", "message": "request chunk group is missing chunks"},
            ChunkGroupError,
            "chunk_group_missing_chunks",
            "request chunk group is missing chunks",
        ),
        (
            500,
            {
                "message": 'upstream [500] said {"code": "chunk_group_restart_required", '
                '"message": "restart group g-1 at chunk 0"}'
            },
            ChunkGroupError,
            "chunk_group_restart_required",
            "restart group g-1 at chunk 0",
        ),
        (
            409,
            '{"message": "chunk group g-2 conflicts", "code": "chunk_group_conflict"}',
            ChunkGroupError,
            "chunk_group_conflict",
            "chunk group g-2 conflicts",
        ),
    ],
    ids=[
        "integer code",
        "proposed string error_code",
        "FastAPI detail list",
        "FastAPI detail string",
        "legacy missing chunks",
        "gateway-wrapped in a message",
        "gateway-wrapped as the whole body",
    ],
)
def test_todays_error_shapes_are_typed(status, body, cls, code, message):
    err = error_from_response(status, body, {"x-snowflake-request-id": "rid-7"})
    assert type(err) is cls and err.status == status
    assert (err.code, err.message, err.request_id) == (code, message, "rid-7")


async def test_a_server_that_ignores_wait_s_is_polled_with_backoff(poll_sleeps):
    # wait_s is proposed: a server that answers at once gets the usual pauses, not a storm.
    fake = FakeCortex(polls_before_done=3)
    client = await _client(fake, long_poll_s=5.0)
    poll_sleeps.clear()
    assert (await client.step())["global_steps"] == 1
    polls = [r for r in fake.seen if "/requests/" in r.url.path]
    assert len(polls) == 4 and all("wait_s" in p.url.params for p in polls)
    assert poll_sleeps == [0.5, 0.625, 0.78125]
    await client.aclose()


async def test_a_server_that_refuses_wait_s_is_polled_without_it(poll_sleeps):
    fake = FakeCortex(polls_before_done=2, refuse_wait_s=True)
    client = await _client(fake, long_poll_s=5.0)
    assert (await client.step())["global_steps"] == 1
    polls = [r for r in fake.seen if "/requests/" in r.url.path]
    assert ["wait_s" in p.url.params for p in polls] == [True, False, False, False]
    await client.aclose()


async def test_an_acceptance_without_a_request_id_is_a_clear_error():
    fake = FakeCortex()
    real = fake.handle
    fake.handle = lambda r: httpx.Response(202) if r.url.path.endswith("/step") else real(r)
    client = await _client(fake)
    with pytest.raises(ArcticRLError, match="step was accepted without a request_id") as info:
        await client.step()
    assert info.value.code == "no_request_id"
    await client.aclose()


async def test_inline_operations_answer_at_once_others_are_polled():
    # A cancel-request acknowledgement names the request it cancelled: not a handle to poll.
    fake = FakeCortex()
    transport = _transport(fake)
    cancel = {"operation_type": "cancel-request", "payload": {"request_id": "req-9"}}
    ack = await transport.call_json("job-1", "operation", cancel)
    assert set(ack) == {"request_id", "job_id"}
    assert not [r for r in fake.seen if "/requests/" in r.url.path]
    sync = {"operation_type": "weight-sync", "payload": {"weight_format": "vllm"}}
    assert await transport.call_json("job-1", "operation", sync) == {"ok": "operation"}
    assert len([r for r in fake.seen if "/requests/" in r.url.path]) == 2
    await transport.aclose()
