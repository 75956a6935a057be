"""Today's ``POST /{job_id}/operation`` envelope: routing hints, payloads, inline answers.

``forward`` and ``weight-sync`` schedule work and answer a ``request_id``; the other
types answer inline with an opaque object. Payloads are open (unknown keys are ignored
and logged at debug). Every type needs a ``running`` job except ``tail-logs``, which
also serves while a job is still being placed (empty, non-EOF pages until it has logs).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import re
from typing import Any

import cortex_gs_models as models
from cortex_gs_contract import ErrorCode, JobType, OperationType
from pydantic import BaseModel

from arctic_rl_mock.errors import ApiError
from arctic_rl_mock.services.control import NOT_PLACED, iso, sub_job_types
from arctic_rl_mock.services.mock_service import MockService, Runner
from arctic_rl_mock.web.bodies import log_ignored, parse, plain

_LOG_CURSOR = re.compile(r"cursor-(\d{1,12})")
DEFAULT_LOG_LINES = 50
MAX_LOG_LINES = 1000
BOOTSTRAP_FIELDS = ("source_sub_job_id", "target_sub_job_id", "max_cache_bytes")

# The payload model of every operation type (``forward`` and ``weight-sync`` are async).
PAYLOADS: dict[OperationType, type[BaseModel]] = {
    OperationType.weight_sync: models.WeightSyncPayload,
    OperationType.forward: models.ForwardOperationPayload,
    OperationType.cancel_request: models.CancelRequestPayload,
    OperationType.tail_logs: models.TailLogsPayload,
    OperationType.bootstrap_router_replay: models.BootstrapRouterReplayPayload,
    OperationType.router_replay_discard: models.RouterReplayDiscardPayload,
    OperationType.reset_prefix_cache: models.ResetPrefixCachePayload,
}


def _bad(message: str) -> ApiError:
    return ApiError(400, ErrorCode.bad_value, message)


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


def plan(service: MockService, job_id: str, body: dict[str, Any]) -> Runner:
    """Validate an operation envelope now; return what runs it (under Idempotency-Key)."""
    op = body["operation_type"]
    job = service.job_or_404(job_id)
    check_routing(job, body.get("sub_job_id"), body.get("sub_job_type"))
    model = parse(PAYLOADS[op], body.get("payload") or {}, ("body", "payload"))
    log_ignored(model, f"{op} payload")
    payload = plain(model)

    if op == OperationType.weight_sync:
        _owned(job, payload.get("source_sub_job_id"), *payload.get("target_sub_job_ids", []))
        return service.submitter(job_id, "sync_weights", payload)
    if op == OperationType.forward:
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
        if op == OperationType.tail_logs:
            return 200, await _tail_logs(service, job_id, body.get("sub_job_id"), payload)
        service.running_job(job_id)
        return 200, await _inline(service, job, op, payload)

    return run_inline


async def _inline(
    service: MockService, job: dict[str, Any], op: str, payload: dict[str, Any]
) -> dict[str, Any]:
    """The opaque answers of today's inline operation types."""
    job_id = job["job_id"]
    if op == OperationType.cancel_request:
        cancelled = await service.cancel_request(job_id, payload["request_id"])
        return {"request_id": payload["request_id"], "cancelled": cancelled}
    if op == OperationType.bootstrap_router_replay:
        _owned(job, payload["source_sub_job_id"], payload["target_sub_job_id"])
        return {"bootstrapped": True, **{k: payload[k] for k in BOOTSTRAP_FIELDS if k in payload}}
    if op == OperationType.router_replay_discard:
        return {"discarded": len(set(payload.get("sample_ids", [])))}
    sampling = [sid for sid, kind in sub_job_types(job).items() if kind == JobType.sampling]
    return {"reset": True, "drained": payload.get("drain", True), "sub_job_ids": sampling}


async def _tail_logs(
    service: MockService, job_id: str, sub_job_id: str | None, payload: dict[str, Any]
) -> dict[str, Any]:
    """One page of the job's log: ``{entries, next_cursor, eof}``; allowed in any state."""
    job = service.job_or_404(job_id)
    match = _LOG_CURSOR.fullmatch(payload.get("cursor", ""))
    start = int(match.group(1)) if match else 0
    lines = max(1, min(payload.get("max_lines", DEFAULT_LOG_LINES), MAX_LOG_LINES))
    rows, more = await asyncio.to_thread(service.store.logs.logs, job_id, start, lines, sub_job_id)
    entries = [f"{iso(r['ts'])} {r['line']}" for r in rows]
    end = rows[-1]["seq"] + 1 if rows else start
    placing = job["status"] in NOT_PLACED
    return {"entries": entries, "next_cursor": f"cursor-{end}", "eof": not more and not placing}
