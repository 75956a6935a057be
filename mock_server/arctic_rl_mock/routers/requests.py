"""Handlers of the ``requests`` operations: poll a data-plane request, abandon an upload."""

from __future__ import annotations

from typing import Annotated

from cortex_gs_contract import CHUNK_GROUP_ID_PATTERN, CURSOR_PATTERN, REQUEST_ID_PATTERN
from fastapi import Path, Query
from fastapi.responses import Response

from arctic_rl_mock.dependencies import JobIdPath, Principal, ServiceDep
from arctic_rl_mock.routers._common import request_status


async def get_request(
    job_id: JobIdPath,
    request_id: Annotated[str, Path(pattern=REQUEST_ID_PATTERN, description="The request's id.")],
    _: Principal,
    service: ServiceDep,
    cursor: Annotated[str | None, Query(pattern=CURSOR_PATTERN, description="Page cursor.")] = None,
    max_events: Annotated[
        int, Query(ge=1, description="Most events (larger asks are capped at 512).")
    ] = 16,
    wait_s: Annotated[
        float | None, Query(ge=0, le=20, description="Long-poll seconds (proposed).")
    ] = None,
) -> Response:
    service.job_or_404(job_id)
    page = await service.pages.poll(job_id, request_id, cursor, max_events, wait_s or 0.0)
    return request_status(page)


async def abandon_chunk_group(
    job_id: JobIdPath,
    chunk_group_id: Annotated[
        str, Path(pattern=CHUNK_GROUP_ID_PATTERN, description="The upload's chunk group id.")
    ],
    _: Principal,
    service: ServiceDep,
) -> Response:
    """Proposed: drop an unfinished chunk group, freeing its room among the job's."""
    service.job_or_404(job_id)
    await service.chunks.abandon(job_id, chunk_group_id)
    return Response(status_code=204)
