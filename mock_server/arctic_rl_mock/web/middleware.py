"""The mock's ASGI middleware: any database and schema; then, before routing, request
ids, authentication, and the body's size and pace.

Pure ASGI (not BaseHTTPMiddleware) so bodies stream through untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import re
import uuid
from collections.abc import Callable

from cortex_gs_contract import (
    REQUEST_ID_HEADER,
    RETRY_AFTER_HEADER,
    TOKEN_TYPE,
    TOKEN_TYPE_HEADER,
    ErrorCode,
)
from fastapi.responses import JSONResponse
from starlette.datastructures import MutableHeaders
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arctic_rl_mock.errors import ApiError, error_body
from arctic_rl_mock.services.exports import FILES_PATH
from arctic_rl_mock.settings import Settings
from arctic_rl_mock.web import disk_errors
from arctic_rl_mock.web.server import ServerSettings, ThrottledLog, out_of_resources

log = logging.getLogger("arctic_rl_mock")

TOKEN_TYPE_KEY = TOKEN_TYPE_HEADER.lower().encode()
TOKEN_TYPE_VALUE = TOKEN_TYPE.encode()
# The signed export links are their own credential (see arctic_rl_mock.services.exports).
SIGNED_PATH_PREFIX = FILES_PATH + "/"

# Drain at most this much of an oversized body so the client can read its 413 cleanly.
DRAIN_LIMIT_BYTES = 256 * 1024 * 1024
# What a refused caller (no valid token) may still be sending is discarded up to this
# much, for this long, so a small body's client reads its 401; a larger body is cut.
LINGER_BYTES = 1024 * 1024
LINGER_S = 1.0


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


class _BodyTimeout(Exception):
    """The client stopped sending its body, or sends it too slowly to be worth waiting for."""


class _Body:
    """One request's body channel: counts bytes, enforces the cap and the pace, drains.

    The pace rule counts only time spent waiting inside ``receive`` (while the app wants
    the body), so a handler that reads late never makes the client look slow: a wait may
    last at most ``body_idle_timeout_s``, and all waits together at most ``body_grace_s``
    plus one second per ``body_min_rate`` bytes received (the ``ServerSettings``).
    """

    def __init__(
        self,
        receive: Receive,
        limit: int,
        declared: bytes | None,
        server: ServerSettings,
        on_timeout: Callable[[str], None],
        has_body: bool,
    ) -> None:
        self._receive = receive
        self.limit = limit
        self.declared_too_large = bool(declared and declared.isdigit() and int(declared) > limit)
        self.server = server
        self.on_timeout = on_timeout
        self.seen = 0
        self.waited_s = 0.0
        self.done = not has_body  # nothing to pace or drain: one empty message, untimed
        self.timed_out = False

    async def receive(self) -> Message:
        if self.declared_too_large:
            raise self._too_large()
        if self.done:  # the body is in: what remains is waiting for a disconnect, untimed
            return await self._receive()
        try:
            message = await self._paced_receive()
        except _BodyTimeout as exc:
            raise ApiError(
                408, ErrorCode.request_timeout, str(exc), headers={"Connection": "close"}
            ) from None
        if self.seen > self.limit:
            raise self._too_large()
        return message

    async def _paced_receive(self) -> Message:
        server = self.server
        allowance = server.body_grace_s + self.seen / server.body_min_rate - self.waited_s
        wait_s = max(0.0, min(server.body_idle_timeout_s, allowance))
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            async with asyncio.timeout(wait_s):
                message = await self._receive()
        except TimeoutError:
            self.timed_out = True
            reason = (
                f"request body stalled for {server.body_idle_timeout_s} s"
                if wait_s >= server.body_idle_timeout_s
                else f"request body slower than {server.body_min_rate:.0f} bytes/s"
            )
            reason = f"{reason} ({self.seen} bytes received)"
            self.on_timeout(reason)
            raise _BodyTimeout(reason) from None
        finally:
            self.waited_s += loop.time() - started
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.done = True
        self.seen += len(message.get("body", b""))
        return message

    def _too_large(self) -> ApiError:
        return ApiError(
            413, ErrorCode.payload_too_large, f"request body exceeds {self.limit} bytes"
        )

    async def drain(self) -> None:
        """Discard what the client is still sending (bounded, paced) so it can read our answer."""
        drained_from = self.seen
        try:
            while (
                not (self.done or self.timed_out) and self.seen - drained_from < DRAIN_LIMIT_BYTES
            ):
                await self._paced_receive()
        except _BodyTimeout:
            return


class RequestGuard:
    """Before routing, for every request: a request id, the token, the body's size and pace.

    Pure ASGI (not BaseHTTPMiddleware) so bodies stream through untouched.

    - Every response carries ``x-snowflake-request-id``; crashes are answered here too,
      so even a 500 carries it (a full or failing disk, or a process out of descriptors,
      is answered 507 or 503 with Retry-After instead, logged once per interval).
    - A request with more than one ``Authorization`` header is refused (400
      ``duplicate_authorization``) before anything else.
    - Authentication comes first, before any body is read or any route is matched: docs,
      the OpenAPI document, 404s and 405s ask for the token like every operation (unless
      ``settings.auth`` is off). The 401 of a request that has a body is sent before
      any of it is read and closes the connection (see :meth:`_refuse`). Only the signed
      export links (``FILES_PATH``) are exempt: their signature is the credential.
    - The body cap is enforced on the receive channel itself: a body over
      ``max_body_bytes`` raises the 413 the moment the excess arrives (or at once when
      Content-Length declares it), so nothing beyond the cap is ever buffered.
    - The body's pace (see :class:`_Body`): a body that stalls or trickles is answered 408
      and the connection closed, with one log line (throttled) saying why.
    - Before any answer goes out, an unread remainder of the body is drained (bounded and
      paced) and discarded, so a client still writing a large body reads the answer
      instead of a broken pipe; what cannot be drained closes the connection.
    """

    def __init__(
        self,
        app: ASGIApp,
        settings: Settings,
        server: ServerSettings,
        storage_faults: disk_errors.StorageFaults,
    ) -> None:
        self.app = app
        self.settings = settings
        self.server = server
        self.storage_faults = storage_faults
        self.expected_token = (settings.token or "").encode()
        self.expected_principal = hashlib.sha256(self.expected_token).hexdigest()[:16]
        self.slow_body_log = ThrottledLog(log, server.log_interval_s)
        self.resource_log = ThrottledLog(log, server.log_interval_s)

    def principal(self, headers: dict[bytes, bytes]) -> str:
        """Who is calling (a digest of the token, never the token); 401 if nobody valid."""
        if not self.settings.auth:
            return "anonymous"
        scheme, _, given = headers.get(b"authorization", b"").partition(b" ")
        bearer = scheme.lower() == b"bearer" and bool(self.expected_token)
        if not (bearer and hmac.compare_digest(given.strip(), self.expected_token)):
            raise ApiError(401, ErrorCode.unauthorized, "missing or invalid bearer token")
        if headers.get(TOKEN_TYPE_KEY) != TOKEN_TYPE_VALUE:
            raise ApiError(401, ErrorCode.unauthorized, f"{TOKEN_TYPE_HEADER} must be {TOKEN_TYPE}")
        return self.expected_principal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = str(uuid.uuid4())
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        headers = dict(scope["headers"])
        has_body = _has_body(headers)
        try:
            _one_authorization(scope["headers"], len(headers))
            if not scope["path"].startswith(SIGNED_PATH_PREFIX):
                state["principal"] = self.principal(headers)
        except ApiError as refused:
            await self._refuse(scope, receive, send, refused, request_id, has_body)
            return
        body = _Body(
            receive,
            self.settings.body_limit(scope["path"]),
            headers.get(b"content-length"),
            self.server,
            lambda reason: self.slow_body_log.warning(
                "dropped %s %s from %s: %s", scope["method"], scope["path"], _peer(scope), reason
            ),
            has_body,
        )
        started = False

        async def stamped_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                await body.drain()
                started = True
                outgoing = MutableHeaders(scope=message)
                outgoing.append(REQUEST_ID_HEADER, request_id)
                if not body.done:  # what is left unread would be read as the next request
                    outgoing["connection"] = "close"
            await send(message)

        try:
            await self.app(scope, body.receive, stamped_send)
        except ClientDisconnect:
            # The client hung up mid-body: nobody is left to answer, and nothing was stored.
            log.info("client went away while sending %s", scope.get("path"))
            return
        except Exception as exc:
            fault = self._known_fault(exc)
            if fault is None:
                log.exception("unhandled error answering %s", scope.get("path"))
            if started:
                raise
            await _crash_answer(fault, request_id)(scope, receive, stamped_send)

    def _known_fault(self, exc: Exception) -> ApiError | None:
        """The answer for a fault that is no bug (storage, descriptors); None for a bug."""
        if out_of_resources(exc):
            self.resource_log.warning("out of resources answering a request: %s", exc)
            return ApiError(
                503,
                ErrorCode.unavailable,
                "the server is out of resources; retry shortly",
                headers={RETRY_AFTER_HEADER: "1"},
            )
        return self.storage_faults.answer(exc)

    async def _refuse(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        refused: ApiError,
        request_id: str,
        has_body: bool,
    ) -> None:
        """Answer ``refused`` before reading any body; then close if the request has one.

        The answer goes out first. A client that writes its whole body before reading
        (most do) would then meet a reset instead of the answer, so what it is still
        sending is discarded for a moment (at most ``LINGER_BYTES`` and ``LINGER_S``):
        a small body ends cleanly, a large one is cut without being read.
        """
        response = JSONResponse(
            error_body(refused.status_code, refused.code, refused.message, request_id),
            status_code=refused.status_code,
            headers={
                REQUEST_ID_HEADER: request_id,
                **({"connection": "close"} if has_body else {}),
            },
        )
        if not has_body:
            await response(scope, receive, send)
            return
        start = {"type": "http.response.start", "status": response.status_code}
        await send({**start, "headers": response.raw_headers})
        await send({"type": "http.response.body", "body": response.body, "more_body": True})
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(LINGER_S):
                discarded = 0
                while discarded < LINGER_BYTES:
                    message = await receive()
                    discarded += len(message.get("body", b""))
                    if message["type"] != "http.request" or not message.get("more_body"):
                        break
        await send({"type": "http.response.body", "body": b""})


def _one_authorization(headers: list[tuple[bytes, bytes]], distinct: int) -> None:
    """Refuse a request with more than one ``Authorization`` header (400): which of them
    would count must never depend on a proxy's header order. ``distinct`` is how many
    header names the request has: fewer than headers means a name repeats."""
    if distinct == len(headers):
        return
    if sum(1 for name, _ in headers if name == b"authorization") > 1:
        raise ApiError(
            400,
            ErrorCode.duplicate_authorization,
            "the request carries more than one Authorization header",
        )


def _crash_answer(fault: ApiError | None, request_id: str) -> JSONResponse:
    """What an unhandled error is answered with: a storage fault's own answer, else 500."""
    if fault is None:
        body = error_body(500, ErrorCode.internal_error, "internal error", request_id)
        return JSONResponse(body, status_code=500)
    body = error_body(fault.status_code, fault.code, fault.message, request_id)
    return JSONResponse(body, status_code=fault.status_code, headers=fault.headers)


def _has_body(headers: dict[bytes, bytes]) -> bool:
    return headers.get(b"content-length", b"0") != b"0" or b"transfer-encoding" in headers


def _peer(scope: Scope) -> str:
    client = scope.get("client")
    return f"{client[0]}:{client[1]}" if client else "a client"
