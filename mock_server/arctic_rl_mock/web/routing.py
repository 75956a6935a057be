"""Routes from the contract's generated table: handlers are the only hand-written part.

Each area module of :mod:`arctic_rl_mock.routers` (one per contract tag) defines one handler
per operation, named after its operation id. :func:`build_router` registers them with the
method, path, operation id, status codes, response models and binary body description
that ``cortex_gs_contract.OPERATIONS`` holds, and refuses to start when a handler is
missing, left over, or reads a JSON body other than the contract's model. What the parity
test compares is therefore read from the contract, not typed out again.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any, get_args, get_origin

import cortex_gs_models as models
from cortex_gs_contract import OPERATIONS, Operation
from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel
from starlette.convertors import Convertor, register_url_convertor


class SegmentConvertor(Convertor[str]):
    """Route-level ids (jobs, checkpoints): one path segment without ``:``.

    No ``:``, so ``/{job_id}`` never captures ``job-x:cancel`` (``GET`` there is a 405
    naming ``POST``) and ``{checkpoint_id}:export`` splits. Anything else is captured and
    left to the id pattern of the route's parameter, so an id that breaks it is a 422
    ``validation_error``, not a 404.
    """

    regex = "[^/:]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


# Path parameters captured with SegmentConvertor (the others use Starlette's default).
SEGMENT_PARAMETERS = ("job_id", "checkpoint_id")
for _name in SEGMENT_PARAMETERS:
    register_url_convertor(_name, SegmentConvertor())


def route_path(contract_path: str) -> str:
    """A contract path with the segment convertors applied (``/{job_id:job_id}/step``)."""
    for name in SEGMENT_PARAMETERS:
        contract_path = contract_path.replace(f"{{{name}}}", f"{{{name}:{name}}}")
    return contract_path


def _model(name: str | None) -> type[BaseModel] | None:
    return getattr(models, name) if name else None


def _responses(op: Operation, primary: int) -> dict[int | str, dict[str, Any]]:
    """Every documented answer but the primary one, with its model."""
    out: dict[int | str, dict[str, Any]] = {}
    for response in op.responses:
        if response.status == primary:
            continue
        model = _model(response.model)
        description = "Error" if response.status >= 400 else "Success"
        out[response.status] = {"description": description}
        if model is not None:
            out[response.status]["model"] = model
    return out


def _binary_body(op: Operation) -> dict[str, Any] | None:
    """OpenAPI of a body read from the raw stream (FastAPI cannot infer it)."""
    if op.request_media_type is None:
        return None
    media = {"schema": {"type": "string", "format": "binary"}, **dict(op.request_extensions)}
    body = {"required": True, "content": {op.request_media_type: media}}
    if op.request_description:
        body["description"] = op.request_description
    return {"requestBody": body}


def _body_models(handler: Callable[..., Any]) -> list[type[BaseModel]]:
    """The pydantic models among a handler's parameters (its JSON body, if any)."""
    found = []
    for param in inspect.signature(handler, eval_str=True).parameters.values():
        annotation = param.annotation
        if get_origin(annotation) is not None:
            annotation = get_args(annotation)[0]
        if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
            found.append(annotation)
    return found


def _check_body(op: Operation, handler: Callable[..., Any]) -> None:
    expected = [m for m in (_model(op.request_model),) if m is not None]
    if _body_models(handler) != expected:
        raise RuntimeError(
            f"handler {op.operation_id} reads {_body_models(handler)}, the contract {expected}"
        )


def add_operation(router: APIRouter, op: Operation, handler: Callable[..., Any]) -> None:
    """Register ``handler`` for ``op`` as the contract describes it."""
    _check_body(op, handler)
    # The usual answer: 202 over 200 (chunk stored, inline answer), 204 over 200 (delete).
    primary = max(op.success, key=lambda response: response.status)
    model = _model(primary.model)
    bodiless: dict[str, Any] = {} if model is not None else {"response_class": Response}
    router.add_api_route(
        route_path(op.path),
        handler,
        methods=[op.method],
        operation_id=op.operation_id,
        tags=[op.tag],
        summary=op.summary,
        status_code=primary.status,
        response_model=model,
        responses=_responses(op, primary.status),
        openapi_extra=_binary_body(op),
        **bodiless,
    )


def _handlers(area: ModuleType) -> set[str]:
    """The coroutine functions an area module defines (each must be an operation)."""
    return {
        name
        for name, value in vars(area).items()
        if inspect.iscoroutinefunction(value)
        and value.__module__ == area.__name__
        and not name.startswith("_")
    }


def build_router(
    areas: dict[str, ModuleType], prefix: str, *, with_proposals: bool = True
) -> APIRouter:
    """One router holding the contract's operations, from each tag's area module.

    Without ``with_proposals`` (today's service) a proposed route is not registered: it
    answers 404, as the live service does. Every handler must exist either way.
    """
    router = APIRouter(prefix=prefix)
    for op in OPERATIONS.values():
        handler = getattr(areas[op.tag], op.operation_id, None)
        if handler is None:
            raise RuntimeError(f"no handler for {op.operation_id} in {areas[op.tag].__name__}")
        if op.proposed and not with_proposals:
            continue
        add_operation(router, op, handler)
    for area in areas.values():
        extra = _handlers(area) - set(OPERATIONS)
        if extra:
            raise RuntimeError(f"{area.__name__} handles operations not in the contract: {extra}")
    return router
