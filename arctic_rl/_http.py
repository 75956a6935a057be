"""The HTTP seam: one httpx transport that retries, maps errors and keys mutating calls.

Every call the client makes (generated operation functions and chunk uploads alike) goes
through `ServiceTransport`, an `httpx.AsyncBaseTransport` wrapped around the real one, so
these rules live in one place:

- connection failures, 429 and 5xx (not 501) are retried, waiting as long as Retry-After
  says; the *same* request is resent, so a retry carries the same idempotency key;
- an error status becomes a typed `ArcticRLError` (see `_errors.error_from_response`),
  whatever its body (a proxy's HTML 502 too): the generated parsers only see successes;
- a JSON POST without an ``Idempotency-Key`` gets one, fixed for that logical call (a
  log-probs read gets one too: harmless, and one rule is easier to trust than a list).
  Chunk uploads carry none: their chunk group id is the key;
- a long poll (``wait_s``) gets a read timeout that outlasts the server's hold;
- a DELETE whose retry finds the thing gone (404) succeeded the first time.
"""

from __future__ import annotations

import json
import urllib.request
import uuid
from typing import Any

import httpx
import stamina
from cortex_gs_client import AuthenticatedClient
from cortex_gs_contract import IDEMPOTENCY_KEY_HEADER, TOKEN_TYPE, TOKEN_TYPE_HEADER

from arctic_rl._errors import APIConnectionError, RateLimitError, ServerError, error_from_response

__all__ = ["ServiceTransport", "open_client"]

LONG_POLL_PARAM = "wait_s"
MAX_RETRY_AFTER_S = 60.0
RETRY_WAIT_INITIAL_S = 0.5
RETRY_WAIT_MAX_S = 12.0


def _retry_hook(exc: Exception) -> bool | float:
    """Retry connection failures, 429 and 5xx; wait as long as Retry-After says."""
    if isinstance(exc, RateLimitError | ServerError):
        if exc.status == 501:
            return False
        if exc.retry_after is not None:
            return min(exc.retry_after, MAX_RETRY_AFTER_S)
        return True
    return isinstance(exc, httpx.TransportError)


class ServiceTransport(httpx.AsyncBaseTransport):
    """Retries, typed errors and idempotency keys around a real httpx transport."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        base_url: str,
        max_retries: int = 10,
        retry_timeout: float = 600.0,
    ) -> None:
        self._inner = inner
        self._base_url = base_url
        self._max_retries = max_retries
        self._retry_timeout = retry_timeout

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        _key_mutating_call(request)
        _outlast_long_poll(request)
        try:
            async for attempt in stamina.retry_context(
                on=_retry_hook,
                attempts=self._max_retries,
                timeout=self._retry_timeout,
                wait_initial=RETRY_WAIT_INITIAL_S,
                wait_max=RETRY_WAIT_MAX_S,
            ):
                with attempt:
                    response = await self._inner.handle_async_request(request)
                    if response.status_code < 400:
                        return response
                    response.request = request  # httpx's client would; this one stops here
                    await response.aread()
                    await response.aclose()
                    if (
                        request.method == "DELETE"
                        and attempt.num > 1
                        and response.status_code == 404
                    ):
                        return httpx.Response(204, request=request)  # our earlier try deleted it
                    raise _status_error(response)
        except httpx.TransportError as exc:
            raise APIConnectionError(
                f"cannot reach {self._base_url}: {type(exc).__name__}: {exc}"
            ) from exc
        raise AssertionError("stamina ran no attempt")  # pragma: no cover

    async def aclose(self) -> None:
        await self._inner.aclose()


def _key_mutating_call(request: httpx.Request) -> None:
    """One Idempotency-Key per logical JSON POST; retries resend this same request."""
    is_json = request.headers.get("content-type", "").startswith("application/json")
    if request.method == "POST" and is_json and IDEMPOTENCY_KEY_HEADER not in request.headers:
        request.headers[IDEMPOTENCY_KEY_HEADER] = uuid.uuid4().hex


def _outlast_long_poll(request: httpx.Request) -> None:
    """The server may hold a poll for ``wait_s``: the read timeout must outlast it."""
    held = request.url.params.get(LONG_POLL_PARAM)
    timeout = request.extensions.get("timeout")
    if held is None or not isinstance(timeout, dict):
        return
    read = timeout.get("read")
    if read is not None:
        request.extensions["timeout"] = {**timeout, "read": read + float(held)}


def _status_error(response: httpx.Response) -> Exception:
    try:
        body: Any = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        body = response.text
    return error_from_response(response.status_code, body, response.headers)


def _env_proxy(base_url: str) -> str | None:
    """The proxy the environment names for this URL (an explicit transport drops httpx's)."""
    url = httpx.URL(base_url)
    if urllib.request.proxy_bypass(url.host):
        return None
    return urllib.request.getproxies().get(url.scheme)


def open_client(
    base_url: str,
    token: str,
    *,
    timeout: httpx.Timeout,
    verify_tls: bool = True,
    max_retries: int = 10,
    retry_timeout: float = 600.0,
    inner: httpx.AsyncBaseTransport | None = None,
) -> AuthenticatedClient:
    """The generated `AuthenticatedClient`, its requests all passing through `ServiceTransport`."""
    real = inner or httpx.AsyncHTTPTransport(verify=verify_tls, proxy=_env_proxy(base_url))
    transport = ServiceTransport(
        real, base_url=base_url, max_retries=max_retries, retry_timeout=retry_timeout
    )
    return AuthenticatedClient(
        base_url=base_url,
        token=token,
        headers={TOKEN_TYPE_HEADER: TOKEN_TYPE},
        timeout=timeout,
        verify_ssl=verify_tls,
        raise_on_unexpected_status=False,
        httpx_args={"transport": transport},
    )
