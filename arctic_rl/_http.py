"""The service transport: one httpx transport that retries, maps errors and keys mutating calls.

Every call the client makes (generated operation functions and chunk uploads alike) goes
through `ServiceTransport`, an `httpx.AsyncBaseTransport` wrapped around the real one, so
these rules live in one place:

- connection failures, 408, 429 and 5xx (not 501; 503 and a full disk's 507 included) are
  retried, waiting as long as Retry-After says; the *same* request is resent, so a retry
  carries the same idempotency key; a plain-HTTP server behind https:// is a `ConfigError`;
- an error status becomes a typed `ArcticRLError` (see `_errors.error_from_response`),
  whatever its body (a proxy's HTML 502 too): the generated parsers only see successes;
- a JSON POST without an ``Idempotency-Key`` gets one, fixed for that logical call (log-probs
  reads too: one rule); chunk uploads carry none, their chunk group id is the key;
- a long poll (``wait_s``) gets a read timeout that outlasts the server's hold; a DELETE whose
  retry finds the thing gone (404) succeeded the first time;
- every answer is read here, decompressed to at most ``max_answer_bytes`` (a gzip bomb is
  an `AnswerTooLargeError`, never a 600 MiB allocation); a 3xx is a `RedirectError`, a
  2xx whose body is not JSON an `UnexpectedAnswerError`: the generated parsers only see
  what the contract allows;
- the token lives here (a `SecretStr`) and is added to each request as it leaves, so the
  generated client, the httpx client and their headers never hold it (nor show it in a
  repr); plain ``http://`` is refused for any host but loopback unless allowed.

Under it is httpx's own transport (`httpx.AsyncHTTPTransport`, over httpcore), opened once
per client and reused by every call; tests may put any other httpx transport there (a
recording one, `httpx.MockTransport`) through `ClientSettings.inner`.
"""

from __future__ import annotations

import json
import logging
import urllib.request
import uuid
import zlib
from contextvars import ContextVar, Token
from typing import Any

import httpx
import stamina
from cortex_gs_client import Client
from cortex_gs_contract import (
    IDEMPOTENCY_KEY_HEADER,
    REQUEST_ID_HEADER,
    TOKEN_TYPE,
    TOKEN_TYPE_HEADER,
)
from pydantic import SecretStr

from arctic_rl import _plain_http as plain_http
from arctic_rl._endpoint import DEFAULT_MAX_ANSWER_BYTES, ClientSettings
from arctic_rl._errors import (
    URL_SETTINGS,
    AnswerTooLargeError,
    APIConnectionError,
    APIStatusError,
    RateLimitError,
    RedirectError,
    ServerError,
    UnexpectedAnswerError,
    add_remedy,
    error_from_response,
)
from arctic_rl._timing import current as current_timing

__all__ = ["LIMITS", "ServiceTransport", "open_client"]

LONG_POLL_PARAM = "wait_s"
MAX_RETRY_AFTER_S = 60.0
RETRY_WAIT_INITIAL_S = 0.5
RETRY_WAIT_MAX_S = 12.0
# Until the service has answered this client once, a failure to reach it is most likely a
# wrong URL or a server not started: give up after this long (once it has answered, every
# later request, from any loop, keeps the whole retry budget: a run rides out a restart).
FIRST_CONTACT_RETRY_S = 5.0
# APIConnectionError codes: the service never answered this client / it stopped answering.
UNREACHABLE_CODE = "unreachable"
CONNECTION_LOST_CODE = "connection_lost"
UNREACHABLE_HINT = f"is the service running there? The URL comes from {URL_SETTINGS}"
# The encodings this client can decompress under a cap; it asks for no others.
ACCEPT_ENCODING = "gzip, deflate"
_DECODERS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
_DROPPED_ANSWER_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
# One origin: a few idle connections kept for reuse (httpx's default cap on open ones).
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=8)


def _retry_hook(exc: Exception) -> bool | float:
    """Retry connection failures, 408, 429 and 5xx; wait as long as Retry-After says."""
    if isinstance(exc, APIStatusError) and exc.status == 408:
        return True  # the server dropped a slow request unanswered: send it again
    if isinstance(exc, RateLimitError | ServerError):
        if exc.status == 501:
            return False
        if exc.retry_after is not None:
            return min(exc.retry_after, MAX_RETRY_AFTER_S)
        return True
    return isinstance(exc, httpx.TransportError)


# The request being retried in this task, for the retry log line.
_RETRYING: ContextVar[str | None] = ContextVar("arctic_rl_retrying", default=None)


class _ReadableRetries(logging.Filter):
    """Turns stamina's bare ``stamina.retry_scheduled`` record for one of our requests into
    one readable line: what failed, why, and when the next try goes."""

    def filter(self, record: logging.LogRecord) -> bool:
        what = _RETRYING.get()
        if what is not None and record.msg == "stamina.retry_scheduled":
            extra = record.__dict__
            record.msg = "arctic_rl: %s failed (%s); retry %s in %.1f s"
            record.args = (
                what,
                extra.get("stamina.caused_by"),
                extra.get("stamina.retry_num"),
                extra.get("stamina.wait_for", 0.0),
            )
        return True


logging.getLogger("stamina").addFilter(_ReadableRetries())


class ServiceTransport(httpx.AsyncBaseTransport):
    """Auth, retries, typed errors, capped answers and idempotency keys around a transport."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        base_url: str,
        token: str,
        max_retries: int = 10,
        retry_timeout: float = 600.0,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        token_env: str | None = None,
    ) -> None:
        self._inner = inner
        self._token_env = token_env  # the variable the token came from, for a 401's message
        self._base_url = base_url
        self._authorization = SecretStr(f"Bearer {token}")
        self._max_retries = max_retries
        self._retry_timeout = retry_timeout
        self._max_answer_bytes = max_answer_bytes
        self._reached = False  # whether the service has answered this client once

    def __repr__(self) -> str:
        return f"ServiceTransport(base_url={self._base_url!r})"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        _key_mutating_call(request)
        _outlast_long_poll(request)
        request.headers["Authorization"] = self._authorization.get_secret_value()
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING
        retrying: Token[str | None] | None = None
        first_contact = not self._reached
        try:
            try:
                return await self._attempt(request, retried=False)
            except Exception as exc:
                if _retry_hook(exc) is False or self._max_retries <= 1:
                    raise
                first_failure: Exception | None = exc
            retrying = _RETRYING.set(f"{request.method} {request.url}")
            budget = FIRST_CONTACT_RETRY_S if first_contact else self._retry_timeout
            # Only a failed first attempt pays for stamina (tens of microseconds a request):
            # its failure is replayed as stamina's first attempt, so the waits, the attempt
            # count and the time budget are what they would have been had stamina run it.
            async for attempt in stamina.retry_context(
                on=_retry_hook,
                attempts=self._max_retries,
                timeout=min(budget, self._retry_timeout),
                wait_initial=RETRY_WAIT_INITIAL_S,
                wait_max=RETRY_WAIT_MAX_S,
            ):
                with attempt:
                    if first_failure is not None:
                        replayed, first_failure = first_failure, None
                        raise replayed
                    timing = current_timing()
                    if timing is not None:
                        timing.retries += 1
                    return await self._attempt(request, retried=True)
        except httpx.TransportError as exc:
            raise self._unreachable(exc, first_contact=first_contact) from exc
        finally:
            if retrying is not None:
                _RETRYING.reset(retrying)
        raise AssertionError("stamina ran no attempt")  # pragma: no cover

    def _unreachable(self, exc: httpx.TransportError, *, first_contact: bool) -> APIConnectionError:
        """The error once retries are spent: a first contact's says where the URL came from."""
        failure = f"cannot reach {self._base_url}: {type(exc).__name__}: {exc}"
        if first_contact:
            message = f"{failure}; it never answered this client; {UNREACHABLE_HINT}"
            return APIConnectionError(message, code=UNREACHABLE_CODE)
        message = f"{failure}; it stopped answering and did not come back within the retry budget"
        return APIConnectionError(message, code=CONNECTION_LOST_CODE)

    async def _attempt(self, request: httpx.Request, *, retried: bool) -> httpx.Response:
        timing = current_timing()
        if timing is not None:
            timing.sending(request.headers.get("content-length"))
        response = await plain_http.send(self._inner, request)
        self._reached = True
        if timing is not None:
            timing.answered()
        return await self._checked(request, response, retried=retried)

    async def _checked(
        self, request: httpx.Request, response: httpx.Response, *, retried: bool
    ) -> httpx.Response:
        """The answer, read and decompressed; raises for anything but a JSON success."""
        response.request = request  # as httpx's client would (a recording transport reads it)
        try:
            body = await _read_capped(response, self._max_answer_bytes)
        finally:
            await response.aclose()
        timing = current_timing()
        if timing is not None:  # as it came over the wire (one built in memory: its body)
            timing.bytes_down += response.num_bytes_downloaded or len(body)
        status = response.status_code
        headers = [
            (name, value)
            for name, value in response.headers.multi_items()
            if name.lower() not in _DROPPED_ANSWER_HEADERS
        ]
        answer = httpx.Response(
            status, headers=headers, content=body, request=request, extensions=response.extensions
        )
        if status < 300:
            _require_json(answer)
            return answer
        if status < 400:
            location = answer.headers.get("location")
            err = RedirectError(
                f"{request.method} {request.url.path} was redirected (HTTP {status}) to "
                f"{location or 'nowhere'}; the service never redirects",
                status=status,
                code="redirect",
                request_id=answer.headers.get(REQUEST_ID_HEADER),
            )
            err.location = location
            raise err
        if request.method == "DELETE" and retried and status == 404:
            return httpx.Response(204, request=request)  # our earlier try deleted it
        err = _status_error(answer)
        if isinstance(err, APIStatusError):
            add_remedy(err, request.method, str(request.url), self._token_env)
        raise err

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _read_capped(response: httpx.Response, cap: int) -> bytes:
    """The whole answer, decompressed, never holding more than ``cap`` + 1 bytes of it."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if response.is_stream_consumed:  # built whole in memory (a test's transport): decoded
        if len(response.content) > cap:
            raise _too_large(response, cap)
        return response.content
    decoder = None
    if encoding not in ("", "identity"):
        wbits = _DECODERS.get(encoding)
        if wbits is None:
            message = f"the answer is {encoding}-encoded; this client asked for {ACCEPT_ENCODING}"
            raise _answer_error(UnexpectedAnswerError, response, "unsupported_encoding", message)
        decoder = zlib.decompressobj(wbits)
    body = bytearray()
    async for raw in response.aiter_raw():
        if decoder is None:
            body += raw
        else:
            try:
                body += decoder.decompress(raw, cap + 1 - len(body))
            except zlib.error as exc:
                message = f"the {encoding} answer does not decompress: {exc}"
                raise _answer_error(
                    UnexpectedAnswerError, response, "bad_encoding", message
                ) from exc
            if decoder.unconsumed_tail:  # more output pending: past the cap whatever its size
                raise _too_large(response, cap)
        if len(body) > cap:
            raise _too_large(response, cap)
    return bytes(body)


def _answer_error(
    cls: type[UnexpectedAnswerError], response: httpx.Response, code: str, message: str
) -> UnexpectedAnswerError:
    """An answer outside what the contract allows, with its status and request id."""
    return cls(
        message,
        status=response.status_code,
        code=code,
        request_id=response.headers.get(REQUEST_ID_HEADER),
    )


def _too_large(response: httpx.Response, cap: int) -> UnexpectedAnswerError:
    message = (
        f"the answer is larger than {cap} bytes once decompressed "
        f"(cortex.max_answer_bytes); refusing it"
    )
    return _answer_error(AnswerTooLargeError, response, "answer_too_large", message)


def _require_json(answer: httpx.Response) -> None:
    """A success with a body carries JSON (a login page or proxy banner is not an answer)."""
    content = answer.content
    if not content.strip():
        return
    content_type = answer.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type == "application/json" or content_type.endswith("+json"):
        return
    try:
        json.loads(content)
    except (json.JSONDecodeError, UnicodeDecodeError):
        message = (
            f"the service answered HTTP {answer.status_code} with {content_type or 'no type'}, "
            f"not JSON: {content[:120]!r}"
        )
        raise _answer_error(UnexpectedAnswerError, answer, "not_json", message) from None


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


def _httpx_transport(base_url: str, verify_tls: bool) -> httpx.AsyncHTTPTransport:
    """httpx's own transport: TLS verified (``SSL_CERT_FILE`` honoured), the proxy the
    environment names for this URL, a small keep-alive pool for the one origin."""
    return httpx.AsyncHTTPTransport(verify=verify_tls, proxy=_env_proxy(base_url), limits=LIMITS)


def _env_proxy(base_url: str) -> str | None:
    """The proxy the environment names for this URL (an explicit transport drops httpx's)."""
    url = httpx.URL(base_url)
    if urllib.request.proxy_bypass(url.host):
        return None
    return urllib.request.getproxies().get(url.scheme)


def open_client(settings: ClientSettings) -> Client:
    """The generated `Client` over one `httpx.AsyncClient`, its requests all passing
    through `ServiceTransport`.

    The plain `Client`, not `AuthenticatedClient`: that one keeps the token in a field
    and in its header dict, both shown by its repr; the transport adds it instead. The
    base URL is parsed once, by the httpx client every call reuses.
    """
    base_url = settings.base_url
    real = settings.inner or _httpx_transport(base_url, settings.verify_tls)
    transport = ServiceTransport(
        real,
        base_url=base_url,
        token=settings.token.get_secret_value(),
        max_retries=settings.max_retries,
        retry_timeout=settings.retry_timeout,
        max_answer_bytes=settings.max_answer_bytes,
        token_env=settings.token_env,
    )
    headers = {TOKEN_TYPE_HEADER: TOKEN_TYPE}
    timeout = httpx.Timeout(settings.read_timeout, connect=settings.connect_timeout)
    client = Client(
        base_url=base_url,
        headers=headers,
        timeout=timeout,
        verify_ssl=settings.verify_tls,
        raise_on_unexpected_status=False,
    )
    http = httpx.AsyncClient(
        base_url=base_url, headers=headers, timeout=timeout, transport=transport
    )
    return client.set_async_httpx_client(http)
