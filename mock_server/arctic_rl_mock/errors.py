"""Error bodies as today's service sends them, for every failure the mock can produce.

Today's service answers ``{"message": str, "code": <HTTP status as an integer>}``, or
FastAPI's ``{"detail": [{"loc", "msg", "type"}]}`` when a request fails validation.
The three chunk-group 409s keep their documented string codes
(``chunk_group_restart_required`` / ``_conflict`` / ``_missing_chunks``), since today's
clients branch on them. On top, every body carries two proposed fields that never
narrow what today's clients read: ``error_code`` (a stable machine-readable string) and
``request_id`` (the ``x-snowflake-request-id`` of the exchange).

Everything that goes wrong (our own checks, FastAPI validation, unknown routes, bodies
over the cap, crashes) is rendered here, so there is one place that decides the shape.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from cortex_gs_contract import ErrorCode
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from arctic_rl.wire import WireError

log = logging.getLogger("arctic_rl_mock")

CHUNK_GROUP_CODES = frozenset(
    {
        ErrorCode.chunk_group_restart_required,
        ErrorCode.chunk_group_conflict,
        ErrorCode.chunk_group_missing_chunks,
    }
)

# Framework-raised errors (not ApiError): FastAPI's only own 400 is an unparseable body.
_HTTP_CODES = {
    400: ErrorCode.bad_json,
    401: ErrorCode.unauthorized,
    404: ErrorCode.not_found,
    405: ErrorCode.method_not_allowed,
    413: ErrorCode.payload_too_large,
    422: ErrorCode.validation_error,
    429: ErrorCode.rate_limited,
    503: ErrorCode.unavailable,
}


class ApiError(StarletteHTTPException):
    """An error answer: HTTP status, the proposed string ``code``, a message.

    Subclasses Starlette's HTTPException so FastAPI re-raises it untouched even when it
    surfaces while FastAPI reads a request body (the 413 path). ``fields`` are extra
    top-level keys of the body (``chunk_group_id`` on chunk-group errors).
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        details: Sequence[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
        fields: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(status_code=status, detail=message, headers=headers)
        self.code = code
        self.message = message
        self.details = list(details) if details is not None else None
        self.fields = dict(fields or {})


def error_body(
    status: int,
    code: str,
    message: str,
    request_id: str | None,
    details: Sequence[dict[str, Any]] | None = None,
    fields: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An error body as a dict: integer ``code`` (string for chunk-group 409s)."""
    body: dict[str, Any] = {
        "message": message,
        "code": code if code in CHUNK_GROUP_CODES else status,
        **(fields or {}),
        "error_code": code,
    }
    if request_id:
        body["request_id"] = request_id
    if details is not None:
        body["details"] = list(details)
    return body


def validation_body(
    issues: Sequence[dict[str, Any]], request_id: str | None, message: str
) -> dict[str, Any]:
    """A 422 as FastAPI sends it (``detail``), plus ``message``/``code`` like other errors."""
    return {
        "detail": list(issues),
        **error_body(422, ErrorCode.validation_error, message, request_id),
    }


def request_error(code: str, message: str) -> dict[str, str]:
    """What the store keeps for a failed request (rendered as a string when polled)."""
    return {"code": code, "message": message}


def _request_id(request: Request) -> str | None:
    return getattr(request.state, "request_id", None)


def _issue(err: dict[str, Any]) -> dict[str, Any]:
    """FastAPI/pydantic error -> one ``detail`` item (drops ``input``/``ctx``: may echo secrets)."""
    loc = [p if isinstance(p, int | str) else str(p) for p in err.get("loc", ())]
    return {"loc": loc, "msg": str(err.get("msg", "")), "type": str(err.get("type", ""))}


def allowed_methods(request: Request) -> list[str]:
    """Methods of every documented route whose path matches this one.

    Starlette's own 405 names only the first partially matching route (``GET`` alone for
    ``/`` although ``POST`` is there too), which misreports ``Allow``.
    """
    methods: set[str] = set()
    for route in getattr(request.app.state, "api_routes", ()):
        if not isinstance(route, APIRoute) or not route.include_in_schema:
            continue
        match, _ = route.matches(request.scope)
        if match != Match.NONE:
            methods |= route.methods or set()
    return sorted(methods)


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        headers["Allow"] = ", ".join(allowed_methods(request))
    request_id = _request_id(request)
    if isinstance(exc, ApiError) and exc.code == ErrorCode.validation_error:
        body = validation_body(exc.details or [], request_id, exc.message)
    elif isinstance(exc, ApiError):
        body = error_body(
            exc.status_code, exc.code, exc.message, request_id, exc.details, exc.fields
        )
    else:
        code = _HTTP_CODES.get(exc.status_code, ErrorCode.internal_error)
        body = error_body(exc.status_code, code, str(exc.detail), request_id)
    return JSONResponse(body, status_code=exc.status_code, headers=headers or None)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    request_id = _request_id(request)
    if any(e.get("type") == "json_invalid" for e in errors):
        body = error_body(400, ErrorCode.bad_json, "request body is not valid JSON", request_id)
        return JSONResponse(body, status_code=400)
    issues = [_issue(e) for e in errors]
    return JSONResponse(
        validation_body(issues, request_id, "request validation failed"), status_code=422
    )


async def _bad_frame(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, WireError)
    body = error_body(400, exc.code, exc.message, _request_id(request))
    return JSONResponse(body, status_code=400)


def install_error_handlers(app: FastAPI) -> None:
    """Route every failure through one of today's two error shapes (crashes: the middleware)."""
    app.add_exception_handler(StarletteHTTPException, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(WireError, _bad_frame)
