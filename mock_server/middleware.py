"""The mock's ASGI middleware: any database and schema, request ids, the body cap.

Pure ASGI (not BaseHTTPMiddleware) so bodies stream through untouched.
"""

from __future__ import annotations

import logging
import re
import uuid

from cortex_gs_contract import REQUEST_ID_HEADER, ErrorCode
from fastapi.responses import JSONResponse
from starlette.datastructures import MutableHeaders
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mock_server.errors import ApiError, error_body
from mock_server.settings import Settings

log = logging.getLogger("mock_server")

# Drain at most this much of an oversized body so the client can read its 413 cleanly.
DRAIN_LIMIT_BYTES = 256 * 1024 * 1024


class AnyDatabaseAndSchema:
    """Serve ``/api/v2/databases/{database}/schemas/{schema}/{endpoint}`` for every
    database and schema, as an account with many does.

    The path is rewritten to the mock's canonical prefix before routing, so the routes
    stay one set; the names asked for are kept in ``request.state.account``.
    """

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.canonical = settings.prefix
        self.pattern = re.compile(
            rf"^/api/v2/databases/([^/]+)/schemas/([^/]+)/{re.escape(settings.endpoint)}(?=/|$)"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = self.pattern.match(scope.get("path", "")) if scope["type"] == "http" else None
        if match:
            path = self.canonical + scope["path"][match.end() :]
            scope = {**scope, "path": path, "raw_path": path.encode()}
            scope.setdefault("state", {})["account"] = (match.group(1), match.group(2))
        await self.app(scope, receive, send)


class _Body:
    """One request's body channel: counts bytes, enforces the cap, drains leftovers."""

    def __init__(self, receive: Receive, limit: int, declared: bytes | None) -> None:
        self._receive = receive
        self.limit = limit
        self.declared_too_large = bool(declared and declared.isdigit() and int(declared) > limit)
        self.seen = 0
        self.done = False

    async def receive(self) -> Message:
        if self.declared_too_large:
            raise self._too_large()
        message = await self._receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.done = True
        self.seen += len(message.get("body", b""))
        if self.seen > self.limit:
            raise self._too_large()
        return message

    def _too_large(self) -> ApiError:
        return ApiError(
            413, ErrorCode.payload_too_large, f"request body exceeds {self.limit} bytes"
        )

    async def drain(self) -> None:
        """Discard what the client is still sending (bounded) so it can read our answer."""
        drained = 0
        while not self.done and drained < DRAIN_LIMIT_BYTES:
            message = await self._receive()
            drained += len(message.get("body", b""))
            self.done = message["type"] != "http.request" or not message.get("more_body", False)


class RequestIdAndLimitMiddleware:
    """Stamps ``x-snowflake-request-id`` on every response and caps request bodies.

    Pure ASGI (not BaseHTTPMiddleware) so bodies stream through untouched. The cap is
    enforced on the receive channel itself: a body over ``max_body_bytes`` raises the
    413 the moment the excess arrives (or at once when Content-Length declares it), for
    binary and JSON routes alike, so nothing beyond the cap is ever buffered. Before any
    answer goes out, an unread remainder of the body is drained (up to a bound) and
    discarded, so a client still writing a large body reads the answer instead of a
    broken pipe. Crashes are answered here too, so even a 500 carries the request id.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = str(uuid.uuid4())
        scope.setdefault("state", {})["request_id"] = request_id
        body = _Body(receive, self.max_body_bytes, dict(scope["headers"]).get(b"content-length"))
        started = False

        async def stamped_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                await body.drain()
                started = True
                MutableHeaders(scope=message).append(REQUEST_ID_HEADER, request_id)
            await send(message)

        try:
            await self.app(scope, body.receive, stamped_send)
        except ClientDisconnect:
            # The client hung up mid-body: nobody is left to answer, and nothing was stored.
            log.info("client went away while sending %s", scope.get("path"))
            return
        except Exception:
            log.exception("unhandled error answering %s", scope.get("path"))
            if started:
                raise
            response = JSONResponse(
                error_body(500, ErrorCode.internal_error, "internal error", request_id),
                status_code=500,
            )
            await response(scope, receive, stamped_send)
