"""Today's forward without gradients: the ``forward`` operation on ``/{job}/operation``.

Today's service has no ``/forward-no-grad``. A forward is ``POST /{job}/operation`` with
JSON ``{operation_type: forward, sub_job_id?, payload: {content_type, payload_b64}}``,
the payload one complete DSSST1 frame (its ``op`` metadata asks for a DSSST1 answer). It
is not chunked: the JSON body is at most 16 MiB, base64 included, and the decoded frame at
most 60 MiB, and the service decodes one whole frame a post. So a big batch is split by
rows (never by bytes), each part keeping at least as many rows as training GPUs, and the
parts' answers are joined in order. An answer is ``{job_id, logprobs}`` or a
``payload_b64`` frame, either polled like any request.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arctic_rl import wire
from arctic_rl._errors import NotServedError, UnexpectedAnswerError
from arctic_rl._results import as_tensor
from arctic_rl._timing import TIMING_KEY

if TYPE_CHECKING:
    from arctic_rl._protocol import ServiceAPI

__all__ = [
    "FRAME_CAP",
    "JSON_CAP",
    "envelope",
    "frame_cap",
    "joined",
    "outputs_of",
    "row_parts",
    "send_forward",
]

JSON_CAP = 16 * 1024 * 1024
FRAME_CAP = 60 * 1024 * 1024
ENVELOPE_RESERVE = 4096  # the JSON around the base64 text
FRAME_METADATA = {"response_options": {"format": "dssst1", "delivery": "chunked"}}
_SECTIONS = ("kwargs", "context")
_EMPTY_PAYLOAD = b'"payload_b64": ""'  # where the base64 goes in the envelope's text


def frame_cap(json_cap: int = JSON_CAP, raw_cap: int = FRAME_CAP) -> int:
    """The largest frame one post carries: base64 grows it by 4/3 inside the JSON cap."""
    return min(raw_cap, (json_cap - ENVELOPE_RESERVE) // 4 * 3)


def _rows(body: Mapping[str, Any]) -> int:
    return int(body["kwargs"]["input_ids"].shape[0])


def _slice(body: Mapping[str, Any], start: int, stop: int) -> dict[str, Any]:
    """Rows ``start:stop`` of every row-shaped tensor in the body's sections."""
    import torch

    rows = _rows(body)
    out = dict(body)
    for section in _SECTIONS:
        part = body.get(section)
        if isinstance(part, Mapping):
            out[section] = {
                k: v[start:stop] if isinstance(v, torch.Tensor) and v.dim() and v.shape[0] == rows
                else v
                for k, v in part.items()
            }  # fmt: skip
    return out


def _balanced(rows: int, parts: int) -> list[tuple[int, int]]:
    base, extra = divmod(rows, parts)
    bounds, start = [], 0
    for index in range(parts):
        stop = start + base + (1 if index < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def row_parts(body: Mapping[str, Any], *, min_rows: int = 1, cap: int | None = None) -> list[bytes]:
    """The body's frames, split by rows into as few parts as fit ``cap`` bytes each, every
    part at least ``min_rows`` rows."""
    cap = frame_cap() if cap is None else cap
    rows = _rows(body)
    whole = wire.dumps(body, metadata=FRAME_METADATA)
    if len(whole) <= cap:
        return [whole]
    parts = max(2, math.ceil(len(whole) / cap))
    while True:
        if rows // parts < max(1, min_rows):
            raise NotServedError(
                f"a forward of {rows} rows ({len(whole)} bytes) cannot be split into parts of "
                f"at least {min_rows} rows (the job's training GPUs) under the {cap}-byte cap "
                "of one forward operation: send fewer or shorter rows per call",
                code="not_served",
            )
        frames = [wire.dumps(_slice(body, a, b), metadata=FRAME_METADATA)
                  for a, b in _balanced(rows, parts)]  # fmt: skip
        largest = max(len(f) for f in frames)
        if largest <= cap:
            return frames
        parts = max(parts + 1, math.ceil(parts * largest / cap))


def envelope(frame: bytes, sub_job_id: str | None) -> bytes:
    """The operation request carrying one frame, as its JSON text: built around the frame's
    base64 (which needs no escaping), not by serialising a string as long once more."""
    body: dict[str, Any] = {
        "operation_type": "forward",
        "payload": {"content_type": "application/octet-stream", "payload_b64": ""},
    }
    if sub_job_id is not None:
        body["sub_job_id"] = sub_job_id
    before, after = json.dumps(body).encode("ascii").split(_EMPTY_PAYLOAD, 1)
    payload = base64.b64encode(memoryview(frame))
    return b"".join((before, b'"payload_b64": "', payload, b'"', after))


def outputs_of(answer: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(per-token outputs, metrics) of one forward's answer, in any shape it comes in:
    ``{job_id, logprobs}``, a ``payload_b64`` frame, or outputs under
    ``post_process_outputs`` / ``model_outputs`` / ``batch``."""
    value = answer
    if isinstance(value, Mapping) and isinstance(value.get("payload_b64"), str):
        value = wire.loads(base64.b64decode(value["payload_b64"]))
    if not isinstance(value, Mapping):
        raise UnexpectedAnswerError(f"a forward answered {type(value).__name__}, not a mapping")
    metrics = dict(value.get("metrics") or {})
    for key in ("post_process_outputs", "model_outputs", "batch"):
        nested = value.get(key)
        if isinstance(nested, Mapping) and nested:
            return dict(nested), metrics
    return {k: v for k, v in value.items() if k in ("logprobs", "log_probs", "entropy")}, metrics


def joined(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per-token outputs of consecutive row parts, joined along the rows."""
    import torch

    keys = set(parts[0])
    for part in parts[1:]:
        keys &= set(part)
    return {key: torch.cat([as_tensor(p[key]) for p in parts]) for key in sorted(keys)}


async def send_forward(
    service: ServiceAPI,
    job_id: str,
    body: Mapping[str, Any],
    sub_job_id: str | None,
    min_rows: int,
) -> dict[str, Any]:
    """``body`` through the forward operation, its row parts posted at once; their answers
    joined as ``{"model_outputs", "metrics", "timing"}`` (the last part's figures)."""
    frames = row_parts(body, min_rows=min_rows)
    requests = [envelope(f, sub_job_id) for f in frames]
    answers = await asyncio.gather(*(service.run_operation(job_id, r) for r in requests))
    parts = [outputs_of(answer) for answer in answers]
    outputs = parts[0][0] if len(parts) == 1 else joined([p[0] for p in parts])
    last = answers[-1]
    timing = last.get(TIMING_KEY) if isinstance(last, Mapping) else None
    return {"model_outputs": outputs, "metrics": parts[0][1], TIMING_KEY: timing}
