"""The service transport: one httpx transport that retries, maps errors and keys mutating calls.

Every call the client makes (generated operation functions and chunk uploads alike) goes
through `ServiceTransport`, an `httpx.AsyncBaseTransport` wrapped around the real one, so
these rules live in one place:

- connection failures, 408, 429 and 5xx (not 501; 503 and a full disk's 507 included) are
  retried, waiting as long as Retry-After says within the call's budget; the *same*
  request is resent, so a retry carries the same idempotency key; a call today's service
  would run twice is resent only when it provably never ran (`_retry` has the rules);
  a plain-HTTP server behind https:// is a `ConfigError`;
- each attempt's answer has a deadline (`_retry.AnswerDeadline`): a server that trickles
  it is a read timeout;
- an error status becomes a typed `ArcticRLError` (see `_error_answers.error_from_response`),
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
  repr); plain ``http://`` is refused for any host but loopback unless allowed; every
  error and retry line is masked (`_masking.TokenMask`), whatever an answer echoed.

Under it is httpx's own transport (`httpx.AsyncHTTPTransport`, over httpcore), opened once
per client and reused by every call; tests may put any other httpx transport there (a
recording one, `httpx.MockTransport`) through `ClientSettings.inner`.
"""

from __future__ import annotations

import logging
import uuid
from contextvars import ContextVar, Token

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
from arctic_rl._answer_body import ACCEPT_ENCODING, read_capped, require_json, status_error
from arctic_rl._endpoint import ClientSettings, ServiceTraits
from arctic_rl._error_answers import URL_SETTINGS, add_remedy
from arctic_rl._errors import APIConnectionError, APIStatusError, ArcticRLError, RedirectError
from arctic_rl._masking import ANSWER_MASK, LAST_REQUEST_ID, TokenMask, mask_error
from arctic_rl._retry import (
    AnswerDeadline,
    RetryBudget,
    never_ran,
    outcome_unknown,
    resend_is_safe,
    retry_wait,
)
from arctic_rl._timing import current as current_timing

__all__ = ["LIMITS", "ServiceTransport", "open_client"]

LONG_POLL_PARAM = "wait_s"
# Until the service has answered this client once, a failure to reach it is most likely a
# wrong URL or a server not started: give up after this long (once it has answered, every
# later request, from any loop, keeps the whole retry budget: a run rides out a restart).
FIRST_CONTACT_RETRY_S = 5.0
# APIConnectionError codes: the service never answered this client / it stopped answering.
UNREACHABLE_CODE = "unreachable"
CONNECTION_LOST_CODE = "connection_lost"
UNREACHABLE_HINT = f"is the service running there? The URL comes from {URL_SETTINGS}"
_DROPPED_ANSWER_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
# An attempt's deadline when the request carries no timeouts (a test's bare request).
DEFAULT_ANSWER_S = 130.0
# One origin: a few idle connections kept for reuse (httpx's default cap on open ones).
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=8)


# The request being retried in this task and its client's mask, for the retry log line.
_RETRYING: ContextVar[tuple[str, TokenMask] | None] = ContextVar("arctic_rl_retrying", default=None)


class _ReadableRetries(logging.Filter):
    """Turns stamina's bare ``stamina.retry_scheduled`` record for one of our requests into
    one readable line: what failed, why, and when the next try goes."""

    def filter(self, record: logging.LogRecord) -> bool:
        retrying = _RETRYING.get()
        if retrying is not None and record.msg == "stamina.retry_scheduled":
            what, mask = retrying
            extra = record.__dict__
            record.msg = "arctic_rl: %s failed (%s); retry %s in %.1f s"
            record.args = (
                what,
                mask(str(extra.get("stamina.caused_by"))),
                extra.get("stamina.retry_num"),
                extra.get("stamina.wait_for", 0.0),
            )
            if "stamina.caused_by" in extra:  # a structured handler shows it as it is
                extra["stamina.caused_by"] = mask(str(extra["stamina.caused_by"]))
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
        max_retries: int,
        retry_timeout: float,
        max_answer_bytes: int,
        token_env: str | None = None,
        traits: ServiceTraits | None = None,
    ) -> None:
        self._inner = inner
        self._token_env = token_env  # the variable the token came from, for a 401's message
        self._base_url = base_url
        self._authorization = SecretStr(f"Bearer {token}")
        self._mask = TokenMask(token)
        self._max_retries = max_retries
        self._retry_timeout = retry_timeout
        self._max_answer_bytes = max_answer_bytes
        self._reached = False  # whether the service has answered this client once
        self._traits = traits or ServiceTraits()  # shared with the client that found them

    def __repr__(self) -> str:
        return f"ServiceTransport(base_url={self._base_url!r})"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        _key_mutating_call(request)
        _outlast_long_poll(request)
        request.headers["Authorization"] = self._authorization.get_secret_value()
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING
        ANSWER_MASK.set(self._mask)  # whatever reads this answer up the task masks with it
        retrying: Token[tuple[str, TokenMask] | None] | None = None
        first_contact = not self._reached
        seconds = min(FIRST_CONTACT_RETRY_S, self._retry_timeout)
        budget = RetryBudget(seconds if first_contact else self._retry_timeout)
        try:
            try:
                return await self._attempt(request, retried=False)
            except Exception as exc:
                if retry_wait(exc) is False or self._max_retries <= 1:
                    raise
                first_failure: Exception | None = exc
            retrying = _RETRYING.set((f"{request.method} {request.url}", self._mask))
            # Only a failed first attempt pays for stamina (tens of microseconds a request):
            # its failure is replayed as stamina's first attempt; the waits are the budget's.
            async for attempt in stamina.retry_context(
                on=budget.wait, attempts=self._max_retries, timeout=None
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
        except ArcticRLError as exc:
            mask_error(exc, self._mask)
            raise
        finally:
            if retrying is not None:
                _RETRYING.reset(retrying)
        raise AssertionError("stamina ran no attempt")  # pragma: no cover

    def _unreachable(self, exc: httpx.TransportError, *, first_contact: bool) -> APIConnectionError:
        """The error once retries are spent: a first contact's says where the URL came from."""
        failure = self._mask(f"cannot reach {self._base_url}: {type(exc).__name__}: {exc}")
        if first_contact:
            message = f"{failure}; it never answered this client; {UNREACHABLE_HINT}"
            return APIConnectionError(message, code=UNREACHABLE_CODE)
        message = f"{failure}; it stopped answering and did not come back within the retry budget"
        return APIConnectionError(message, code=CONNECTION_LOST_CODE)

    async def _attempt(self, request: httpx.Request, *, retried: bool) -> httpx.Response:
        """One exchange; a failure after which the call cannot be sent again (`_retry`) is
        an `OutcomeUnknownError`."""
        try:
            return await self._exchange(request, retried=retried)
        except Exception as exc:
            served = self._traits.served_idempotency
            resend = served or resend_is_safe(request) or never_ran(exc)
            if resend or retry_wait(exc) is False:
                raise
            key = request.headers.get(IDEMPOTENCY_KEY_HEADER)
            raise mask_error(outcome_unknown(request, exc, key), self._mask) from exc

    async def _exchange(self, request: httpx.Request, *, retried: bool) -> httpx.Response:
        timing = current_timing()
        if timing is not None:
            timing.sending(request.headers.get("content-length"))
        deadline = AnswerDeadline(_answer_seconds(request))
        body = request.stream
        try:
            async with deadline:
                request.stream = deadline.watch(body)
                response = await plain_http.send(self._inner, request)
                self._reached = True
                if timing is not None:
                    timing.answered()
                return await self._checked(request, response, deadline, retried=retried)
        except TimeoutError:
            message = f"no whole answer within {deadline.seconds:.1f} s (and its bytes' share)"
            raise httpx.ReadTimeout(message, request=request) from None
        finally:
            request.stream = body

    async def _checked(
        self,
        request: httpx.Request,
        response: httpx.Response,
        deadline: AnswerDeadline,
        *,
        retried: bool,
    ) -> httpx.Response:
        """The answer, read and decompressed; raises for anything but a JSON success.

        Whether an error status is retried depends on the status alone: a body that cannot
        be read or parsed never turns a retried status into another error.
        """
        response.request = request  # as httpx's client would (a recording transport reads it)
        try:
            body = await read_capped(response, self._max_answer_bytes, deadline)
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
            require_json(answer)
            LAST_REQUEST_ID.set(answer.headers.get(REQUEST_ID_HEADER))
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
        err = status_error(answer)
        if isinstance(err, APIStatusError):
            add_remedy(err, request.method, str(request.url), self._token_env)
        raise err

    async def aclose(self) -> None:
        await self._inner.aclose()


def _answer_seconds(request: httpx.Request) -> float:
    """An attempt's deadline: connect and read timeouts, the read one already lengthened
    by the wait the request asked the service for (`_outlast_long_poll`)."""
    timeout = request.extensions.get("timeout")
    if not isinstance(timeout, dict):
        return DEFAULT_ANSWER_S
    parts = (timeout.get("connect"), timeout.get("read"))
    return sum(part for part in parts if part is not None) or DEFAULT_ANSWER_S


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


def _httpx_transport(settings: ClientSettings) -> httpx.AsyncHTTPTransport:
    """httpx's own transport: TLS verified (``SSL_CERT_FILE`` honoured), the proxy chosen
    for this URL (`_endpoint.proxy_for`: an explicit transport drops httpx's own choice),
    a small keep-alive pool for the one origin."""
    verify = settings.options.verify_tls
    return httpx.AsyncHTTPTransport(verify=verify, proxy=settings.proxy, limits=LIMITS)


def open_client(settings: ClientSettings) -> Client:
    """The generated `Client` over one `httpx.AsyncClient`, its requests all passing
    through `ServiceTransport`.

    The plain `Client`, not `AuthenticatedClient`: that one keeps the token in a field
    and in its header dict, both shown by its repr; the transport adds it instead. The
    base URL is parsed once, by the httpx client every call reuses.
    """
    base_url, options = settings.base_url, settings.options
    real = settings.inner or _httpx_transport(settings)
    transport = ServiceTransport(
        real,
        base_url=base_url,
        token=settings.token.get_secret_value(),
        max_retries=options.max_retries,
        retry_timeout=options.retry_timeout,
        max_answer_bytes=options.max_answer_bytes,
        token_env=settings.token_env,
        traits=settings.traits,
    )
    headers = {TOKEN_TYPE_HEADER: TOKEN_TYPE}
    timeout = httpx.Timeout(options.read_timeout, connect=options.connect_timeout)
    client = Client(
        base_url=base_url,
        headers=headers,
        timeout=timeout,
        verify_ssl=options.verify_tls,
        raise_on_unexpected_status=False,
    )
    http = httpx.AsyncClient(
        base_url=base_url, headers=headers, timeout=timeout, transport=transport
    )
    return client.set_async_httpx_client(http)
