"""A tiny TCP proxy on 127.0.0.1 that breaks one connection on purpose.

It forwards bytes both ways until the client sends `marker`; then, once, it either cuts
the connection `after` bytes into that request (mid-upload) or lets the request through
and cuts before the first byte of the answer (the server did the work; the client never
hears). Later connections pass untouched, so a retrying client can finish.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Literal


class CuttingProxy:
    def __init__(
        self,
        target_port: int,
        marker: bytes,
        *,
        mode: Literal["request", "response"],
        after: int = 0,
    ) -> None:
        self.target_port = target_port
        self.marker = marker
        self.mode = mode
        self.after = after
        self.cuts = 0
        self.port = 0
        self._server: asyncio.base_events.Server | None = None

    async def __aenter__(self) -> CuttingProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        armed = asyncio.Event()  # this connection carries the marked request
        cut = asyncio.Event()

        async def client_to_server() -> None:
            seen = b""
            sent_after_marker = -1
            while not cut.is_set() and (data := await reader.read(65536)):
                if sent_after_marker < 0 and self.cuts == 0:
                    seen = (seen + data)[-(len(self.marker) + 65536) :]
                    if self.marker in seen:
                        sent_after_marker = 0
                        armed.set()
                if sent_after_marker >= 0 and self.mode == "request" and self.cuts == 0:
                    room = self.after - sent_after_marker
                    if room < len(data):
                        up_writer.write(data[: max(room, 0)])
                        await up_writer.drain()
                        self.cuts += 1
                        cut.set()
                        break
                    sent_after_marker += len(data)
                up_writer.write(data)
                await up_writer.drain()

        async def server_to_client() -> None:
            while not cut.is_set() and (data := await up_reader.read(65536)):
                if armed.is_set() and self.mode == "response" and self.cuts == 0:
                    self.cuts += 1
                    cut.set()
                    break
                writer.write(data)
                await writer.drain()

        tasks = [asyncio.create_task(client_to_server()), asyncio.create_task(server_to_client())]
        with contextlib.suppress(Exception):
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        for w in (writer, up_writer):
            with contextlib.suppress(Exception):
                w.transport.abort()
