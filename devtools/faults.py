"""A fault-injecting HTTP/1.1 proxy on 127.0.0.1, shared by the client and fault tests.

It reads each request whole (head and body, Content-Length or chunked), then applies the
first armed :class:`Fault` whose ``marker`` occurs in the request head:

- ``cut_request``: forward only ``at`` bytes, counted from the start of the marked
  request and on through later requests of the same keep-alive connection, then drop
  both connections (the server sees a truncated upload);
- ``cut_response``: forward the request, deliver only the first ``at`` bytes of the
  answer, then drop (the server did the work; the client never hears);
- ``delay``: hold the request ``seconds`` before forwarding it;
- ``stall``: forward, then hold the answer ``seconds`` (past a client's read timeout);
- ``status``: answer ``status`` (503, 429, ...) with today's error body and
  ``Retry-After`` itself, never reaching the server;
- ``swallow``: answer ``200 {}`` itself, never reaching the server (a request the path in
  between acknowledged and lost).

A fault lets ``skip`` matching requests through first and then hits ``times`` of them;
everything else passes untouched, so a retrying client can finish. Requests are only
ever forwarded byte for byte.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
from dataclasses import dataclass, field
from typing import Literal

Action = Literal["cut_request", "cut_response", "delay", "stall", "status", "swallow"]
REASONS = {
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
    507: "Insufficient Storage",
}
CODES = {429: "rate_limited", 500: "internal_error", 503: "unavailable", 507: "storage_full"}
_ids = itertools.count(1)
SWALLOWED = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"


@dataclass
class Fault:
    """One planned misbehaviour (see the module docstring)."""

    marker: bytes
    action: Action
    at: int = 0
    seconds: float = 0.0
    status: int = 503
    retry_after: float | None = 0
    skip: int = 0
    times: float = 1
    seen: int = field(default=0, init=False)
    hits: int = field(default=0, init=False)

    def claims(self, head: bytes) -> bool:
        """Count a request whose head carries the marker; True when this one is hit."""
        if self.marker not in head:
            return False
        self.seen += 1
        if self.seen <= self.skip or self.hits >= self.times:
            return False
        self.hits += 1
        return True


async def read_message(reader: asyncio.StreamReader) -> tuple[bytes, bytes] | None:
    """One HTTP/1.1 message as raw (head, body) bytes; None at a clean end of stream."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    if "content-length" in headers:
        return head, await reader.readexactly(int(headers["content-length"]))
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            body += size_line
            size = int(size_line.split(b";")[0], 16)
            body += await reader.readexactly(size + 2)
            if size == 0:
                return head, bytes(body)
    return head, b""


def error_response(status: int, retry_after: float | None) -> bytes:
    """What a gateway in front of Cortex answers when it sheds load."""
    request_id = f"proxy-{next(_ids)}"
    body = json.dumps(  # today's error shape, with the proposed string code beside it
        {
            "message": "injected by the fault proxy",
            "code": status,
            "error_code": CODES.get(status, "internal_error"),
            "request_id": request_id,
        }
    ).encode()
    lines = [
        f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}",
        "content-type: application/json",
        f"content-length: {len(body)}",
        f"x-snowflake-request-id: {request_id}",
        "connection: close",
    ]
    if retry_after is not None:
        lines.append(f"retry-after: {math.ceil(retry_after)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@dataclass
class _Upstream:
    """The server side of one proxied connection, opened on first use.

    ``cut_in`` counts down the request bytes still allowed through once a
    ``cut_request`` fault armed this connection (None: not armed).
    """

    port: int
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    cut_in: int | None = None

    async def open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self.reader is None or self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        return self.reader, self.writer


class FaultProxy:
    """``async with FaultProxy(port, Fault(...), ...) as proxy:`` -- then use ``proxy.port``."""

    def __init__(self, target_port: int, *faults: Fault) -> None:
        self.target_port = target_port
        self.faults = list(faults)
        self.port = 0
        self.forwarded: list[bytes] = []  # request lines that reached the server
        self.in_flight = 0  # requests read but not yet answered or dropped
        self._server: asyncio.Server | None = None

    @property
    def hits(self) -> int:
        """Faults applied so far, over all faults."""
        return sum(f.hits for f in self.faults)

    async def __aenter__(self) -> FaultProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 2)

    async def idle(self, timeout: float = 30.0) -> None:
        """Wait until no request is held (a delayed one may still reach the server)."""
        for _ in range(int(timeout / 0.01)):
            if self.in_flight == 0:
                return
            await asyncio.sleep(0.01)
        raise TimeoutError("the fault proxy still holds a request")

    def url(self, base_url: str, real_port: int) -> str:
        """``base_url`` of the real server, rewritten to go through this proxy."""
        return base_url.replace(f":{real_port}", f":{self.port}", 1)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream = _Upstream(self.target_port)
        try:
            while (request := await read_message(reader)) is not None:
                self.in_flight += 1
                try:
                    if not await self._exchange(*request, writer, upstream):
                        return
                finally:
                    self.in_flight -= 1
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            for w in (writer, upstream.writer):
                if w is not None:
                    with contextlib.suppress(Exception):
                        w.transport.abort()

    async def _exchange(
        self, head: bytes, body: bytes, writer: asyncio.StreamWriter, upstream: _Upstream
    ) -> bool:
        """Relay one request and its answer, or misbehave; False ends the connection."""
        fault = next((f for f in self.faults if f.claims(head)), None)
        action = fault.action if fault is not None else None
        if fault is not None and action == "status":
            writer.write(error_response(fault.status, fault.retry_after))
            await writer.drain()
            return False
        if fault is not None and action == "swallow":
            writer.write(SWALLOWED)
            await writer.drain()
            return True
        if fault is not None and action == "delay":
            await asyncio.sleep(fault.seconds)
        up_reader, up_writer = await upstream.open()
        data = head + body
        if fault is not None and action == "cut_request":
            upstream.cut_in = fault.at
        if upstream.cut_in is not None:
            if len(data) > upstream.cut_in:
                up_writer.write(data[: upstream.cut_in])
                await up_writer.drain()
                await asyncio.sleep(0.05)  # let the server read the partial request
                return False
            upstream.cut_in -= len(data)  # the cut lands in a later request on this connection
        up_writer.write(data)
        await up_writer.drain()
        self.forwarded.append(head.split(b"\r\n", 1)[0])
        response = await read_message(up_reader)
        if response is None:
            return False
        answer = response[0] + response[1]
        if fault is not None and action == "cut_response":
            writer.write(answer[: fault.at])
            await writer.drain()
            return False
        if fault is not None and action == "stall":
            await asyncio.sleep(fault.seconds)
        writer.write(answer)
        await writer.drain()
        return True
