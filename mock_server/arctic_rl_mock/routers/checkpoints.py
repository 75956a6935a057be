"""Handlers of the ``checkpoints`` operations (export links are served by ``files``)."""

from __future__ import annotations

import cortex_gs_models as models
from fastapi import Request
from fastapi.responses import JSONResponse, Response

from arctic_rl_mock.dependencies import (
    CheckpointIdPath,
    JobIdPath,
    Principal,
    ServiceDep,
)
from arctic_rl_mock.routers._common import SubmitDep, open_body, reply
from arctic_rl_mock.services import control


async def list_checkpoints(job_id: JobIdPath, _: Principal, service: ServiceDep) -> JSONResponse:
    items = await control.list_checkpoints(service, job_id)
    return reply(models.CheckpointList, {"checkpoints": items})


async def delete_checkpoint(
    job_id: JobIdPath, checkpoint_id: CheckpointIdPath, _: Principal, service: ServiceDep
) -> Response:
    await control.delete_checkpoint(service, job_id, checkpoint_id)
    return Response(status_code=204)


async def export_checkpoint(
    job_id: JobIdPath,
    checkpoint_id: CheckpointIdPath,
    _: Principal,
    service: ServiceDep,
    request: Request,
) -> JSONResponse:
    """Short-lived links to each file of the checkpoint (no body in, none needed)."""
    exported = await control.export_checkpoint(
        service, job_id, checkpoint_id, str(request.base_url)
    )
    return reply(models.CheckpointExport, exported)


async def save_checkpoint(body: models.SaveRequest, submit: SubmitDep) -> Response:
    """The result's ``checkpoint_id`` is the server's; a caller's one is not used."""
    return await submit("save_checkpoint", open_body(body, "save"))


async def load_checkpoint(body: models.LoadRequest, submit: SubmitDep) -> Response:
    """400 for a target outside the job, 501 for a non-training target, 404 when the
    checkpoint is missing."""
    data = open_body(body, "load")
    await control.check_load(submit.service, submit.job_id, data)
    return await submit("load_checkpoint", data)
