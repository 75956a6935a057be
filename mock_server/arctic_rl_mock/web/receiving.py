"""Request bodies as they arrive: a large one lands in memory an earlier body used.

A 60 MiB chunk joined from its pieces into fresh memory costs more in the pages the
kernel maps and zeroes for it than in the copy itself, once per chunk. So a body that
declares a large ``Content-Length`` is copied, piece by piece as it arrives, into a
mapping an earlier body filled, once nothing refers to it any more (a body whose chunk
is still being written, or that a decoded value views, keeps its own; another gets a
fresh one). The handler sees a read-only view, as it would see bytes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from starlette.requests import Request

from arctic_rl import wire
from arctic_rl_mock.settings import ON_LOOP_BYTES

KEPT_BODIES = 3
"""Large body buffers kept for reuse: the chunk being received, the one being written,
and one more for a second upload. After a large upload they stay resident (at most
three times the body cap) for the next one."""
BODY_ROUNDING = 4 * 1024 * 1024
"""A new body buffer's size is rounded up to this, so the chunks of a frame (whose
headers differ by a few bytes) share buffers."""


def declared_length(request: Request) -> int | None:
    """The body's ``Content-Length`` (None without one, or when it is not a number)."""
    value = request.headers.get("content-length", "")
    return int(value) if value.isascii() and value.isdigit() else None


class BodyReader:
    """Reads one app's request bodies; a large one lands in a buffer it reuses."""

    def __init__(self, kept: int = KEPT_BODIES) -> None:
        self._bodies = wire.Recycler(kept)

    def buffer(self, size: int) -> memoryview:
        """A writable view of ``size`` bytes, in a reused mapping when one is free (a new
        one's pages fault in as the body fills them: a body that stalls holds what it
        sent)."""
        buf = self._bodies.take(size, exact=False)
        if buf is None:
            buf = wire.new_map(-(-size // BODY_ROUNDING) * BODY_ROUNDING)
        self._bodies.hold(buf)
        with memoryview(buf) as whole:
            return whole[:size]

    async def read(self, request: Request) -> bytes | memoryview:
        """The raw body; the middleware stops it at the cap, so this never exceeds it.

        A large body with a declared length is copied into a reused buffer as it arrives
        (from its first piece: by then the middleware has refused a length over the cap);
        any other is joined once, in a worker thread when large (``bytes.join`` drops the
        GIL): a 60 MiB chunk copied twice on the event loop stalled every other request
        for tens of ms.
        """
        size = declared_length(request)
        stream = request.stream()
        parts: list[bytes] = []
        async for part in stream:
            if size is not None and size >= ON_LOOP_BYTES:
                return await _received_into(self.buffer(size), part, stream)
            parts.append(part)
        if len(parts) <= 1:
            return parts[0] if parts else b""
        if sum(map(len, parts)) < ON_LOOP_BYTES:
            return b"".join(parts)
        return await asyncio.to_thread(b"".join, parts)


async def read_body(request: Request) -> bytes | memoryview:
    """The raw body, read by the app's :class:`BodyReader` (``app.state.body_reader``).

    Called by a handler after its own checks (not a dependency), so a call that is refused
    anyway (job not running) is refused before its body is read.
    """
    reader: BodyReader = request.app.state.body_reader
    return await reader.read(request)


async def _received_into(buf: memoryview, first: bytes, rest: AsyncIterator[bytes]) -> memoryview:
    """Copy each piece into ``buf`` as it arrives (the server delivers exactly the
    declared length, or ends the request); the received bytes, read-only."""
    buf[: len(first)] = first
    pos = len(first)
    async for part in rest:
        end = pos + len(part)
        buf[pos:end] = part
        pos = end
    return buf[:pos].toreadonly()
