"""The fuzz hooks themselves: the strategy's labels are true, and the check bites.

A strategy that labelled a valid body "broken" (or the reverse), or a check that never
fails, would let the schemathesis run pass while proving nothing.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings

from arctic_rl import wire

from .hooks import (
    BINARY_MEDIA_TYPE,
    Body,
    broken_body,
    dssst1_bodies,
    dssst1_body_handling,
    expectation,
    valid_chunk,
    valid_frame,
)


def codec_verdict(data: bytes) -> Body:
    """What our own codec makes of a body, judged the way the server tells them apart:
    a frame whose ``op`` names a ``request_chunk`` is an envelope, anything else bare."""
    try:
        is_chunk = "request_chunk" in wire.read_metadata(data)
        if not is_chunk:
            wire.loads(data)
            return Body.FRAME
        assembler = wire.ChunkAssembler(kind="request_chunk")
        assembler.add(data)
        if assembler.complete:
            assembler.value()
    except wire.WireError:
        return Body.BROKEN
    return Body.CHUNK


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,  # the first draw imports torch
    suppress_health_check=[HealthCheck.too_slow],  # building frames is slower than ints
)
@given(dssst1_bodies())
def test_every_label_matches_the_codec(data: bytes) -> None:
    """Valid envelopes decode (or wait for more chunks), bare frames decode, broken fail."""
    label = expectation(data)
    assert label is not None
    assert codec_verdict(data) is label


def _exchange(
    body: bytes, path: str, status: int, code: str | None = None, query: Any = None
) -> tuple[Any, Any]:
    payload = b"{}" if code is None else f'{{"code": "{code}", "message": "m"}}'.encode()
    media = SimpleNamespace(media_type=BINARY_MEDIA_TYPE, definition={"x-dssst1-schema": "#/x"})
    if path.endswith("/generate-stream"):  # octet-stream, but JSON bytes (x-json-schema)
        media.definition = {"x-json-schema": "#/x"}
    operation = SimpleNamespace(path=path, body=[media])
    case = SimpleNamespace(body=body, operation=operation, query=query)
    response = SimpleNamespace(
        status_code=status, content=payload, request=SimpleNamespace(method="POST")
    )
    return case, response


def _draw(kind: Body) -> bytes:
    """The simplest body of ``kind`` the strategy makes (deterministic)."""
    strategy = {Body.CHUNK: valid_chunk, Body.FRAME: valid_frame, Body.BROKEN: broken_body}[kind]
    quick = settings(database=None, max_examples=1, phases=[Phase.generate])
    return bytes(find(strategy(), lambda _: True, settings=quick))


@pytest.mark.parametrize(
    ("kind", "path", "status", "code", "ok"),
    [
        (Body.BROKEN, "/{job_id}/forward-backward", 400, "truncated", True),
        (Body.BROKEN, "/{job_id}/generate", 202, None, False),
        (Body.BROKEN, "/{job_id}/generate", 400, "bad_request", False),
        (Body.BROKEN, "/{job_id}/generate", 404, "job_not_found", True),
        (Body.CHUNK, "/{job_id}/forward-backward", 202, None, True),
        (Body.CHUNK, "/{job_id}/forward-no-grad", 409, "chunk_group_conflict", True),
        (Body.CHUNK, "/{job_id}/forward-backward", 400, "bad_structure", False),
        (Body.CHUNK, "/{job_id}/generate", 500, "internal_error", False),
        (Body.FRAME, "/{job_id}/generate", 202, None, True),
        (Body.FRAME, "/{job_id}/forward-backward", 202, None, True),
        (Body.FRAME, "/{job_id}/forward-no-grad", 202, None, True),
        (Body.FRAME, "/{job_id}/forward-no-grad", 400, "bad_structure", False),
        (Body.FRAME, "/{job_id}/generate", 409, "job_not_running", True),
        (Body.CHUNK, "/{job_id}/generate-stream", 400, "bad_json", True),
    ],
)
def test_the_check_bites(kind: Body, path: str, status: int, code: str | None, ok: bool) -> None:
    """Right answers pass, wrong ones fail, answers before the body is read are neutral."""
    _judge(_exchange(_draw(kind), path, status, code), ok)


@pytest.mark.parametrize(
    ("query", "ok"), [(None, False), ({"wait_s": 0.0}, False), ({"wait_s": 0.5}, True)]
)
def test_a_frame_answers_200_only_when_its_submit_held_the_answer(
    query: dict[str, float] | None, ok: bool
) -> None:
    """The proposed wait_s: a bare frame whose request ended in time answers 200."""
    _judge(_exchange(_draw(Body.FRAME), "/{job_id}/generate", 200, None, query), ok)


def _judge(exchange: tuple[Any, Any], ok: bool) -> None:
    case, response = exchange
    if ok:
        assert dssst1_body_handling(None, response, case) in (True, None)
    else:
        with pytest.raises(AssertionError):
            dssst1_body_handling(None, response, case)
