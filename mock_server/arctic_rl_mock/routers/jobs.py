"""Handlers of the ``jobs`` operations: create, list, read and cancel jobs; capacity;
the proposed capabilities."""

from __future__ import annotations

from typing import Annotated, Any

import cortex_gs_models as models
from fastapi import Query, Request
from fastapi.responses import JSONResponse, Response

from arctic_rl_mock.dependencies import IdempotencyDep, JobIdPath, Principal, ServiceDep
from arctic_rl_mock.routers._common import open_body, reply
from arctic_rl_mock.services import control


async def create_job(
    body: models.CreateJobRequest, service: ServiceDep, idempotency: IdempotencyDep
) -> JSONResponse:
    """Validates the one-config-per-sub-job rule pydantic cannot express."""
    data = open_body(body, "create_job")
    control.check_sub_job_configs(data["sub_job_configs"])

    async def run() -> tuple[int, Any]:
        job_id = await service.create_job(data["sub_job_configs"], data.get("experiment_name"))
        return 200, {"job_id": job_id}

    status, out = await idempotency.run(data, run)
    return reply(models.CreateJobResponse, out, status)


async def list_jobs(
    _: Principal,
    service: ServiceDep,
    status: Annotated[models.JobState | None, Query(description="Only jobs in this state.")] = None,
) -> JSONResponse:
    jobs = control.list_jobs(service, status.value if status else None)
    return reply(models.JobList, {"jobs": jobs})


async def get_capacity(_: Principal, service: ServiceDep) -> JSONResponse:
    return reply(models.Capacity, control.capacity(service))


async def get_capabilities(_: Principal, service: ServiceDep) -> JSONResponse:
    """Every proposal (the route itself is one: today's service has no such route)."""
    proposals = [proposal.value for proposal in models.Proposal]
    return reply(models.Capabilities, {"service": service.settings.service, "proposals": proposals})


async def get_job(job_id: JobIdPath, _: Principal, service: ServiceDep) -> JSONResponse:
    return reply(models.Job, control.job_view(service, service.job_or_404(job_id)))


async def cancel_job(job_id: JobIdPath, _: Principal, service: ServiceDep) -> Response:
    """200 with an empty body, as today (repeating it is an idempotent success)."""
    await service.cancel_job(job_id)
    return Response(status_code=200)


async def get_experiment_run(
    job_id: JobIdPath, _: Principal, service: ServiceDep, request: Request
) -> JSONResponse:
    account = getattr(request.state, "account", None)
    return reply(models.ExperimentRun, control.experiment_run(service, job_id, account))
