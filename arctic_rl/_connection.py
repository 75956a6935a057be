"""A lean HTTP/1.1 keep-alive transport on asyncio streams: the client's path to the service.

Why not httpx's own transport (httpcore): on the hot path every request paid about a
millisecond there (anyio locks, a failed `sniffio` import on each request when that
package is absent, h11's event machinery), as much as the mock's whole work for a small
step. The client talks to one origin with small JSON requests and DSSST1 chunks of known
length, so a direct implementation is short: one request per connection at a time,
idle connections kept for reuse, Content-Length or chunked bodies both ways.

httpx stays the API (the generated client builds `httpx.Request`s and reads
`httpx.Response`s) and the fallback: a proxy named by the environment is reached through
httpx's transport (`_http.open_client` decides). Failures are raised as httpx's own
exception types, so the HTTP seam's retry rules read them unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

__all__ = ["Http11Transport"]

READ_PIECE = 1 << 20  # largest piece of a body handed on at once; also the head's limit
MAX_IDLE_CONNECTIONS = 8
_NO_BODY_STATUSES = frozenset({204, 304})


class _Connection:
    """One TCP (or TLS) connection; answers one request at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.reusable = True

    @property
    def usable(self) -> bool:
        """Still open at both ends (the server may have closed an idle connection)."""
        return not (self.writer.is_closing() or self.reader.at_eof())

    def close(self) -> None:
        self.reusable = False
        self.writer.close()


class _Body(httpx.AsyncByteStream):
    """An answer's body read from its connection, which goes back to the pool when done."""

    def __init__(
        self, transport: Http11Transport, key: tuple[str, str, int], conn: _Connection,
        pieces: AsyncIterator[bytes], read_timeout: float | None,
    ) -> None:  # fmt: skip
        self._transport = transport
        self._key = key
        self._conn = conn
        self._pieces = pieces
        self._timeout = read_timeout
        self._done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            with _mapped(httpx.ReadTimeout, httpx.ReadError):
                async with asyncio.timeout(self._timeout):
                    piece = await anext(self._pieces, None)
            if piece is None:
                break
            yield piece
        self._done = True

    async def aclose(self) -> None:
        conn, self._conn = self._conn, None  # type: ignore[assignment]
        if conn is None:
            return
        if self._done and conn.reusable:
            self._transport._release(self._key, conn)
        else:
            conn.close()


class Http11Transport(httpx.AsyncBaseTransport):
    """HTTP/1.1 over asyncio streams, keeping idle connections per origin for reuse."""

    def __init__(self, *, verify_tls: bool = True) -> None:
        self._verify_tls = verify_tls
        self._ssl: ssl.SSLContext | None = None
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._closed = False

    def __repr__(self) -> str:
        return f"Http11Transport(idle={sum(map(len, self._idle.values()))})"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        key = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))
        timeouts = request.extensions.get("timeout") or {}
        # No resend here on a failure, even on a reused connection: the server may have
        # done the work; the HTTP seam decides, within its retry budget.
        conn = self._take_idle(key) or await self._connect(key, timeouts.get("connect"))
        return await self._exchange(key, conn, request, timeouts)

    async def aclose(self) -> None:
        self._closed = True
        for conns in self._idle.values():
            for conn in conns:
                conn.close()
        self._idle.clear()

    # -- connections ---------------------------------------------------------------------

    def _take_idle(self, key: tuple[str, str, int]) -> _Connection | None:
        conns = self._idle.get(key)
        while conns:
            conn = conns.pop()
            if conn.usable:
                return conn
            conn.close()
        return None

    def _release(self, key: tuple[str, str, int], conn: _Connection) -> None:
        conns = self._idle.setdefault(key, [])
        if not self._closed and len(conns) < MAX_IDLE_CONNECTIONS and conn.usable:
            conns.append(conn)
        else:
            conn.close()

    async def _connect(self, key: tuple[str, str, int], timeout: float | None) -> _Connection:
        scheme, host, port = key
        tls = self._tls_context() if scheme == "https" else None
        with _mapped(httpx.ConnectTimeout, httpx.ConnectError):
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=tls, server_hostname=host if tls else None, limit=READ_PIECE
                )
        return _Connection(reader, writer)

    def _tls_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = httpx.create_ssl_context(verify=self._verify_tls)
        return self._ssl

    # -- one exchange --------------------------------------------------------------------

    async def _exchange(
        self,
        key: tuple[str, str, int],
        conn: _Connection,
        request: httpx.Request,
        timeouts: dict[str, float | None],
    ) -> httpx.Response:
        try:
            await _send(conn, request, timeouts.get("write"))
            status, reason, headers = await _read_head(conn, timeouts.get("read"))
            pieces = _body_pieces(conn, request.method, status, headers)
        except BaseException:
            conn.close()
            raise
        body = _Body(self, key, conn, pieces, timeouts.get("read"))
        return httpx.Response(
            status,
            headers=headers,
            stream=body,
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason},
        )


@contextlib.contextmanager
def _mapped(
    timeout_error: type[httpx.TransportError], io_error: type[httpx.TransportError]
) -> Iterator[None]:
    """asyncio's and the socket's failures as httpx's exception types."""
    try:
        yield
    except TimeoutError as exc:
        raise timeout_error(str(exc) or "timed out") from exc
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
        raise io_error(f"{type(exc).__name__}: {exc}") from exc


def _head_bytes(request: httpx.Request) -> bytes:
    target = request.url.raw_path
    lines = [request.method.encode("ascii") + b" " + target + b" HTTP/1.1"]
    lines.extend(name + b": " + value for name, value in request.headers.raw)
    return b"\r\n".join(lines) + b"\r\n\r\n"


async def _send(conn: _Connection, request: httpx.Request, timeout: float | None) -> None:
    """The request line, headers and body (whole when in memory, else as it streams)."""
    head = _head_bytes(request)
    chunked = request.headers.get("transfer-encoding", "").lower() == "chunked"
    with _mapped(httpx.WriteTimeout, httpx.WriteError):
        async with asyncio.timeout(timeout):
            try:
                conn.writer.write(head + request.content)
            except httpx.RequestNotRead:
                await _send_stream(conn.writer, request.stream, head, chunked=chunked)
            await conn.writer.drain()


async def _send_stream(
    writer: asyncio.StreamWriter, stream: Any, head: bytes, *, chunked: bool
) -> None:
    """A streamed body; the head goes out with its first piece (one send, one wake-up)."""
    pending = head
    async for piece in stream:
        if not piece:
            continue
        framed = b"%x\r\n%b\r\n" % (len(piece), piece) if chunked else piece
        writer.write(pending + framed if pending else framed)
        pending = b""
        await writer.drain()
    writer.write(pending + b"0\r\n\r\n" if chunked else pending)


async def _read_head(
    conn: _Connection, timeout: float | None
) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
    """Status, reason and headers of the next final answer (1xx ones are skipped)."""
    while True:
        with _mapped(httpx.ReadTimeout, httpx.ReadError):
            async with asyncio.timeout(timeout):
                try:
                    head = await conn.reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError as exc:
                    if not exc.partial:
                        raise httpx.RemoteProtocolError("server hung up without answering") from exc
                    raise
        status_line, *header_lines = head[:-4].split(b"\r\n")
        parts = status_line.split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise httpx.RemoteProtocolError(f"malformed status line {status_line[:80]!r}")
        status = int(parts[1])
        headers: list[tuple[bytes, bytes]] = []
        for line in header_lines:
            name, sep, value = line.partition(b":")
            if not sep or not name or name != name.strip():
                raise httpx.RemoteProtocolError(f"malformed header line {line[:80]!r}")
            headers.append((name, value.strip()))
        if status >= 200:
            if parts[0] == b"HTTP/1.0" or _header(headers, b"connection") == b"close":
                conn.reusable = False
            return status, parts[2] if len(parts) > 2 else b"", headers


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return value.lower()
    return None


def _body_pieces(
    conn: _Connection, method: str, status: int, headers: list[tuple[bytes, bytes]]
) -> AsyncIterator[bytes]:
    """The body's pieces, framed as the answer says (length, chunked or until close)."""
    if method == "HEAD" or status in _NO_BODY_STATUSES or status < 200:
        return _nothing()
    if _header(headers, b"transfer-encoding") == b"chunked":
        return _chunked(conn.reader)
    length = _header(headers, b"content-length")
    if length is not None:
        if not length.isdigit():
            raise httpx.RemoteProtocolError(f"bad Content-Length {length[:40]!r}")
        return _sized(conn.reader, int(length))
    conn.reusable = False
    return _until_close(conn.reader)


async def _nothing() -> AsyncIterator[bytes]:
    return
    yield b""  # pragma: no cover (makes this an async generator)


async def _sized(reader: asyncio.StreamReader, length: int) -> AsyncIterator[bytes]:
    while length > 0:
        piece = await reader.readexactly(min(length, READ_PIECE))
        length -= len(piece)
        yield piece


async def _chunked(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip() or b"x", 16)
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":
                pass  # trailers
            return
        yield await reader.readexactly(size)
        if await reader.readexactly(2) != b"\r\n":
            raise httpx.RemoteProtocolError("chunk not followed by CRLF")


async def _until_close(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    while piece := await reader.read(READ_PIECE):
        yield piece
