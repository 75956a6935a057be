"""Handlers of the ``sampling`` operations: generate, generate-stream, log-probs, sync."""

from __future__ import annotations

import json

import cortex_gs_models as models
from cortex_gs_contract import ErrorCode
from fastapi import Request
from fastapi.responses import JSONResponse, Response

from arctic_rl_mock.dependencies import JobIdPath, Principal, ServiceDep
from arctic_rl_mock.errors import ApiError
from arctic_rl_mock.routers._common import (
    SubmitDep,
    binary_handler,
    open_body,
    reply,
)
from arctic_rl_mock.services import control, limits
from arctic_rl_mock.web.bodies import parse, plain
from arctic_rl_mock.web.receiving import read_body

generate = binary_handler("generate")


async def generate_stream(
    job_id: JobIdPath, _: Principal, service: ServiceDep, request: Request
) -> JSONResponse:
    """Each prompt's answer becomes a ``result``/``error`` event, then one ``done``."""
    job = service.running_job(job_id)
    raw = await read_body(request)
    try:
        data = json.loads(str(raw, "utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ApiError(400, ErrorCode.bad_json, "body is not UTF-8 JSON") from exc
    generation = open_body(parse(models.GenerateRequest, data, ("body",)), "generate-stream")
    control.check_aligned(generation)
    limits.check_request(service.settings, job, "generate_stream", generation)
    request_id = await service.submit(job_id, "generate_stream", generation)
    count = len(generation["prompts"])
    return reply(
        models.GenerateStreamAccepted,
        {"request_id": request_id, "job_id": job_id, "count": count},
        202,
    )


async def log_probs(body: models.LogProbsRequest, submit: SubmitDep) -> Response:
    data = plain(body)
    job = submit.service.running_job(submit.job_id)
    limits.check_request(submit.service.settings, job, "log_probs", data)
    return await submit("log_probs", data)


async def sync_weights(body: models.SyncWeightsRequest, submit: SubmitDep) -> Response:
    return await submit("sync_weights", plain(body))
