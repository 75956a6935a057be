"""A request's result in its wire form, built once on the worker thread.

What a poll answers is JSON text stored as it is built here: a JSON result as its
object; a DSSST1 result inline (base64) when its frame is small, else as one
``result_chunk`` event per chunk, streamed from the codec so the frame is never built
whole. Each result is checked against the contract's ``RequestStatus`` once, here,
rather than on every poll that carries it.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import cortex_gs_models as models
from cortex_gs_contract import RequestState

from arctic_rl import wire
from arctic_rl_mock.services.chunk_group import sha256_hex
from arctic_rl_mock.settings import Settings

# Request kinds whose result is a DSSST1 frame (the others answer JSON).
BINARY_RESULTS = ("forward_backward", "forward_no_grad", "generate", "log_probs", "forward")

Packed = tuple[str | None, list[str]]


def pack(settings: Settings, request_id: str, kind: str, output: Any) -> Packed:
    """(result text or None, event texts) of a finished request's ``output``."""
    if kind in BINARY_RESULTS:
        result, events = _pack_binary(settings, output)
    else:
        result, events = output, []
    models.RequestStatus.model_validate(
        {"request_id": request_id, "status": RequestState.done, "result": result, "events": events}
    )
    return (None if result is None else json.dumps(result)), [json.dumps(e) for e in events]


def _pack_binary(settings: Settings, value: Any) -> tuple[Any, list[dict[str, Any]]]:
    """Inline base64 for small frames, else one ``result_chunk`` event per chunk."""
    chunking = wire.Chunking.for_payload(
        settings.result_chunk_bytes,
        kind="result_chunk",
        bare_max_bytes=settings.inline_result_bytes,
    )
    chunks = wire.iter_chunks(value, chunking)
    first = next(chunks)
    if first.descriptor is None:
        return {
            "content_type": "application/octet-stream",
            "encoding": "base64",
            "wire_format": "DSSST1",
            "payload_b64": base64.b64encode(first.data).decode("ascii"),
        }, []
    events = [
        {
            "type": "result_chunk",
            "chunk_idx": chunk.index,
            "total_chunks": chunk.total,
            "payload_b64": base64.b64encode(chunk.data).decode("ascii"),
            "payload_sha256": sha256_hex(chunk.data),
        }
        for chunk in (first, *chunks)
    ]
    return None, events


def single_prompts(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A generate body split per prompt, each with its own sampling params and routing key."""
    prompts = body.get("prompts") or []
    out = []
    for index, prompt in enumerate(prompts):
        single = {**body, "prompts": [prompt]}
        for key in ("sampling_params", "routing_key"):
            value = body.get(key)
            if isinstance(value, list):
                single[key] = value[index] if index < len(value) else None
        out.append(single)
    return out
