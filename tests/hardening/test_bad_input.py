"""Hostile input gets the documented 4xx, and a GET afterwards shows the job unchanged.

Each test snapshots the job (as served, plus the store's requests, chunk groups, chunks
and idempotency records) before the bad request and compares after: a rejected request
must leave no trace -- no half-stored chunk, no request row, no state change.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fuzz.frames import chunk_of, golden_bad_frames, lying_chunk

from arctic_rl import wire
from devtools.live_mock import LiveMock

from .support import RunningJob, start_job

BINARY_ROUTES = ("forward-backward", "forward-no-grad", "generate")
OCTET = {"Content-Type": "application/octet-stream"}
JSON = {"Content-Type": "application/json"}
GENERATE = {"prompts": ["hi"], "sampling_params": {"max_tokens": 2}, "strict": False}
CODEC_CODES = frozenset(wire.ERROR_CODES)
SMALL_CAP = 64 * 1024
SLICE = wire.CHUNK_HEADROOM + 64  # max_bytes giving 64-byte chunk payloads
BAD_FRAMES = golden_bad_frames()


ERROR_FIELDS = {
    "message",
    "code",
    "error_code",
    "request_id",
    "details",
    "detail",
    "chunk_group_id",
}


@pytest.fixture(scope="module")
def module_service() -> str:
    """These routes include the proposals (``/forward-no-grad``, ``/log-probs``): the
    mock serves the full contract."""
    return "proposed"


def expect_error(response: httpx.Response, status: int, *codes: str) -> dict[str, Any]:
    """Today's error body with ``status``: an integer ``code`` (the status; a string for the
    chunk-group 409s), FastAPI's ``detail`` on 422s, and the proposed string ``error_code``
    naming one of ``codes``."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) <= ERROR_FIELDS, body
    assert body["message"] and body["error_code"] in codes, body
    expected_code = body["error_code"] if body["error_code"].startswith("chunk_group_") else status
    assert body["code"] == expected_code, body
    if status == 422:
        assert body["detail"] and all(set(d) == {"loc", "msg", "type"} for d in body["detail"])
    return dict(body)


def unchanged(job: RunningJob, send: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run ``send(*args, **kwargs)`` between two snapshots of the job; require them equal."""
    before = job.snapshot()
    result = send(*args, **kwargs)
    assert job.snapshot() == before
    return result


def test_every_golden_bad_vector_is_present() -> None:
    """Guard: the parametrization below covers all eight refusals of the golden set."""
    assert len(BAD_FRAMES) == 8, sorted(BAD_FRAMES)


@pytest.mark.parametrize("name", sorted(BAD_FRAMES))
@pytest.mark.parametrize("route", BINARY_ROUTES)
def test_golden_bad_frames_get_400(module_job: RunningJob, route: str, name: str) -> None:
    """Pickles, torch.save zips, cut frames, bad headers: 400 with the codec's code."""
    url = module_job.url(f"/{route}")
    response = unchanged(
        module_job, module_job.http.post, url, content=BAD_FRAMES[name], headers=OCTET
    )
    expect_error(response, 400, *CODEC_CODES)


LIES = {
    "index past the end": ({"chunk_idx": 5, "total_chunks": 2}, "bad_structure"),
    "index equal to count": ({"chunk_idx": 2, "total_chunks": 2}, "bad_structure"),
    "negative index": ({"chunk_idx": -1}, "bad_structure"),
    "zero chunks": ({"total_chunks": 0}, "bad_structure"),
    "frame hash mismatch": ({"frame_sha256": "0" * 64}, "hash_mismatch"),
    "frame size mismatch": ({"frame_size_bytes": 10**6}, "size_mismatch"),
}


@pytest.mark.parametrize("lie", sorted(LIES))
@pytest.mark.parametrize("route", BINARY_ROUTES)
def test_lying_chunk_descriptors_get_400(module_job: RunningJob, route: str, lie: str) -> None:
    """Out-of-range indices and wrong hashes or sizes are refused before anything is kept."""
    override, code = LIES[lie]
    body = lying_chunk(wire.dumps(GENERATE), chunk_group_id=f"lie-{route}-{len(lie)}", **override)
    response = unchanged(
        module_job, module_job.http.post, module_job.url(f"/{route}"), content=body
    )
    expect_error(response, 400, code)


@pytest.mark.parametrize("cut", [1, 7, 8, 64, -1])
def test_truncated_chunk_gets_400(module_job: RunningJob, cut: int) -> None:
    """A chunk frame cut anywhere (a complete HTTP body) is a codec refusal."""
    chunk = chunk_of(GENERATE, group_id=f"cut{cut}")[0]
    body = chunk[:cut]
    url = module_job.url("/forward-backward")
    expect_error(unchanged(module_job, module_job.http.post, url, content=body), 400, *CODEC_CODES)


def test_hash_disagreeing_with_the_group_is_409(module_job: RunningJob) -> None:
    """Chunk 1 claiming another frame than chunk 0 breaks the group's binding: 409."""
    first = chunk_of(GENERATE, group_id="mixed", max_bytes=SLICE)
    other = chunk_of({**GENERATE, "strict": True}, group_id="mixed", max_bytes=SLICE)
    http, route = module_job.http, module_job.url("/forward-backward")
    assert http.post(route, content=first[0]).status_code == 200
    response = unchanged(module_job, http.post, route, content=other[1])
    expect_error(response, 409, "chunk_group_conflict")


def test_chunk_without_its_group_start_is_409(module_job: RunningJob) -> None:
    """A group the server never saw must start at chunk 0."""
    chunks = chunk_of(GENERATE, group_id="late", max_bytes=SLICE)
    url = module_job.url("/forward-backward")
    response = unchanged(module_job, module_job.http.post, url, content=chunks[1])
    expect_error(response, 409, "chunk_group_restart_required")


@pytest.fixture
def capped_job(live_mock_factory: Callable[..., LiveMock]) -> Iterator[RunningJob]:
    """A running job on a mock whose body cap is 64 KiB (cheap to exceed), serving the
    full contract like `module_job`'s."""
    mock = live_mock_factory("canned", max_body_bytes=SMALL_CAP, service="proposed")
    with httpx.Client(base_url=mock.base_url, headers=mock.headers(), timeout=30) as http:
        yield RunningJob(mock, http, start_job(http))


def _stream(total: int, piece: int = 16 * 1024) -> Iterator[bytes]:
    """A body sent in pieces without Content-Length (chunked transfer encoding)."""
    for start in range(0, total, piece):
        yield b"\0" * min(piece, total - start)


@pytest.mark.parametrize("route", [*BINARY_ROUTES, "step", "save", "log-probs"])
def test_bodies_over_the_cap_get_413_while_streaming(capped_job: RunningJob, route: str) -> None:
    """Streamed (no Content-Length) and declared bodies over the cap: 413, nothing kept."""
    url = capped_job.url(f"/{route}")
    post = capped_job.http.post
    streamed = unchanged(capped_job, post, url, content=_stream(4 * SMALL_CAP))
    expect_error(streamed, 413, "payload_too_large")
    big_json = b"{" + b" " * SMALL_CAP + b"}"
    declared = unchanged(capped_job, post, url, content=big_json, headers=JSON)
    expect_error(declared, 413, "payload_too_large")


def test_oversized_json_create_is_413(capped_job: RunningJob) -> None:
    """A JSON body over the cap never creates a job."""
    body = {"sub_job_configs": [], "experiment_name": "x" * (2 * SMALL_CAP)}
    jobs_before = capped_job.http.get("/").json()
    expect_error(
        unchanged(capped_job, capped_job.http.post, "/", json=body), 413, "payload_too_large"
    )
    assert capped_job.http.get("/").json() == jobs_before


def test_default_cap_refuses_a_61_mib_stream(module_job: RunningJob) -> None:
    """The real 60 MiB cap, on a body streamed past it."""
    size = wire.MAX_BODY_BYTES + 1024 * 1024
    url = module_job.url("/forward-backward")
    response = unchanged(module_job, module_job.http.post, url, content=_stream(size, 1 << 20))
    expect_error(response, 413, "payload_too_large")


def _raw_post(mock: LiveMock, path: str, body: bytes, *, declared: int) -> None:
    """POST over a raw socket, declaring ``declared`` bytes and then hanging up early."""
    head = (
        f"POST {mock.settings.prefix}{path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "".join(f"{k}: {v}\r\n" for k, v in mock.headers().items())
        + f"Content-Type: application/octet-stream\r\nContent-Length: {declared}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", mock.port), timeout=10) as sock:
        sock.sendall(head.encode() + body)
        time.sleep(0.05)  # let the server read what there is before the hang-up


@pytest.mark.parametrize("fraction", [0.0, 0.5, 0.99])
def test_truncated_upload_stream_changes_nothing(
    module_job: RunningJob, fraction: float, caplog: pytest.LogCaptureFixture
) -> None:
    """The client vanishes mid-body: no chunk stored, no request, no error logged (it is
    the client's doing, not a crash), and the mock serves on."""
    chunk = chunk_of(GENERATE, group_id=f"hangup{int(fraction * 100)}")[0]
    part = chunk[: int(len(chunk) * fraction)]

    def send() -> None:
        _raw_post(module_job.mock, module_job.url("/forward-backward"), part, declared=len(chunk))
        # the snapshot after this must follow the server's noticing the hang-up
        deadline = time.monotonic() + 10
        while not any("went away" in r.getMessage() for r in caplog.records):
            assert time.monotonic() < deadline, [r.getMessage() for r in caplog.records]
            time.sleep(0.01)

    with caplog.at_level(logging.INFO, logger="arctic_rl_mock"):
        unchanged(module_job, send)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    ok = module_job.http.post(module_job.url("/forward-backward"), content=chunk)
    assert ok.status_code == 202, ok.text


@pytest.mark.parametrize(
    ("route", "content", "content_type", "status", "code"),
    [
        ("step", b"{}", "text/plain", 422, "validation_error"),
        (
            "step",
            b"learning_rate=0.1",
            "application/x-www-form-urlencoded",
            422,
            "validation_error",
        ),
        ("save", wire.dumps(GENERATE), "application/octet-stream", 422, "validation_error"),
        ("log-probs", b'{"prompts": ["a"], "top_k": 1', "application/json", 400, "bad_json"),
        ("generate", b'{"prompts": ["a"]}', "application/json", 400, None),
        ("forward-backward", b"prompts=a", "application/x-www-form-urlencoded", 400, None),
    ],
)
def test_wrong_content_types_are_refused(
    module_job: RunningJob,
    route: str,
    content: bytes,
    content_type: str,
    status: int,
    code: str | None,
) -> None:
    """JSON routes take only JSON; binary routes parse every body as a frame."""
    url, headers = module_job.url(f"/{route}"), {"Content-Type": content_type}
    response = unchanged(module_job, module_job.http.post, url, content=content, headers=headers)
    expect_error(response, status, *([code] if code else CODEC_CODES))


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [200, 500, 5000, 100_000])
def test_deeply_nested_json_is_a_client_error(module_job: RunningJob, depth: int) -> None:
    """Nesting in a free-form field (an operation payload) is refused, never a 500."""
    body = f'{{"operation_type": "tail-logs", "payload": {{"x": {_nested(depth)}}}}}'
    url = module_job.url("/operation")
    if depth <= 200:  # sane depth: the inline operation just runs
        response = module_job.http.post(url, content=body.encode(), headers=JSON)
        assert response.status_code == 200, response.text
        return
    response = unchanged(module_job, module_job.http.post, url, content=body.encode(), headers=JSON)
    expect_error(response, response.status_code, "bad_json", "validation_error")
    assert response.status_code in (400, 422), response.text


@pytest.mark.parametrize(
    ("value", "accepted"),
    [(1, True), (1.0, True), (1.5, False), (True, False), ("1", False), (None, False)],
)
def test_integer_policy(module_job: RunningJob, value: Any, accepted: bool) -> None:
    """The contract's integer rule: 1 and 1.0 are the integer 1; 1.5, true, "1" are 422."""
    body = {"prompts": ["a"], "top_k": value}
    if accepted:
        response = module_job.http.post(module_job.url("/log-probs"), json=body)
        assert response.status_code == 202, response.text
        return
    response = unchanged(module_job, module_job.http.post, module_job.url("/log-probs"), json=body)
    expect_error(response, 422, "validation_error")


def test_query_integers_are_decimal_digits(module_job: RunningJob) -> None:
    """``max_events`` must be written as digits; 1.5 or text is a 422, not a 404. Above
    512 it is capped, not refused (as today's service does)."""
    url = module_job.url("/requests/req-unknown")
    for bad in ("1.5", "ten", "true", "0"):
        response = module_job.http.get(url, params={"max_events": bad})
        expect_error(response, 422, "validation_error")
    for good in ("16", "513"):
        response = module_job.http.get(url, params={"max_events": good})
        expect_error(response, 404, "request_not_found")


STREAM_BODIES = {
    "not UTF-8": (b"\xff\xfe", 400, "bad_json"),
    "not JSON": (b"{prompts", 400, "bad_json"),
    "a JSON list": (b'["hi"]', 422, "validation_error"),
    "no prompts": (b'{"prompts": []}', 422, "validation_error"),
    "a prompt of floats": (b'{"prompts": [[1.5]]}', 422, "validation_error"),
    "params for fewer prompts": (
        b'{"prompts": ["a", "b"], "sampling_params": [{"max_tokens": 1}]}',
        422,
        "validation_error",
    ),
    "routing keys for more prompts": (
        b'{"prompts": ["a"], "routing_key": ["k1", "k2"]}',
        422,
        "validation_error",
    ),
}


@pytest.mark.parametrize("label", sorted(STREAM_BODIES))
def test_generate_stream_refuses_bad_bodies_and_keeps_nothing(
    module_job: RunningJob, label: str
) -> None:
    """generate-stream's body is UTF-8 JSON of a GenerateRequest: anything else is a 4xx
    before a request exists."""
    content, status, code = STREAM_BODIES[label]
    url = module_job.url("/generate-stream")
    response = unchanged(module_job, module_job.http.post, url, content=content, headers=OCTET)
    expect_error(response, status, code)


def test_export_and_experiment_run_of_unknown_things_are_404(module_job: RunningJob) -> None:
    http = module_job.http
    expect_error(http.get("/job-unknown/experiment-run"), 404, "job_not_found")
    missing = unchanged(module_job, http.post, module_job.url("/checkpoints/nope:export"))
    expect_error(missing, 404, "checkpoint_not_found")
    forged = httpx.get(f"{module_job.mock.root_url}/_mock/checkpoint-files/e30.00")
    expect_error(forged, 404, "not_found")
