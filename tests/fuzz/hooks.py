"""Schemathesis extensions for the Cortex GS contract: DSSST1 bodies and their check.

Loaded by the pytest fuzz tests (as ``fuzz.hooks``) and by the CLI run of ``make fuzz``
(``hooks = "tests.fuzz.hooks"`` in schemathesis.toml). Random bytes never reach past the
mock's frame parser, so the octet-stream bodies come from a strategy that builds real
DSSST1 frames and chunk envelopes with ``arctic_rl.wire`` -- plus deliberately broken
ones. Every body drawn is remembered with what the contract promises for it, and the
``dssst1_body_handling`` check holds the server to that promise.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import struct
import threading
from typing import Any

import schemathesis
import torch
from hypothesis import strategies as st

from arctic_rl import wire

from .frames import golden_bad_frames, lying_chunk

BINARY_MEDIA_TYPE = "application/octet-stream"
ENVELOPE_ONLY_ROUTES = ("/forward-backward", "/forward-no-grad")
# The contract's 400 codes: bad_json plus the codec's refusals.
BAD_REQUEST_CODES = frozenset({"bad_json", *wire.ERROR_CODES})


class Body(enum.Enum):
    """What the contract promises for a body, whichever binary route it reaches."""

    CHUNK = "a valid request_chunk envelope"  # 200/202, or a 409 chunk-group rule
    FRAME = "a valid bare frame"  # 202 on generate; 400 where an envelope is required
    BROKEN = "a broken frame or envelope"  # always 400 with a codec error code


_lock = threading.Lock()
_drawn: dict[str, Body] = {}


def _remember(data: bytes, kind: Body) -> bytes:
    with _lock:
        _drawn[hashlib.sha256(data).hexdigest()] = kind
    return data


def expectation(data: bytes) -> Body | None:
    """The promise recorded for a body this module generated (None: not ours)."""
    with _lock:
        return _drawn.get(hashlib.sha256(data).hexdigest())


# ----------------------------------------------------------------------- valid values
@st.composite
def train_batch(draw: st.DrawFn) -> dict[str, Any]:
    """A small ForwardBackwardBatch / ForwardNoGradBatch value (byte-level token ids)."""
    rows = draw(st.integers(1, 3))
    prompt = draw(st.integers(1, 6))
    response = draw(st.integers(1, 6))
    total = prompt + response
    seed = draw(st.integers(0, 2**16))
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
    processing = {"post": draw(st.sampled_from([[], ["logprobs"], ["logprobs", "entropy"]]))}
    value: dict[str, Any] = {"args": [], "kwargs": kwargs, "meta": {}, "processing": processing}
    if draw(st.booleans()):
        value["reference_model"] = draw(st.booleans())
    return value


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
# Broken bodies never share a group with valid ones: a stored valid chunk would turn a
# lying descriptor into a 409 conflict before the codec could refuse it.
broken_group_ids = st.uuids().map(lambda u: f"fz-bad-{u.hex}")


@st.composite
def valid_chunk(draw: st.DrawFn) -> bytes:
    """Chunk 0 of a fresh group: complete (202) when it is the only chunk, else 200."""
    value = draw(st.one_of(train_batch(), generate_request()))
    frame = wire.dumps(value)
    pieces = draw(st.integers(1, 3))
    payload = max(1, -(-len(frame) // pieces))
    chunks = wire.split_chunks(
        frame,
        kind="request_chunk",
        max_bytes=payload + wire.CHUNK_HEADROOM,
        chunk_group_id=draw(group_ids),
        force=True,
    )
    return _remember(chunks[0], Body.CHUNK)


@st.composite
def valid_frame(draw: st.DrawFn) -> bytes:
    """A bare frame: generate takes it; the envelope-only routes must refuse it."""
    return _remember(wire.dumps(draw(st.one_of(generate_request(), train_batch()))), Body.FRAME)


# ----------------------------------------------------------------------- broken bodies
@st.composite
def broken_body(draw: st.DrawFn) -> bytes:
    """Refusals the codec must name: golden bad frames, cuts, lies in the descriptor."""
    frame = wire.dumps(draw(generate_request()))
    group = draw(broken_group_ids)
    choices: list[bytes] = list(golden_bad_frames().values())
    cut = draw(st.integers(1, len(frame) - 1))
    choices += [
        frame[:cut],  # truncated stream
        struct.pack("<Q", 2**40) + frame[8:],  # header length far past the body
        b"\x80\x04\x95" + frame[3:],  # a pickle's opening bytes
        lying_chunk(frame, chunk_group_id=group, frame_sha256="0" * 64),
        lying_chunk(frame, chunk_group_id=group, frame_size_bytes=len(frame) + 1),
        lying_chunk(frame, chunk_group_id=group, chunk_idx=5, total_chunks=2),
        lying_chunk(frame, chunk_group_id=group, chunk_idx=-1),
    ]
    return _remember(draw(st.sampled_from(choices)), Body.BROKEN)


def dssst1_bodies() -> st.SearchStrategy[bytes]:
    """Mostly valid bodies (so work gets scheduled), a steady share of broken ones."""
    return st.one_of(valid_chunk(), valid_chunk(), valid_frame(), broken_body())


schemathesis.openapi.media_type(BINARY_MEDIA_TYPE, dssst1_bodies())


# ----------------------------------------------------------------------- the check
def _code(response: Any) -> Any:
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        return None
    return body.get("code") if isinstance(body, dict) else None


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
    if kind is None:
        return None
    status, code = response.status_code, _code(response)
    if body_not_reached(status, code):
        return None
    path = case.operation.path
    if kind is Body.BROKEN or (kind is Body.FRAME and path.endswith(ENVELOPE_ONLY_ROUTES)):
        if status != 400 or code not in BAD_REQUEST_CODES:
            raise AssertionError(f"{kind.value} on {path} answered {status} {code!r}, not 400")
    elif kind is Body.FRAME:
        if status != 202:
            raise AssertionError(f"{kind.value} on {path} answered {status} {code!r}, not 202")
    elif status not in (200, 202) and not (status == 409 and str(code).startswith("chunk_group")):
        raise AssertionError(f"{kind.value} on {path} answered {status} {code!r}")
    return True


# ----------------------------------------------------------------------- stateful roots
@schemathesis.hook
def after_load_schema(context: Any, schema: Any) -> None:
    """Start stateful scenarios at create_job, and only there.

    Schemathesis starts a scenario at any POST whose inputs it believes it can satisfy.
    Its dependency analysis (a) reads create_job's optional ``source_checkpoint_info``
    as a reference to something nobody produces, so create_job was never an entry point,
    and (b) offers every data-plane POST as an entry point with a made-up job id, which
    can only 404. Here (a) such optional body references are dropped, and (b) a path
    ``job_id`` is marked as a resource only create_job's links provide -- so scenarios
    create a job and carry its id through the contract's links into every call.
    """
    graph = getattr(getattr(schema, "analysis", None), "dependency_graph", None)
    if graph is None:
        return
    produced = {out.resource.name for node in graph.operations.values() for out in node.outputs}
    for node in graph.operations.values():
        inputs = []
        for slot in node.inputs:
            where = slot.parameter_location.value
            if where == "body" and slot.resource_field and slot.resource.name not in produced:
                continue
            if where == "path" and slot.parameter_name == "job_id":
                linked_only = dataclasses.replace(slot.resource, name="JobFromCreateJobLinks")
                slot = dataclasses.replace(slot, resource=linked_only)
            inputs.append(slot)
        node.inputs = inputs
