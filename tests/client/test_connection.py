"""The client's HTTP stack as `open_client` configures httpx, against scripted servers.

Each test runs a raw asyncio server on 127.0.0.1 that answers with exactly the bytes the
case needs (keep-alive, chunked, close-delimited, a hang-up, a stall, garbage), and
checks what the client makes of them through httpx's own transport, and how many
connections it opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from arctic_rl._endpoint import ClientSettings, proxy_for
from arctic_rl._errors import APIConnectionError
from arctic_rl._http import LIMITS, open_client
from arctic_rl._options import ServiceOptions

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[bool]]
"""Answers one request on a connection; returns False to hang up afterwards."""

JSON = b"content-type: application/json"


def answer(body: bytes, *extra: bytes, status: bytes = b"200 OK") -> bytes:
    head = [b"HTTP/1.1 " + status, b"content-length: %d" % len(body), JSON, *extra]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """One request's head and body (Content-Length or chunked)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.lower().split(b"\r\n")
    length = next(
        (int(line.split(b":")[1]) for line in lines if line.startswith(b"content-length")), 0
    )
    if b"transfer-encoding: chunked" in lines:
        body = b""
        while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
            body += await reader.readexactly(size)
            await reader.readexactly(2)
        await reader.readexactly(2)
        return head, body
    return head, await reader.readexactly(length)


class Server:
    """Serves ``script`` on every connection; counts connections and requests."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.connections = 0
        self.requests: list[tuple[bytes, bytes]] = []
        self.server: asyncio.Server | None = None
        self.hung_up: list[asyncio.Future[None]] = []

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.hung_up.append(gone)
        try:
            while not reader.at_eof():
                try:
                    self.requests.append(await read_request(reader))
                except (asyncio.IncompleteReadError, ConnectionError):
                    break
                if not await self.script(reader, writer, len(self.requests)):
                    break
                await writer.drain()
        finally:
            gone.set_result(None)
            writer.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/api"


async def serving(script: Script) -> AsyncIterator[Server]:
    server = Server(script)
    server.server = await asyncio.start_server(server._serve, "127.0.0.1", 0)
    try:
        yield server
    finally:
        server.server.close()


def opened(url: str, proxy: str | None = None, **options: Any) -> httpx.AsyncClient:
    """The httpx client `open_client` sets up (one try: these tests count connections)."""
    settings = ServiceOptions(**{"max_retries": 1, **options})
    client = open_client(ClientSettings(url, SecretStr("t"), settings, proxy=proxy))
    return client.get_async_httpx_client()


def run(
    script: Script, test: Callable[[Server, httpx.AsyncClient], Awaitable[None]], **settings: Any
) -> Server:
    async def main() -> Server:
        async for server in serving(script):
            http = opened(server.url, **settings)
            try:
                await test(server, http)
            finally:
                await http.aclose()
            return server
        raise AssertionError("no server")

    return asyncio.run(main())


def test_the_real_transport_is_httpx_own() -> None:
    http = opened("http://127.0.0.1:9/api")
    inner = http._transport._inner  # type: ignore[attr-defined]
    assert type(inner) is httpx.AsyncHTTPTransport


def test_keep_alive_reuses_one_connection() -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(answer(b'{"n": %d}' % n))
        return True

    async def test(server: Server, http: httpx.AsyncClient) -> None:
        for n in (1, 2, 3):
            response = await http.request("GET", "/x", params={"a": 1})
            assert response.json() == {"n": n}

    server = run(script, test)
    assert server.connections == 1
    assert [head.split(b"\r\n")[0] for head, _ in server.requests] == [
        b"GET /api/x?a=1 HTTP/1.1"
    ] * 3


def test_idle_connections_beyond_the_limit_are_not_kept() -> None:
    """A burst opens what it needs; only LIMITS.max_keepalive_connections stay for reuse."""
    burst = LIMITS.max_keepalive_connections or 0
    burst += 4
    arrived = [asyncio.Event(), asyncio.Event()]

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        which = (n - 1) // burst
        if n % burst == 0:
            arrived[which].set()
        await arrived[which].wait()  # every request of a burst is in flight at once
        writer.write(answer(b"{}"))
        return True

    async def test(server: Server, http: httpx.AsyncClient) -> None:
        for _ in arrived:
            await asyncio.gather(*(http.request("GET", "/x") for _ in range(burst)))

    server = run(script, test)
    assert server.connections == burst + 4  # the second burst reused all but 4


def test_a_chunked_answer_is_joined() -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\n" + JSON + b"\r\ntransfer-encoding: chunked\r\n\r\n")
        writer.write(b'5\r\n["hel\r\n8;ext=1\r\nlo", "w"\r\n2\r\n]\n\r\n0\r\nx-trailer: 1\r\n\r\n')
        return True

    async def test(server: Server, http: httpx.AsyncClient) -> None:
        assert (await http.request("GET", "/x")).json() == ["hello", "w"]
        assert (await http.request("GET", "/x")).json() == ["hello", "w"]

    assert run(script, test).connections == 1


def test_a_body_without_length_is_sent_chunked_and_arrives_whole() -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(answer(b"{}", status=b"202 Accepted"))
        return True

    async def pieces() -> AsyncIterator[bytes]:
        for piece in (b"abc", b"", b"defgh"):
            yield piece

    async def test(server: Server, http: httpx.AsyncClient) -> None:
        response = await http.request("POST", "/x", content=pieces())
        assert response.status_code == 202

    server = run(script, test)
    assert server.requests[0][1] == b"abcdefgh"


def test_an_idle_connection_the_server_closed_is_replaced() -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(answer(b'"ok"'))
        return False  # hangs up after each answer, without saying so

    async def test(server: Server, http: httpx.AsyncClient) -> None:
        for i in range(3):
            assert (await http.request("GET", "/x")).json() == "ok"
            await server.hung_up[i]  # the hang-up is done before the next request

    assert run(script, test).connections == 3


def test_connection_close_and_close_delimited_answers_are_not_reused() -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        if n % 2:
            writer.write(answer(b'"first"', b"connection: close"))
        else:
            writer.write(b"HTTP/1.1 200 OK\r\n" + JSON + b'\r\n\r\n"until the end"')
        return False

    async def test(server: Server, http: httpx.AsyncClient) -> None:
        assert (await http.request("GET", "/x")).json() == "first"
        assert (await http.request("GET", "/x")).json() == "until the end"

    assert run(script, test).connections == 2


def test_a_connection_still_answering_when_the_client_closes_is_closed_not_kept() -> None:
    started = asyncio.Event()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\n" + JSON + b'\r\ncontent-length: 20\r\n\r\n{"half')
        await writer.drain()
        started.set()
        with contextlib.suppress(ConnectionError):
            await reader.read()  # EOF once the client has let the connection go
        return False

    async def test(server: Server, http: httpx.AsyncClient) -> None:
        call = asyncio.ensure_future(http.request("GET", "/x"))
        await started.wait()
        await http.aclose()
        await asyncio.wait_for(server.hung_up[0], 10)
        with pytest.raises(APIConnectionError):
            await asyncio.wait_for(call, 10)

    assert run(script, test).connections == 1


def test_a_stalled_answer_is_a_read_timeout() -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        await asyncio.sleep(5)
        return False

    async def test(server: Server, http: httpx.AsyncClient) -> None:
        with pytest.raises(APIConnectionError) as caught:
            await http.request("GET", "/x")
        assert isinstance(caught.value.__cause__, httpx.ReadTimeout)

    run(script, test, read_timeout=0.2)


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (b"SMTP ready\r\n\r\n", httpx.RemoteProtocolError),
        (b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort", httpx.RemoteProtocolError),
        (b"", httpx.RemoteProtocolError),
    ],
    ids=["not http", "cut body", "hang-up before answering"],
)
def test_broken_answers_are_connection_errors(
    reply: bytes, error: type[httpx.TransportError]
) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(reply)
        return False

    async def test(server: Server, http: httpx.AsyncClient) -> None:
        with pytest.raises(APIConnectionError) as caught:
            await http.request("GET", "/x")
        assert isinstance(caught.value.__cause__, error)

    run(script, test)


def test_nobody_listening_is_a_connect_error() -> None:
    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        http = opened(f"http://127.0.0.1:{port}/")
        with pytest.raises(APIConnectionError) as caught:
            await http.request("GET", "/x")
        assert isinstance(caught.value.__cause__, httpx.ConnectError)
        await http.aclose()

    asyncio.run(main())


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (made with the openssl command)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.mark.parametrize("trusted", [True, False], ids=["trusted", "self-signed"])
def test_https_verifies_the_server_unless_told_not_to(
    certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, trusted: bool
) -> None:
    cert, key = certificate
    if trusted:  # the trust store httpx reads (trust_env): this certificate only
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))

    async def main() -> list[str]:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(cert, key)

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.IncompleteReadError):
                await read_request(reader)
                writer.write(answer(b'"secure"'))
                await writer.drain()
            writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=tls)
        url = f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}/"
        outcomes = []
        for verify in (True, False):
            http = opened(url, verify_tls=verify)
            try:
                outcomes.append((await http.request("GET", "/x")).json())
            except APIConnectionError as exc:
                outcomes.append(f"refused: {'CERTIFICATE_VERIFY_FAILED' in str(exc)}")
            finally:
                await http.aclose()
        server.close()
        return outcomes

    verified = "secure" if trusted else "refused: True"
    assert asyncio.run(main()) == [verified, "secure"]


def test_a_proxy_named_by_the_environment_takes_the_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A loopback proxy for a host off loopback (a loopback target never takes one)."""

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(answer(b"{}"))
        return True

    async def main() -> Server:
        async for proxy in serving(script):
            monkeypatch.setenv("HTTP_PROXY", proxy.url.removesuffix("/api"))
            monkeypatch.delenv("NO_PROXY", raising=False)
            monkeypatch.delenv("no_proxy", raising=False)
            target = "http://cortex.invalid/api"  # no such host: only the proxy answers
            http = opened(target, proxy=proxy_for(target))
            try:
                assert (await http.request("GET", "/jobs")).json() == {}
            finally:
                await http.aclose()
            return proxy
        raise AssertionError("no server")

    proxy = asyncio.run(main())
    assert proxy.requests[0][0].startswith(b"GET http://cortex.invalid/api/jobs HTTP/1.1")
