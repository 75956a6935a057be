"""Handlers of the ``training`` operations: forward-backward, forward-no-grad, step."""

from __future__ import annotations

import cortex_gs_models as models
from fastapi.responses import Response

from mock_server.dependencies import IdempotencyDep, JobIdPath, ServiceDep
from mock_server.routers._common import SubmitWaitS, accepted, binary_handler, open_body

forward_backward = binary_handler("forward_backward")
forward_no_grad = binary_handler("forward_no_grad")


async def step(
    job_id: JobIdPath,
    body: models.StepRequest,
    service: ServiceDep,
    idempotency: IdempotencyDep,
    wait_s: SubmitWaitS = None,
) -> Response:
    data = open_body(body, "step")
    submitted = await idempotency.run(data, service.submitter(job_id, "step", data))
    return await accepted(submitted, service, job_id, wait_s)
