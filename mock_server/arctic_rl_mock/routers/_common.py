"""What every area's handlers share: validated answers, open request bodies, submits."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

import cortex_gs_models as models
from fastapi import Depends, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from arctic_rl_mock.dependencies import (
    Idempotency,
    IdempotencyDep,
    JobIdPath,
    Principal,
    ServiceDep,
)
from arctic_rl_mock.services.control import iso
from arctic_rl_mock.services.mock_service import MockService
from arctic_rl_mock.services.pages import Page
from arctic_rl_mock.web.bodies import log_ignored, plain
from arctic_rl_mock.web.receiving import read_body

log = logging.getLogger("arctic_rl_mock")


def reply(model: type[BaseModel], data: Any, status: int = 200) -> JSONResponse:
    """Validate an answer against the contract's model, then send it as built.

    Validation proves the answer fits the contract; the JSON sent is ``data`` itself, so
    fields a proto3 service leaves out stay out (the models would fill in defaults).
    """
    model.model_validate(data)
    return JSONResponse(data, status_code=status)


# The proposed ``wait_s`` of a submit: how long to hold its answer for the request to end.
SubmitWaitS = Annotated[
    float | None, Query(ge=0, le=20, description="Seconds to hold the answer (proposed).")
]
# A finished submit's page holds as many events as a poll without ``max_events``.
FIRST_PAGE_EVENTS = 16


def request_status(page: Page) -> Response:
    """A poll page as its 200 RequestStatus (store timestamps as ISO 8601).

    The page's own fields are validated here; its result and events were validated once,
    when the worker stored them, and go out as stored.
    """
    fields = page.fields
    fields["created_at"] = iso(fields["created_at"])
    fields["updated_at"] = iso(fields["updated_at"])
    if "started_at" in fields:
        fields["started_at"] = iso(fields["started_at"])
    models.RequestStatus.model_validate(fields)
    return Response(page.body(), media_type="application/json")


async def accepted(
    status_body: tuple[int, Any], service: MockService, job_id: str, wait_s: float | None
) -> Response:
    """A chunk-route or data-plane answer: 200 (chunk stored) or 202 AcceptedRequest, or,
    with ``wait_s``, 200 RequestStatus when the accepted request ends within it (a
    proposal: today's service ignores it)."""
    status, body = status_body
    if status == 202 and wait_s and service.settings.serves_proposals:
        request_id = body["request_id"]
        page = await service.pages.finished_page(job_id, request_id, wait_s, FIRST_PAGE_EVENTS)
        if page is not None:
            return request_status(page)
    return reply(models.ChunkAccepted if status == 200 else models.AcceptedRequest, body, status)


@dataclass(frozen=True)
class Submit:
    """A JSON data-plane submit: its job, the service, its ``Idempotency-Key``, ``wait_s``."""

    job_id: str
    service: MockService
    idempotency: Idempotency
    wait_s: float | None

    async def __call__(self, kind: str, data: dict[str, Any]) -> Response:
        """Queue a request of ``kind`` once its job runs (once per key); its answer."""
        runner = self.service.submitter(self.job_id, kind, data)
        submitted = await self.idempotency.run(data, runner)
        return await accepted(submitted, self.service, self.job_id, self.wait_s)


async def _submit(
    job_id: JobIdPath,
    service: ServiceDep,
    idempotency: IdempotencyDep,
    wait_s: SubmitWaitS = None,
) -> Submit:
    return Submit(job_id, service, idempotency, wait_s)


SubmitDep = Annotated[Submit, Depends(_submit)]


def open_body(model: BaseModel, what: str) -> dict[str, Any]:
    """A validated open body as data, having logged (debug) the fields it ignores."""
    log_ignored(model, what)
    return plain(model)


def binary_handler(operation_id: str) -> Callable[..., Awaitable[Response]]:
    """The handler of a DSSST1 route: a chunk envelope or bare frame, for a running job."""

    async def handler(
        job_id: JobIdPath,
        _: Principal,
        service: ServiceDep,
        request: Request,
        wait_s: SubmitWaitS = None,
    ) -> Response:
        service.running_job(job_id)
        body = await read_body(request)
        return await accepted(
            await service.accept_body(job_id, operation_id, body), service, job_id, wait_s
        )

    handler.__name__ = handler.__qualname__ = operation_id
    return handler
