"""Test-only: make the mock depart from the contract in chosen ways.

The contract-check kit (``arctic_rl_kit``) must find a server's departures and name the
operation; its tests prove that against this mock started with test hooks on
(``python -m devtools.mock_hooks``) and ``CORTEX_GS_MOCK_DEPART=name[,name...]`` in the
environment: the mock then deliberately breaks the contract. Departures:

``renamed-required-field``
    ``list_jobs`` answers its required ``jobs`` under another name (``items``): an extra
    field in the answer, a required one missing.
``wrong-status``
    ``get_capacity`` answers 203, a status the contract does not document.
``missing-401``
    ``get_job`` forgets to check the token: an unauthenticated call is served as if it
    carried the right one.
``failing-step``
    ``step`` answers 500 where it would have accepted the work (a full-mode flow then
    fails half-way); its refusals (401, 404, 422) stay as they are.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any

from arctic_rl_mock.settings import Settings
from cortex_gs_contract import TOKEN_TYPE, TOKEN_TYPE_HEADER
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from devtools.mock_hooks import DEPART_ENV as ENV

DEPARTURES = frozenset({"renamed-required-field", "wrong-status", "missing-401", "failing-step"})
log = logging.getLogger("arctic_rl_mock")


def requested(environ: Mapping[str, str]) -> frozenset[str]:
    """The departures named in ``$CORTEX_GS_MOCK_DEPART`` (an unknown name is an error)."""
    raw = environ.get(ENV, "")
    names = frozenset(n.strip() for n in raw.split(",") if n.strip())
    unknown = names - DEPARTURES
    if unknown:
        raise ValueError(
            f"{ENV}: unknown departures {sorted(unknown)}; known: {sorted(DEPARTURES)}"
        )
    return names


def install(app: Any, settings: Settings, names: frozenset[str]) -> None:
    """Wrap ``app`` in the departures ``names``."""
    log.warning("TEST-ONLY: this mock departs from the contract on purpose: %s", sorted(names))
    app.add_middleware(DepartingMiddleware, departures=names, settings=settings)


class DepartingMiddleware:
    """Pure ASGI: alters requests or answers of the chosen routes, passes the rest."""

    def __init__(self, app: ASGIApp, departures: frozenset[str], settings: Settings) -> None:
        self.app = app
        self.departures = departures
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.settings.prefix):
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        route = scope["path"][len(self.settings.prefix) :] or "/"
        if "failing-step" in self.departures and method == "POST" and _is(route, r"/[^/:]+/step"):
            send = _failing_when_accepted(send)
        is_get_job = _is(route, r"/[^/:]+") and route != "/capacity"
        if "missing-401" in self.departures and method == "GET" and is_get_job:
            scope = {**scope, "headers": self._authenticated(scope["headers"])}
        if "wrong-status" in self.departures and method == "GET" and route == "/capacity":
            send = _with_status(send, 203)
        if "renamed-required-field" in self.departures and method == "GET" and route == "/":
            send = _renaming(send, "jobs", "items")
        await self.app(scope, receive, send)

    def _authenticated(self, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        names = {name.lower() for name, _ in headers}
        if b"authorization" in names:
            return headers
        added = [
            (b"authorization", f"Bearer {self.settings.token}".encode()),
            (TOKEN_TYPE_HEADER.lower().encode(), TOKEN_TYPE.encode()),
        ]
        return [h for h in headers if h[0].lower() != TOKEN_TYPE_HEADER.lower().encode()] + added


def _is(route: str, pattern: str) -> bool:
    return re.fullmatch(pattern, route) is not None


def _failing_when_accepted(send: Send) -> Send:
    """A 202 (work accepted) becomes a 500 with an error body."""
    failing = False

    async def failed(message: Message) -> None:
        nonlocal failing
        if message["type"] == "http.response.start" and message["status"] == 202:
            failing = True
            raw = json.dumps({"message": "departure: step always fails", "code": 500}).encode()
            headers = [(k, v) for k, v in message["headers"] if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(raw)).encode()))
            await send({**message, "status": 500, "headers": headers})
            await send({"type": "http.response.body", "body": raw})
            return
        if not failing:
            await send(message)

    return failed


def _with_status(send: Send, status: int) -> Send:
    async def changed(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] == 200:
            message = {**message, "status": status}
        await send(message)

    return changed


def _renaming(send: Send, old: str, new: str) -> Send:
    """Buffer a 200 JSON answer and rename its top-level ``old`` key to ``new``."""
    start: Message | None = None
    body = bytearray()

    async def renamed(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            start = message
            return
        if message["type"] != "http.response.body" or start is None:
            await send(message)
            return
        body.extend(message.get("body", b""))
        if message.get("more_body", False):
            return
        raw = bytes(body)
        if start["status"] == 200:
            data = json.loads(raw)
            if isinstance(data, dict) and old in data:
                data[new] = data.pop(old)
            raw = json.dumps(data).encode()
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(raw)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": raw})

    return renamed
