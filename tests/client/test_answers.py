"""The parts of the client that read answers, fed the contract's own shapes directly.

Error bodies in every shape the service uses, and the request tracker's reading of poll
answers (the state machine `wait_request` drives): no server double is needed to say what
a given answer means. The same paths run against the live mock in test_service.py.
"""

from __future__ import annotations

import base64
import hashlib

import httpx
import pytest
import torch
from cortex_gs_client.models import RequestStatus

from arctic_rl import (
    ArcticRLError,
    ChunkGroupError,
    ConflictError,
    InvalidRequestError,
    JobNotRunningError,
    NotFoundError,
    RequestFailedError,
    wire,
)
from arctic_rl._error_answers import error_from_response
from arctic_rl._tracking import Finished, Next, RequestTracker
from arctic_rl._upload import _acceptance


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
            InvalidRequestError,
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


def _status(state: str, **fields: object) -> RequestStatus:
    return RequestStatus.from_dict({"request_id": "req-1", "status": state, **fields})


def _result_chunk_events(value: object, payload_bytes: int) -> list[dict[str, object]]:
    chunking = wire.Chunking.for_payload(payload_bytes, kind="result_chunk", bare_max_bytes=0)
    chunks = [chunk.data for chunk in wire.split_chunks(wire.dumps(value), chunking)]
    return [
        {
            "type": "result_chunk",
            "chunk_idx": idx,
            "total_chunks": len(chunks),
            "payload_b64": base64.b64encode(chunk).decode(),
            "payload_sha256": hashlib.sha256(chunk).hexdigest(),
        }
        for idx, chunk in enumerate(chunks)
    ]


def test_an_empty_next_cursor_in_flight_means_poll_later_from_the_same_place() -> None:
    tracker = RequestTracker("req-1")
    assert tracker.read(_status("running", next_cursor="")) is Next.POLL_LATER
    assert tracker.cursor is None and tracker.state == "running"


def test_queued_result_pages_are_read_at_once_and_assembled() -> None:
    value = {"logprobs": torch.arange(4096, dtype=torch.float32)}
    events = _result_chunk_events(value, payload_bytes=4 * 1024)
    assert len(events) > 2
    tracker = RequestTracker("req-1")
    first = tracker.read(_status("completed", events=events[:1], next_cursor="c-1"))
    assert first is Next.POLL_NOW and tracker.cursor == "c-1"
    again = tracker.read(_status("completed", events=events[:2], next_cursor="c-2"))
    assert again is Next.POLL_NOW  # a re-read page is not counted twice
    done = tracker.read(_status("completed", events=events[2:], next_cursor=""))
    assert isinstance(done, Finished)
    assert torch.equal(done.value["logprobs"], value["logprobs"])


def test_a_success_without_a_result_is_an_empty_result() -> None:
    assert RequestTracker("req-1").read(_status("succeeded")) == Finished({})


def test_result_pages_that_stop_short_are_a_clear_error() -> None:
    events = _result_chunk_events({"x": torch.zeros(4096)}, payload_bytes=4 * 1024)
    tracker = RequestTracker("req-1")
    with pytest.raises(ArcticRLError, match="without all its result chunks"):
        tracker.read(_status("completed", events=events[:1], next_cursor=""))


def test_a_corrupted_result_chunk_is_refused() -> None:
    event = _result_chunk_events({"x": torch.zeros(8)}, payload_bytes=4 * 1024)[0]
    event["payload_sha256"] = "0" * 64
    with pytest.raises(ArcticRLError) as info:
        RequestTracker("req-1").read(_status("completed", events=[event]))
    assert info.value.code == "hash_mismatch"


def test_a_failed_request_carries_its_error_string_and_code() -> None:
    status = _status("failed", error="learning_rate must be positive", error_code="bad_value")
    with pytest.raises(RequestFailedError) as info:
        RequestTracker("req-1").read(status)
    assert info.value.code == "bad_value"
    assert info.value.message == "request req-1 ended failed: learning_rate must be positive"


def test_an_acceptance_without_a_request_id_is_a_clear_error() -> None:
    with pytest.raises(ArcticRLError, match="forward_backward was accepted without a request_id"):
        _acceptance("forward_backward", httpx.Response(202, json={"job_id": "job-1"}))


def test_request_models_keep_unknown_keys_and_name_a_missing_field() -> None:
    from cortex_gs_client.models import LoadRequest, StepRequest

    from arctic_rl._request_models import request_model

    step = request_model(StepRequest, {"learning_rate": 1e-5, "future_knob": {"a": 1}})
    assert step.to_dict() == {"learning_rate": 1e-5, "future_knob": {"a": 1}}
    with pytest.raises(ArcticRLError, match="cannot build LoadRequest") as info:
        request_model(LoadRequest, {"source_job_id": "job-1"})
    assert info.value.code == "invalid_request"
