"""Handlers of the ``training`` operations: forward-backward, forward-no-grad, step."""

from __future__ import annotations

import cortex_gs_models as models
from fastapi.responses import Response

from arctic_rl_mock.routers._common import SubmitDep, binary_handler, open_body

forward_backward = binary_handler("forward_backward")
forward_no_grad = binary_handler("forward_no_grad")


async def step(body: models.StepRequest, submit: SubmitDep) -> Response:
    return await submit("step", open_body(body, "step"))
