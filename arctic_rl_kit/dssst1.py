"""DSSST1 bodies for schemathesis: a strategy of real frames and envelopes, and the check
that holds a server to what the contract promises for each.

Shared by the contract-check kit and the project's fuzz tests (tests/fuzz). Random bytes
never get past a server's frame parser, so octet-stream bodies come from a strategy that
builds real DSSST1 frames and chunk envelopes with ``arctic_rl.wire`` -- plus deliberately
broken ones. Every body drawn is remembered with what the contract promises for it, and
the ``dssst1_body_handling`` check holds the server to that promise. Importing this
module registers the strategy (for ``application/octet-stream``) and the check.
"""

from __future__ import annotations

import enum
import hashlib
import json
import struct
import threading
from pathlib import Path
from typing import Any

import schemathesis
import torch
from hypothesis import strategies as st

from arctic_rl import wire

BINARY_MEDIA_TYPE = "application/octet-stream"
# The contract's 400 codes: bad_json plus the codec's refusals.
BAD_REQUEST_CODES = frozenset({"bad_json", *wire.ERROR_CODES})
REPO_ROOT = Path(__file__).resolve().parents[1]


class Body(enum.Enum):
    """What the contract promises for a body, whichever binary route it reaches."""

    CHUNK = "a valid request_chunk envelope"  # 200/202, or a 409 chunk-group rule
    FRAME = "a valid bare frame"  # 202 (200 if held by wait_s): every DSSST1 route takes one
    BROKEN = "a broken frame or envelope"  # always 400 with a codec error code


_lock = threading.Lock()
_drawn: dict[str, Body] = {}


def remember(data: bytes, kind: Body) -> bytes:
    """Record what the contract promises for ``data`` (the check looks it up)."""
    with _lock:
        _drawn[hashlib.sha256(data).hexdigest()] = kind
    return data


def expectation(data: bytes) -> Body | None:
    """The promise recorded for a body this module generated (None: not ours)."""
    with _lock:
        return _drawn.get(hashlib.sha256(data).hexdigest())


# ----------------------------------------------------------------------- hostile bytes
def golden_dir() -> Path:
    """The golden DSSST1 vectors: ``../shared`` next to the repo (CI and here), else the
    copy the codec tests keep in the repo."""
    shared = REPO_ROOT.parent / "shared" / "golden" / "dssst1"
    return shared if shared.is_dir() else REPO_ROOT / "tests" / "wire" / "golden"


def golden_bad_frames() -> dict[str, bytes]:
    """Every golden ``bad_*`` vector by name (none when the package runs outside the repo)."""
    return {p.stem: p.read_bytes() for p in sorted(golden_dir().glob("bad_*.bin"))}


def lying_chunk(frame: bytes, **override: Any) -> bytes:
    """A single-chunk envelope of ``frame`` whose descriptor lies as ``override`` says."""
    enveloped = wire.Chunking.for_payload(len(frame), kind="request_chunk", bare_max_bytes=0)
    chunk = bytes(wire.split_chunks(frame, enveloped)[0])
    (n,) = struct.unpack("<Q", chunk[:8])
    header = json.loads(chunk[8 : 8 + n])
    op = json.loads(header["__metadata__"]["op"])
    op["request_chunk"].update(override)
    header["__metadata__"]["op"] = json.dumps(op)
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + chunk[8 + n :]


def chunk_of(value: Any, *, group_id: str, max_bytes: int = 1 << 20) -> list[bytes]:
    """``value`` as request-chunk frames of one group (always an envelope)."""
    chunking = wire.Chunking("request_chunk", max_bytes, group_id, bare_max_bytes=0)
    return [bytes(chunk) for chunk in wire.iter_chunks(value, chunking)]


def broken_bodies(frame: bytes, *, group_id: str, cut: int) -> dict[str, bytes]:
    """Named refusals the codec must make: golden bad frames, a cut, lies in headers and
    descriptors. ``group_id`` must be a group no valid chunk ever used (a stored valid
    chunk would turn a lying descriptor into a 409 conflict before the codec refused it)."""
    return {
        **golden_bad_frames(),
        "truncated_stream": frame[:cut],
        "header_length_past_body": struct.pack("<Q", 2**40) + frame[8:],
        "pickle_opening": b"\x80\x04\x95" + frame[3:],
        "descriptor_wrong_sha256": lying_chunk(
            frame, chunk_group_id=group_id, frame_sha256="0" * 64
        ),
        "descriptor_wrong_size": lying_chunk(
            frame, chunk_group_id=group_id, frame_size_bytes=len(frame) + 1
        ),
        "descriptor_index_past_total": lying_chunk(
            frame, chunk_group_id=group_id, chunk_idx=5, total_chunks=2
        ),
        "descriptor_negative_index": lying_chunk(frame, chunk_group_id=group_id, chunk_idx=-1),
    }


# ----------------------------------------------------------------------- valid values
@st.composite
def train_batch(draw: st.DrawFn) -> dict[str, Any]:
    """A small ForwardBackwardBatch / ForwardNoGradBatch value (byte-level token ids)."""
    rows = draw(st.integers(1, 3))
    prompt = draw(st.integers(1, 6))
    response = draw(st.integers(1, 6))
    return small_batch(
        rows,
        prompt,
        response,
        seed=draw(st.integers(0, 2**16)),
        # Post-processors every view registers (the proposed ones are refused today).
        processing=draw(
            st.sampled_from([[], ["compute_logprobs"], ["identity", "compute_logprobs"]])
        ),
        reference_model=draw(st.sampled_from([None, False, True])),
    )


def small_batch(
    rows: int,
    prompt: int,
    response: int,
    *,
    seed: int = 0,
    processing: list[str] | None = None,
    reference_model: bool | None = None,
) -> dict[str, Any]:
    """A pre-tokenised forward request value of ``rows`` x ``prompt + response`` tokens."""
    total = prompt + response
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(32, 127, (rows, total), generator=gen)
    mask = torch.zeros(rows, total, dtype=torch.long)
    mask[:, prompt:] = 1
    kwargs = {
        "input_ids": ids,
        "attention_mask": torch.ones(rows, total, dtype=torch.long),
        "position_ids": torch.arange(total).repeat(rows, 1),
        "prompts": ids[:, :prompt].clone(),
        "responses": ids[:, prompt:].clone(),
        "response_mask": mask,
        "advantages": torch.randn(rows, total, generator=gen),
        "old_log_probs": torch.full((rows, total), -4.0),
    }
    value: dict[str, Any] = {
        "args": [],
        "kwargs": kwargs,
        "meta": {},
        "processing": {"post": list(processing or [])},
    }
    if reference_model is not None:
        value["reference_model"] = reference_model
    return value


def today_batch(rows: int, prompt: int, response: int, *, seed: int = 0) -> dict[str, Any]:
    """A forward-backward value as today's service takes it: stock grpo, its inputs in
    ``context`` (``loss_mask`` boolean), rows left-aligned (here: no padding at all)."""
    total = prompt + response
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(32, 127, (rows, total), generator=gen)
    loss_mask = torch.zeros(rows, total, dtype=torch.bool)
    loss_mask[:, prompt - 1 : total - 1] = True  # the predictions of the response tokens
    return {
        "args": [],
        "kwargs": {
            "input_ids": ids,
            "attention_mask": torch.ones(rows, total, dtype=torch.long),
            "position_ids": torch.arange(total).repeat(rows, 1),
        },
        "context": {
            "input_ids": ids,
            "advantages": torch.randn(rows, total, generator=gen),
            "loss_mask": loss_mask,
        },
        "processing": {"post": ["compute_logprobs"], "loss_fn": "grpo", "config": {}},
    }


def generate_request() -> st.SearchStrategy[dict[str, Any]]:
    """A GenerateRequest value: text or token-id prompts, shared or per-prompt params."""
    prompt = st.one_of(
        st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=12),
        st.lists(st.integers(0, 255), min_size=1, max_size=8),
    )
    params = st.fixed_dictionaries({"max_tokens": st.integers(1, 8)})
    return st.builds(
        lambda prompts, p, strict: {"prompts": prompts, "sampling_params": p, "strict": strict},
        st.lists(prompt, min_size=1, max_size=3),
        params,
        st.booleans(),
    )


group_ids = st.uuids().map(lambda u: f"fz-{u.hex}")
broken_group_ids = st.uuids().map(lambda u: f"fz-bad-{u.hex}")


@st.composite
def valid_chunk(draw: st.DrawFn) -> bytes:
    """Chunk 0 of a fresh group: complete (202) when it is the only chunk, else 200."""
    value = draw(st.one_of(train_batch(), generate_request()))
    frame = wire.dumps(value)
    pieces = draw(st.integers(1, 3))
    payload = max(1, -(-len(frame) // pieces))
    chunking = wire.Chunking.for_payload(
        payload, kind="request_chunk", chunk_group_id=draw(group_ids), bare_max_bytes=0
    )
    return remember(bytes(wire.split_chunks(frame, chunking)[0]), Body.CHUNK)


@st.composite
def valid_frame(draw: st.DrawFn) -> bytes:
    """A bare frame: every DSSST1 route takes one (the contract's request bodies)."""
    return remember(wire.dumps(draw(st.one_of(generate_request(), train_batch()))), Body.FRAME)


@st.composite
def broken_body(draw: st.DrawFn) -> bytes:
    """One of :func:`broken_bodies` for a drawn GenerateRequest frame."""
    frame = wire.dumps(draw(generate_request()))
    choices = broken_bodies(
        frame, group_id=draw(broken_group_ids), cut=draw(st.integers(1, len(frame) - 1))
    )
    return remember(draw(st.sampled_from(list(choices.values()))), Body.BROKEN)


def dssst1_bodies() -> st.SearchStrategy[bytes]:
    """Mostly valid bodies (so work gets scheduled), a steady share of broken ones."""
    return st.one_of(valid_chunk(), valid_chunk(), valid_frame(), broken_body())


schemathesis.openapi.media_type(BINARY_MEDIA_TYPE, dssst1_bodies())


# ----------------------------------------------------------------------- the check
def error_code(response: Any) -> Any:
    """The error's string code: ``code`` when it is a string, else ``error_code`` (today's
    service sends the HTTP status as an integer ``code``; the string one is proposed)."""
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    code = body.get("code")
    return code if isinstance(code, str) else body.get("error_code")


def carries_dssst1(operation: Any) -> bool:
    """Whether the operation's octet-stream body is a DSSST1 frame (``x-dssst1-schema``);
    other octet-stream bodies (generate-stream's JSON bytes) are not this check's."""
    return any(
        body.media_type == BINARY_MEDIA_TYPE and "x-dssst1-schema" in body.definition
        for body in operation.body
    )


def body_not_reached(status: int, code: Any) -> bool:
    """Answers given before the body is read: auth, a bad parameter (a binary body has no
    schema, so a 422 is about the path or a header), an unknown job, a job not running."""
    return status in (401, 404, 422, 429, 503) or (status == 409 and code == "job_not_running")


@schemathesis.check
def dssst1_body_handling(ctx: Any, response: Any, case: Any) -> bool | None:
    """A DSSST1 body gets the answer the contract promises for what it really is."""
    if response.request.method != "POST" or not isinstance(case.body, bytes | bytearray):
        return None  # the unsupported-method check replays bodies with other verbs
    kind = expectation(bytes(case.body))
    if kind is None or not carries_dssst1(case.operation):
        return None
    status, code = response.status_code, error_code(response)
    if body_not_reached(status, code):
        return None
    path = case.operation.path
    if kind is Body.BROKEN:
        if status != 400 or (code is not None and code not in BAD_REQUEST_CODES):
            raise AssertionError(f"{kind.value} on {path} answered {status} {code!r}, not 400")
    elif kind is Body.FRAME:
        # A submit holding its answer (the proposed wait_s) answers 200 once the request ended.
        held = bool((case.query or {}).get("wait_s"))
        if status != 202 and not (held and status == 200):
            raise AssertionError(f"{kind.value} on {path} answered {status} {code!r}, not 202")
    elif status not in (200, 202) and not (status == 409 and str(code).startswith("chunk_group")):
        raise AssertionError(f"{kind.value} on {path} answered {status} {code!r}")
    return True
