"""The contract's single ``Error`` body, for every failure the mock can produce.

Everything that goes wrong (our own checks, FastAPI validation, unknown routes, bodies
over the cap, crashes) is rendered here, so clients only ever parse one error shape and
always get the ``x-snowflake-request-id`` of the exchange in the body too.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from arctic_rl.wire import WireError

log = logging.getLogger("mock_server")

# Framework-raised errors (not ApiError): FastAPI's only own 400 is an unparseable body.
_HTTP_CODES = {
    400: "bad_json",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
    503: "unavailable",
}


class ApiError(StarletteHTTPException):
    """An error answer with a stable contract ``code``.

    Subclasses Starlette's HTTPException so FastAPI re-raises it untouched even when it
    surfaces while FastAPI reads a request body (the 413 path).
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        details: Sequence[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(status_code=status, detail=message, headers=headers)
        self.code = code
        self.message = message
        self.details = list(details) if details is not None else None


def error_body(
    code: str,
    message: str,
    request_id: str | None,
    details: Sequence[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """An ``Error`` object as a dict (also used for failed requests' ``error``)."""
    body: dict[str, Any] = {"message": message, "code": code}
    if request_id:
        body["request_id"] = request_id
    if details is not None:
        body["details"] = list(details)
    return body


def _request_id(request: Request) -> str | None:
    return getattr(request.state, "request_id", None)


def _issue(err: dict[str, Any]) -> dict[str, Any]:
    """FastAPI/pydantic error -> ValidationIssue (drops ``input``/``ctx``: may echo secrets)."""
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
    if isinstance(exc, ApiError):
        code, message, details = exc.code, exc.message, exc.details
    else:
        code = _HTTP_CODES.get(exc.status_code, "error")
        message, details = str(exc.detail), None
    return JSONResponse(
        error_body(code, message, _request_id(request), details),
        status_code=exc.status_code,
        headers=headers or None,
    )


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    if any(e.get("type") == "json_invalid" for e in errors):
        body = error_body("bad_json", "request body is not valid JSON", _request_id(request))
        return JSONResponse(body, status_code=400)
    body = error_body(
        "validation_error",
        "request validation failed",
        _request_id(request),
        [_issue(e) for e in errors],
    )
    return JSONResponse(body, status_code=422)


async def _bad_frame(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, WireError)
    return JSONResponse(error_body(exc.code, exc.message, _request_id(request)), status_code=400)


def install_error_handlers(app: FastAPI) -> None:
    """Route every failure through the Error schema (crashes: the app's middleware)."""
    app.add_exception_handler(StarletteHTTPException, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(WireError, _bad_frame)
