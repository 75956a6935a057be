"""A delay proxy on loopback: a wide-area link between a client and the mock, in its own process.

``python -m benchmarks._delay --target-port PORT`` listens on a free port (printed as the
first line of its output) and forwards every connection to ``127.0.0.1:PORT``, holding
each direction's bytes ``rtt / 2`` and, with a bandwidth cap, pacing them at that rate.
A new connection is charged its set-up before its first byte goes up: ``connect_rtts``
round trips (2 by default: TCP's handshake and TLS 1.3's), as a client that reuses its
connections pays once and one that opens a connection per call pays on every call.
It reads the requests going up (HTTP/1.1 heads, bodies by Content-Length or chunked) to
count them: polls (``GET .../requests/...``), submits (``POST``) and the rest. In
``today`` mode it also removes the proposed ``wait_s`` from each request line, so the
mock answers as today's service, which ignores that parameter.

Commands on stdin, one per line, each answered by one line on stdout:
``set RTT_S MODE BITS_PER_S [CONNECT_RTTS]`` (mode ``today`` or ``full``; 0 bits/s: no
cap; round trips a new connection costs, default 2) -> ``ok``;
``counts`` -> the counters as JSON; ``reset`` -> ``ok`` (counters zeroed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field

_WAIT_S = re.compile(rb"([?&])wait_s=[^&\s]*&?")
READ_BYTES = 256 * 1024
CONNECT_RTTS = 2.0  # TCP handshake + TLS 1.3 handshake


@dataclass
class Link:
    """What the link does now, and what crossed it."""

    one_way_s: float = 0.0
    mode: str = "full"
    bytes_per_s: float = 0.0
    connect_rtts: float = CONNECT_RTTS
    counts: Counter[str] = field(default_factory=Counter)


def strip_wait_s(line: bytes) -> bytes:
    """``GET /x?cursor=a&wait_s=10 HTTP/1.1`` -> ``GET /x?cursor=a HTTP/1.1``."""
    stripped = _WAIT_S.sub(lambda m: m.group(1), line)
    return stripped.replace(b"? ", b" ").replace(b"& ", b" ")


def kind_of(request_line: bytes) -> str:
    method, _, rest = request_line.partition(b" ")
    if method == b"GET" and b"/requests/" in rest:
        return "polls"
    return "submits" if method == b"POST" else "other"


class Pipe:
    """One direction: bytes delivered ``one_way_s`` after they arrived, paced by the cap,
    and none sent before ``opens_at`` (loop time: when the connection's set-up is done)."""

    def __init__(self, link: Link, writer: asyncio.StreamWriter, opens_at: float = 0.0) -> None:
        self.link = link
        self.writer = writer
        self.opens_at = opens_at
        self.queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        self._free_at = 0.0
        self.task = asyncio.create_task(self._deliver())

    def send(self, data: bytes) -> None:
        now = asyncio.get_running_loop().time()
        due = max(now, self.opens_at) + self.link.one_way_s
        if self.link.bytes_per_s > 0:
            self._free_at = max(self._free_at, now) + len(data) / self.link.bytes_per_s
            due = max(due, self._free_at + self.link.one_way_s)
        self.queue.put_nowait((due, data))

    async def _deliver(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due, data = await self.queue.get()
            if not data:
                self.writer.close()
                return
            pause = due - loop.time()
            if pause > 0:
                await asyncio.sleep(pause)
            self.writer.write(data)
            await self.writer.drain()


async def _relay(reader: asyncio.StreamReader, pipe: Pipe) -> None:
    while data := await reader.read(READ_BYTES):
        pipe.send(data)
    pipe.send(b"")


async def _requests_up(reader: asyncio.StreamReader, pipe: Pipe) -> None:
    """Requests client -> server: counted, ``wait_s`` removed in today mode."""
    while True:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pipe.send(b"")
            return
        line, _, rest = head.partition(b"\r\n")
        pipe.link.counts[kind_of(line)] += 1
        pipe.link.counts["requests"] += 1
        if pipe.link.mode == "today":
            line = strip_wait_s(line)
        pipe.send(line + b"\r\n" + rest)
        await _body(reader, pipe, rest.lower())


async def _body(reader: asyncio.StreamReader, pipe: Pipe, headers: bytes) -> None:
    match = re.search(rb"content-length:\s*(\d+)", headers)
    if match:
        left = int(match.group(1))
        while left > 0:
            data = await reader.read(min(left, READ_BYTES))
            if not data:
                return
            pipe.send(data)
            left -= len(data)
    elif b"transfer-encoding: chunked" in headers:
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            pipe.send(size_line + await reader.readexactly(size + 2))
            if size == 0:
                return


async def serve(target_port: int) -> None:
    link = Link()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link.counts["connections"] += 1
        set_up_s = link.connect_rtts * 2 * link.one_way_s
        opens_at = asyncio.get_running_loop().time() + set_up_s
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target_port)
        up, down = Pipe(link, up_writer, opens_at), Pipe(link, writer)
        await asyncio.gather(
            _requests_up(reader, up), _relay(up_reader, down), return_exceptions=True
        )
        await asyncio.gather(up.task, down.task, return_exceptions=True)

    server = await asyncio.start_server(handle, "127.0.0.1", 0, limit=2**20)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        print(_command(link, line.split()), flush=True)


def _command(link: Link, words: list[str]) -> str:
    if words[:1] == ["set"]:
        link.one_way_s, link.mode = float(words[1]) / 2, words[2]
        link.bytes_per_s = float(words[3]) / 8
        link.connect_rtts = float(words[4]) if len(words) > 4 else CONNECT_RTTS
    elif words[:1] == ["reset"]:
        link.counts.clear()
    elif words[:1] == ["counts"]:
        return json.dumps(dict(link.counts))
    return "ok"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks._delay", description=__doc__)
    parser.add_argument("--target-port", type=int, required=True)
    asyncio.run(serve(parser.parse_args().target_port))


if __name__ == "__main__":
    main()
