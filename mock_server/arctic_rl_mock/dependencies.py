"""What every handler depends on: the caller's identity, the service, path ids, idempotency.

FastAPI resolves these per request (the bigger-applications layout), so handlers in
``arctic_rl_mock.routers`` never build or look up shared objects themselves. Patterns and
header names come from the generated contract module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from cortex_gs_contract import (
    CHECKPOINT_ID_PATTERN,
    IDEMPOTENCY_KEY_HEADER,
    IDEMPOTENCY_KEY_PATTERN,
    JOB_ID_PATTERN,
)
from fastapi import Depends, Header, Path, Request

from arctic_rl_mock.services.mock_service import MockService


async def get_service(request: Request) -> MockService:
    """The app's service (business rules, store, worker).

    ``async`` (like every dependency here) only so FastAPI calls it on the event loop:
    a plain ``def`` dependency is run in the thread pool, a hop per request that cost
    the mock about a fifth of its throughput under load.
    """
    service: MockService = request.app.state.service
    return service


ServiceDep = Annotated[MockService, Depends(get_service)]


async def authenticate(request: Request) -> str:
    """The caller's principal id (a digest, never the token).

    The token itself is checked by :class:`arctic_rl_mock.web.middleware.RequestGuard` before
    routing, so no body is read for a caller without one (and the OpenAPI document
    states the requirement once, in :mod:`arctic_rl_mock.web.openapi`).
    """
    principal: str = request.state.principal
    return principal


Principal = Annotated[str, Depends(authenticate)]
JobIdPath = Annotated[str, Path(pattern=JOB_ID_PATTERN, description="The job's id.")]
CheckpointIdPath = Annotated[
    str, Path(pattern=CHECKPOINT_ID_PATTERN, description="The checkpoint's id.")
]
Runner = Callable[[], Awaitable[tuple[int, Any]]]


@dataclass(frozen=True)
class Idempotency:
    """The ``Idempotency-Key`` promise of one call, scoped to its caller, method and path."""

    service: MockService
    scope: str
    key: str | None

    async def run(self, body: Any, runner: Runner) -> tuple[int, Any]:
        """Run ``runner`` once per key and body; a repeat answers the first success."""
        return await self.service.idempotent(self.scope, self.key, body, runner)


async def idempotency(
    service: ServiceDep,
    principal: Principal,
    request: Request,
    key: Annotated[
        str | None,
        Header(
            alias=IDEMPOTENCY_KEY_HEADER,
            pattern=IDEMPOTENCY_KEY_PATTERN,
            description="Idempotency key.",
        ),
    ] = None,
) -> Idempotency:
    """Only the operations that take the header depend on this (the contract says which)."""
    return Idempotency(service, f"{principal}|{request.method} {request.url.path}", key)


IdempotencyDep = Annotated[Idempotency, Depends(idempotency)]
