"""An https:// URL that reaches a plain-HTTP server (the local mock named by
``cortex.host``) is a setting to change, not a network failure to retry: the handshake
fails the same way every time. Told apart by asking the same host and port in plain HTTP.
"""

from __future__ import annotations

import asyncio
import ssl

import httpx

from arctic_rl._errors import ConfigError

PROBE_TIMEOUT_S = 2.0
PLAIN_HTTP_CODE = "plain_http"


def _failed_handshake(exc: BaseException) -> bool:
    """Whether a connection failed in its TLS handshake for another reason than the
    server's certificate (a certificate failure means the server does speak TLS)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLError):
            return not isinstance(seen, ssl.SSLCertVerificationError)
        seen = seen.__cause__ or seen.__context__
    return False


async def _answers_plain_http(url: httpx.URL) -> bool:
    """Whether the URL's host and port answer a plain HTTP request."""
    port = url.port or 443
    try:
        connecting = asyncio.open_connection(url.host, port)
        reader, writer = await asyncio.wait_for(connecting, PROBE_TIMEOUT_S)
    except (OSError, TimeoutError):
        return False
    try:
        writer.write(f"HEAD / HTTP/1.0\r\nHost: {url.host}\r\n\r\n".encode("ascii", "replace"))
        head = await asyncio.wait_for(reader.readexactly(5), PROBE_TIMEOUT_S)
    except (OSError, TimeoutError, asyncio.IncompleteReadError):
        return False
    finally:
        writer.close()
    return head == b"HTTP/"


async def send(transport: httpx.AsyncBaseTransport, request: httpx.Request) -> httpx.Response:
    """``transport``'s answer; a TLS handshake that a plain-HTTP server refused raises
    :class:`ConfigError` naming the ``base_url`` that reaches it."""
    try:
        return await transport.handle_async_request(request)
    except httpx.ConnectError as exc:
        url = request.url
        if url.scheme != "https" or not _failed_handshake(exc):
            raise
        if not await _answers_plain_http(url):
            raise
        origin = f"http://{url.netloc.decode('ascii')}"
        raise ConfigError(
            f"https://{url.netloc.decode('ascii')} answers in plain HTTP, not TLS: set "
            f"base_url: {origin} (the scheme included) in place of host to reach a "
            "plain-HTTP server such as the local mock",
            code=PLAIN_HTTP_CODE,
        ) from exc
