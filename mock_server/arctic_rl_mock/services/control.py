"""The control plane's rules and views: what jobs, capacity and checkpoints look like.

Answers are built as today's service sends them (proto3 JSON: empty fields left out
where it leaves them out, RFC 3339 times), from the service's rows; the checks that a
pydantic model cannot express (one config per sub-job, prompts and their per-prompt
lists aligned, a load target inside the job) live here too.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from cortex_gs_contract import ErrorCode, JobState, JobType

from arctic_rl_mock.backends import sub_job_ids
from arctic_rl_mock.errors import ApiError
from arctic_rl_mock.services.mock_service import MockService

# Jobs holding GPUs (placed or about to be).
HOLDING_GPUS = (JobState.pending, JobState.placing, JobState.initializing, JobState.running)
NOT_PLACED = (JobState.pending, JobState.placing)


def iso(ts: float) -> str:
    """Epoch seconds -> RFC 3339 UTC, as the contract's date-times."""
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def sub_job_types(job: dict[str, Any]) -> dict[str, str]:
    """The job's sub-job ids -> their job types."""
    ids = sub_job_ids(job["job_id"], job["sub_jobs"])
    return {sid: str(sub["job_type"]) for sid, sub in zip(ids, job["sub_jobs"], strict=True)}


def _validation_error(issues: list[dict[str, Any]]) -> ApiError:
    return ApiError(422, ErrorCode.validation_error, "request validation failed", details=issues)


# -- jobs ----------------------------------------------------------------------------
def job_view(service: MockService, job: dict[str, Any]) -> dict[str, Any]:
    """A job as today's service shows it (``reason`` and ``image_tag`` may be empty)."""
    ids = sub_job_ids(job["job_id"], job["sub_jobs"])
    placed = job["status"] not in NOT_PLACED
    view: dict[str, Any] = {
        "job_id": job["job_id"],
        "status": job["status"],
        "reason": job["reason"] or "",
        "created_at": iso(job["created_at"]),
        "updated_at": iso(job["updated_at"]),
        "image_tag": f"cortex-gs-mock:{service.settings.backend}" if placed else "",
    }
    for key in ("submitted_by", "owner_role"):
        if job.get(key):
            view[key] = job[key]
    view["sub_jobs"] = [
        {
            "sub_job_id": sub_id,
            "job_type": sub["job_type"],
            "status": job["status"],
            "model_name": sub["model_name"],
            **{k: sub[k] for k in ("training_config", "inference_config") if k in sub},
        }
        for sub_id, sub in zip(ids, job["sub_jobs"], strict=True)
    ]
    return view


def list_jobs(service: MockService, status: str | None) -> list[dict[str, Any]]:
    """Every job (in ``status`` only, when given), as :func:`job_view` shows it."""
    return [job_view(service, job) for job in service.store.jobs.list_jobs(status)]


def check_sub_job_configs(sub_jobs: list[dict[str, Any]]) -> None:
    """Exactly one of training_config (training) / inference_config (the others)."""
    issues = []
    for i, sub in enumerate(sub_jobs):
        kind = str(sub["job_type"])
        wants = "training_config" if kind == JobType.training else "inference_config"
        other = "inference_config" if wants == "training_config" else "training_config"
        loc: list[str | int] = ["body", "sub_job_configs", i]
        if sub.get(wants) is None:
            issues.append({"loc": [*loc, wants], "msg": f"{kind} needs {wants}", "type": "missing"})
        if sub.get(other) is not None:
            issues.append(
                {"loc": [*loc, other], "msg": f"{kind} takes no {other}", "type": "extra_forbidden"}
            )
    if issues:
        raise _validation_error(issues)


def capacity(service: MockService) -> dict[str, Any]:
    """Proto3 JSON: false and zero fields are left out, as today's service does."""
    used = sum(
        _gpus(job["sub_jobs"])
        for job in service.store.jobs.list_jobs()
        if job["status"] in HOLDING_GPUS
    )
    total = service.settings.max_total_gpus
    fields = {
        "has_reservation": False,
        "max_total_gpus": total,
        "reserved_gpus": 0,
        "in_use_gpus": used,
        "available_gpus": max(total - used, 0),
    }
    return {k: v for k, v in fields.items() if v}


def _gpus(sub_jobs: list[dict[str, Any]]) -> int:
    total = 0
    for sub in sub_jobs:
        cfg = sub.get("training_config") or sub.get("inference_config") or {}
        total += int(cfg.get("n_gpus") or 0)
    return total


def experiment_run(
    service: MockService, job_id: str, account: tuple[str, str] | None
) -> dict[str, Any]:
    """``DATABASE.SCHEMA.EXPERIMENT`` (of the path asked) and the run's name."""
    settings = service.settings
    job = service.job_or_404(job_id)
    database, schema = account or (settings.database, settings.schema)
    name = job["experiment_name"] or settings.default_experiment
    qualified = name if name.count(".") == 2 else f"{database}.{schema}.{name}"
    return {"experiment_name": qualified, "experiment_run_name": job_id.upper().replace("-", "_")}


# -- checkpoints ---------------------------------------------------------------------
def _checkpoint_not_found(checkpoint_id: str) -> ApiError:
    return ApiError(404, ErrorCode.checkpoint_not_found, f"checkpoint {checkpoint_id} not found")


async def checkpoint_or_404(service: MockService, job_id: str, checkpoint_id: str) -> None:
    """404 unless the job and its checkpoint exist."""
    service.job_or_404(job_id)
    if (
        await asyncio.to_thread(service.store.checkpoints.get_checkpoint, job_id, checkpoint_id)
        is None
    ):
        raise _checkpoint_not_found(checkpoint_id)


async def list_checkpoints(service: MockService, job_id: str) -> list[dict[str, Any]]:
    service.job_or_404(job_id)
    rows = await asyncio.to_thread(service.store.checkpoints.list_checkpoints, job_id)
    return [
        {
            "checkpoint_id": r["checkpoint_id"],
            "global_steps": r["global_steps"],
            **({"avg_loss": r["avg_loss"]} if r["avg_loss"] is not None else {}),
            "created_at": iso(r["created_at"]),
            "checkpoint_type": r["checkpoint_type"],
        }
        for r in rows
    ]


async def delete_checkpoint(service: MockService, job_id: str, checkpoint_id: str) -> None:
    service.job_or_404(job_id)
    if not await asyncio.to_thread(
        service.store.checkpoints.delete_checkpoint, job_id, checkpoint_id
    ):
        raise _checkpoint_not_found(checkpoint_id)


async def export_checkpoint(
    service: MockService, job_id: str, checkpoint_id: str, base_url: str
) -> dict[str, Any]:
    """Short-lived links to each file of the checkpoint."""
    await checkpoint_or_404(service, job_id, checkpoint_id)
    export = service.exports.export
    exported = await asyncio.to_thread(export, job_id, checkpoint_id, base_url)
    return {**exported, "expires_at": iso(exported["expires_at"])}


async def check_load(service: MockService, job_id: str, data: dict[str, Any]) -> None:
    """400 for a target outside the job, 501 for a non-training target, 404 when the
    checkpoint is missing."""
    job = service.job_or_404(job_id)
    target = data.get("target_sub_job_id")
    if target is not None:
        kinds = sub_job_types(job)
        if target not in kinds:
            raise ApiError(400, ErrorCode.bad_value, f"{target} is not a sub-job of job {job_id}")
        if kinds[target] != JobType.training:
            raise ApiError(
                501, ErrorCode.not_implemented, "load is only supported on training sub-jobs"
            )
    source = data.get("source_job_id") or job_id
    service.job_or_404(source)
    found = await asyncio.to_thread(
        service.store.checkpoints.get_checkpoint, source, data["checkpoint_id"]
    )
    if found is None:
        raise _checkpoint_not_found(data["checkpoint_id"])


# -- sampling ------------------------------------------------------------------------
def check_aligned(generation: dict[str, Any]) -> None:
    """Per-prompt ``sampling_params`` / ``routing_key`` lists must match ``prompts``."""
    count = len(generation["prompts"])
    for key in ("sampling_params", "routing_key"):
        value = generation.get(key)
        if isinstance(value, list) and len(value) != count:
            raise _validation_error(
                [{"loc": ["body", key], "msg": "one entry per prompt", "type": "length"}]
            )
