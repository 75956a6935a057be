"""Handler of the ``operations`` operation: today's ``/operation`` envelope."""

from __future__ import annotations

import cortex_gs_models as models
from cortex_gs_contract import OperationType
from fastapi.responses import Response

from arctic_rl_mock.dependencies import IdempotencyDep, JobIdPath, ServiceDep
from arctic_rl_mock.routers._common import accepted, open_body, reply
from arctic_rl_mock.services import envelope as operations


async def run_operation(
    job_id: JobIdPath,
    body: models.OperationRequest,
    service: ServiceDep,
    idempotency: IdempotencyDep,
) -> Response:
    """Async types answer 202 with a request id; inline ones their opaque answer."""
    data = open_body(body, "operation")
    status, out = await idempotency.run(data, operations.plan(service, job_id, data))
    if status != 200:
        return await accepted((status, out), service, job_id, None)
    page = data["operation_type"] == OperationType.tail_logs
    return reply(models.TailLogsPage if page else models.OperationAnswer, out)
