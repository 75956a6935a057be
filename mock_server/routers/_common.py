"""What every area's handlers share: validated answers and open request bodies."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import cortex_gs_models as models
from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from mock_server.bodies import log_ignored, plain
from mock_server.dependencies import JobIdPath, Principal, ServiceDep, read_body

log = logging.getLogger("mock_server")


def reply(model: type[BaseModel], data: Any, status: int = 200) -> JSONResponse:
    """Validate an answer against the contract's model, then send it as built.

    Validation proves the answer fits the contract; the JSON sent is ``data`` itself, so
    fields a proto3 service leaves out stay out (the models would fill in defaults).
    """
    model.model_validate(data)
    return JSONResponse(data, status_code=status)


def accepted(status_body: tuple[int, Any]) -> JSONResponse:
    """A chunk-route or data-plane answer: 200 (chunk stored) or 202 AcceptedRequest."""
    status, body = status_body
    return reply(models.ChunkAccepted if status == 200 else models.AcceptedRequest, body, status)


def open_body(model: BaseModel, what: str) -> dict[str, Any]:
    """A validated open body as data, having logged (debug) the fields it ignores."""
    log_ignored(model, what)
    return plain(model)


def binary_handler(operation_id: str) -> Callable[..., Awaitable[JSONResponse]]:
    """The handler of a DSSST1 route: a chunk envelope or bare frame, for a running job."""

    async def handler(
        job_id: JobIdPath, _: Principal, service: ServiceDep, request: Request
    ) -> JSONResponse:
        service.running_job(job_id)
        body = await read_body(request)
        return accepted(await service.accept_body(job_id, operation_id, body))

    handler.__name__ = handler.__qualname__ = operation_id
    return handler
