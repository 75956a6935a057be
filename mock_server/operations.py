"""Today's ``POST /{job_id}/operation`` envelope: routing hints, payloads, inline answers.

``forward`` and ``weight-sync`` schedule work and answer a ``request_id``; the other
types answer inline with an opaque object. Payloads are open (unknown keys are ignored
and logged at debug). Every type needs a ``running`` job except ``tail-logs``, which
also serves while a job is still being placed (empty, non-EOF pages until it has logs).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import cortex_gs_models as models
from pydantic import BaseModel

from mock_server.backends import sub_job_ids
from mock_server.bodies import log_ignored, parse, plain
from mock_server.errors import ApiError
from mock_server.service import MockService

Runner = Callable[[], Awaitable[tuple[int, Any]]]
SubmitJson = Callable[[str, str, dict[str, Any]], Runner]

_LOG_CURSOR = re.compile(r"cursor-(\d{1,12})")
DEFAULT_LOG_LINES = 50
MAX_LOG_LINES = 1000
BOOTSTRAP_FIELDS = ("source_sub_job_id", "target_sub_job_id", "max_cache_bytes")

# The payload model of every operation type (``forward`` and ``weight-sync`` are async).
PAYLOADS: dict[str, type[BaseModel]] = {
    "weight-sync": models.WeightSyncPayload,
    "forward": models.ForwardOperationPayload,
    "cancel-request": models.CancelRequestPayload,
    "tail-logs": models.TailLogsPayload,
    "bootstrap-router-replay": models.BootstrapRouterReplayPayload,
    "router-replay-discard": models.RouterReplayDiscardPayload,
    "reset-prefix-cache": models.ResetPrefixCachePayload,
}


def _bad(message: str) -> ApiError:
    return ApiError(400, "bad_value", message)


def sub_job_types(job: dict[str, Any]) -> dict[str, str]:
    """The job's sub-job ids -> their job types."""
    ids = sub_job_ids(job["job_id"], job["sub_jobs"])
    return {sid: str(sub["job_type"]) for sid, sub in zip(ids, job["sub_jobs"], strict=True)}


def check_routing(job: dict[str, Any], sub_job_id: str | None, sub_job_type: str | None) -> None:
    """Routing hints must name this job's sub-jobs, and the same one when both are given."""
    owned = sub_job_types(job)
    if sub_job_id is not None and sub_job_id not in owned:
        raise _bad(f"sub_job_id {sub_job_id} is not a sub-job of job {job['job_id']}")
    if sub_job_type is not None and sub_job_type not in owned.values():
        raise _bad(f"job {job['job_id']} has no {sub_job_type} sub-job")
    if sub_job_id is not None and sub_job_type is not None and owned[sub_job_id] != sub_job_type:
        raise _bad(f"sub_job_id {sub_job_id} is not a {sub_job_type} sub-job")


def _owned(job: dict[str, Any], *ids: str | None) -> None:
    owned = sub_job_types(job)
    for sid in ids:
        if sid is not None and sid not in owned:
            raise _bad(f"{sid} is not a sub-job of job {job['job_id']}")


def plan(
    service: MockService, job_id: str, body: dict[str, Any], submit_json: SubmitJson
) -> Runner:
    """Validate an operation envelope now; return what runs it (under Idempotency-Key)."""
    op = body["operation_type"]
    job = service.job_or_404(job_id)
    check_routing(job, body.get("sub_job_id"), body.get("sub_job_type"))
    model = parse(PAYLOADS[op], body.get("payload") or {}, ("body", "payload"))
    log_ignored(model, f"{op} payload")
    payload = plain(model)

    if op == "weight-sync":
        _owned(job, payload.get("source_sub_job_id"), *payload.get("target_sub_job_ids", []))
        return submit_json(job_id, "sync_weights", payload)
    if op == "forward":
        try:
            frame = base64.b64decode(payload["payload_b64"], validate=True)
        except (binascii.Error, ValueError) as exc:
            raise _bad("payload_b64 is not valid base64") from exc

        async def run_forward() -> tuple[int, Any]:
            service.running_job(job_id)
            request_id = await service.submit_frame(job_id, "forward", frame)
            return 202, {"request_id": request_id, "job_id": job_id}

        return run_forward

    async def run_inline() -> tuple[int, Any]:
        if op == "tail-logs":
            return 200, _tail_logs(service, job_id, body.get("sub_job_id"), payload)
        service.running_job(job_id)
        return 200, _inline(service, job, op, payload)

    return run_inline


def _inline(
    service: MockService, job: dict[str, Any], op: str, payload: dict[str, Any]
) -> dict[str, Any]:
    """The opaque answers of today's inline operation types."""
    job_id = job["job_id"]
    if op == "cancel-request":
        cancelled = service.cancel_request(job_id, payload["request_id"])
        return {"request_id": payload["request_id"], "cancelled": cancelled}
    if op == "bootstrap-router-replay":
        _owned(job, payload["source_sub_job_id"], payload["target_sub_job_id"])
        return {"bootstrapped": True, **{k: payload[k] for k in BOOTSTRAP_FIELDS if k in payload}}
    if op == "router-replay-discard":
        return {"discarded": len(set(payload.get("sample_ids", [])))}
    sampling = [sid for sid, kind in sub_job_types(job).items() if kind == "sampling"]
    return {"reset": True, "drained": payload.get("drain", True), "sub_job_ids": sampling}


def _tail_logs(
    service: MockService, job_id: str, sub_job_id: str | None, payload: dict[str, Any]
) -> dict[str, Any]:
    """One page of the job's log: ``{entries, next_cursor, eof}``; allowed in any state."""
    job = service.job_or_404(job_id)
    match = _LOG_CURSOR.fullmatch(payload.get("cursor", ""))
    start = int(match.group(1)) if match else 0
    lines = max(1, min(payload.get("max_lines", DEFAULT_LOG_LINES), MAX_LOG_LINES))
    rows, more = service.store.logs(job_id, start, lines, sub_job_id)
    entries = [
        f"{datetime.fromtimestamp(r['ts'], UTC).isoformat().replace('+00:00', 'Z')} {r['line']}"
        for r in rows
    ]
    end = rows[-1]["seq"] + 1 if rows else start
    placing = job["status"] in ("pending", "placing")
    return {"entries": entries, "next_cursor": f"cursor-{end}", "eof": not more and not placing}
