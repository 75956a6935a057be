"""Small hostile servers on 127.0.0.1: each answers every request with what its ``answer``
coroutine writes (a trickle, a hang-up, a lying status, an echo), and keeps what it got.

They run on the test's own event loop; the client under test runs on its own I/O loop,
so a server that stalls never stalls the client's clock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import SecretStr

from arctic_rl._endpoint import ClientSettings, ServiceTraits
from arctic_rl._http import open_client

TOKEN = "pat-7Qm2xZ9kLw4Rt8Yb3Nc6Vd1Hf5Gj0SpUe"  # shares no 8-character run with the rest
PREFIX = "/api/v2/databases/DB/schemas/S/cortex-training"


@dataclass
class Request:
    """One request as it arrived: its request line, headers (lower-case names) and body."""

    line: str
    headers: dict[str, str]
    body: bytes

    @property
    def method(self) -> str:
        return self.line.split(" ", 1)[0]

    @property
    def path(self) -> str:
        return self.line.split(" ")[1]


# Writes the answer to one request (the n-th, from 1); returns False to hang up after it.
Answer = Callable[[Request, asyncio.StreamWriter, int], Awaitable[bool]]


def head(status: str = "200 OK", length: int = 0, *extra: str) -> bytes:
    """An answer's head: JSON, ``length`` bytes of body, and any ``extra`` header lines."""
    lines = [f"HTTP/1.1 {status}", "content-type: application/json", f"content-length: {length}"]
    lines += ["x-snowflake-request-id: hostile-rid-1", *extra]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def whole(body: bytes, status: str = "200 OK", *extra: str) -> bytes:
    return head(status, len(body), *extra) + body


@dataclass
class HostileServer:
    """``async with HostileServer(answer) as server``: ``server.base_url`` serves it."""

    answer: Answer
    requests: list[Request] = field(default_factory=list)
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    @property
    def base_url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}{PREFIX}"

    async def __aenter__(self) -> HostileServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while True:
                request = await _read(reader)
                if request is None:
                    break
                self.requests.append(request)
                if not await self.answer(request, writer, len(self.requests)):
                    break
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client hung up, or the test is over
        finally:
            self._tasks.discard(task)
            writer.close()


async def _read(reader: asyncio.StreamReader) -> Request | None:
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = raw.decode("latin-1").split("\r\n")
    headers = {
        k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)
    }
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return Request(lines[0], headers, body)


async def trickle(writer: asyncio.StreamWriter, body: bytes, every_s: float = 0.3) -> bool:
    """A 200 whose body comes one byte every ``every_s`` seconds."""
    writer.write(head("200 OK", len(body)))
    for byte in body:
        await writer.drain()
        await asyncio.sleep(every_s)
        writer.write(bytes([byte]))
    return True


def transport_client(base_url: str, *, served_idempotency: bool = False) -> Any:
    """The httpx client `open_client` builds, through the service transport."""
    traits = ServiceTraits(served_idempotency=served_idempotency)
    settings = ClientSettings(base_url, SecretStr(TOKEN), traits=traits)
    return open_client(settings).get_async_httpx_client()
