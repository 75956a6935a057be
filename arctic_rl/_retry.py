"""When a failed exchange is sent again, and how long each attempt may take.

The service transport (`_http.ServiceTransport`) runs one retry loop per logical call;
the rules it follows are here:

- **What is retried**: connection failures and timeouts, 408, 429 and 5xx but 501 (a full
  disk's 507 included). Decided from the status alone, before its body is read.
- **What may be sent again**: a call today's service runs at most once however often it
  arrives (a read, a DELETE, a cancel, a forward-backward chunk: its chunk group id is the
  service's own idempotency identity). Any other call (a step, a save, an operation, a generate, a
  job create, ...) is sent again only when it provably never reached the service: the
  connection was refused or timed out, or the request was not written whole; or the
  service refused it unrun (408, 429, 503, 507). Otherwise its outcome is unknown, and an
  `OutcomeUnknownError` says so and how to check. A service that serves the proposed
  ``Idempotency-Key`` (``served_idempotency``) gets such calls again with the same key.
- **How long**: one budget per call (the retry budget, or the short first-contact one);
  every wait is clamped to what is left of it, and a ``Retry-After`` longer than that
  ends the retries at once.
- **One attempt**: its answer must come within the connect and read timeouts plus the wait
  the request asked the service for (``wait_s``); bytes moving either way push that
  deadline out by what they would take at `MIN_PROGRESS_BYTES_PER_S`, so a large body that
  keeps moving is never cut, and a server trickling a byte now and then is.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from arctic_rl._errors import (
    APIStatusError,
    OutcomeUnknownError,
    RateLimitError,
    ServerError,
)

__all__ = [
    "MIN_PROGRESS_BYTES_PER_S",
    "AnswerDeadline",
    "RetryBudget",
    "outcome_unknown",
    "resend_is_safe",
    "retry_wait",
]

MAX_RETRY_AFTER_S = 60.0
RETRY_WAIT_INITIAL_S = 0.5
RETRY_WAIT_MAX_S = 12.0
RETRY_WAIT_JITTER_S = 1.0
MIN_PROGRESS_BYTES_PER_S = 64 * 1024
RETRIED_CLIENT_STATUSES = frozenset({408, 429})
# Answers saying the service refused the call without running it.
REFUSED_UNRUN_STATUSES = frozenset({408, 429, 503, 507})
# Failures that leave the request unwritten (or not written whole): no service ran it.
_NEVER_REACHED = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    httpx.WriteError,
    httpx.WriteTimeout,
    httpx.ProxyError,
    httpx.UnsupportedProtocol,
)
_RESENDABLE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})
CHUNK_CONTENT_TYPE = "application/octet-stream"
CANCEL_SUFFIX = ":cancel"  # documented as idempotent while cancelling or cancelled
# The chunked route whose chunk group id today's service uses as its idempotency identity.
DEDUPLICATED_CHUNKS = "/forward-backward"
# How to find out whether a call whose answer was lost ran, by the route's last part.
_HOW_TO_CHECK = {
    "step": "the next step's global_steps (or a checkpoint's, global_stepN) tells: two more "
    "than the last one seen means it ran",
    "save": "look at the job's checkpoints (list_checkpoints) for the one it would have made",
    "load": "the next step's global_steps tells whether the checkpoint was loaded",
    "": "look at the jobs (list_jobs) for one created just now",
}
_HOW_TO_CHECK_ANY = "look at the job (get_job) and its checkpoints (list_checkpoints)"


def retry_wait(exc: BaseException) -> bool | float:
    """False: not retried; True: after a backoff; seconds: what ``Retry-After`` asked."""
    if isinstance(exc, APIStatusError):
        status = exc.status or 0
        if status in RETRIED_CLIENT_STATUSES or (status >= 500 and status != 501):
            after = exc.retry_after if isinstance(exc, RateLimitError | ServerError) else None
            return True if after is None else after
        return False
    return isinstance(exc, httpx.TransportError)


class RetryBudget:
    """The retries of one logical call: its deadline, and the wait before each next try."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._deadline = clock() + seconds
        self._retries = 0

    def left(self) -> float:
        return self._deadline - self._clock()

    def wait(self, exc: Exception) -> bool | float:
        """The hook of the retry loop: False to give up, else the seconds to wait."""
        wanted = retry_wait(exc)
        left = self.left()
        if wanted is False or left <= 0:
            return False
        if wanted is True:
            backoff = min(RETRY_WAIT_INITIAL_S * 2**self._retries, RETRY_WAIT_MAX_S)
            wanted = backoff + random.uniform(0, RETRY_WAIT_JITTER_S)
        elif wanted > left:
            return False  # the service asks for longer than the budget has left
        self._retries += 1
        return min(wanted, MAX_RETRY_AFTER_S, left)


def resend_is_safe(request: httpx.Request) -> bool:
    """Whether today's service runs this call at most once however often it arrives."""
    if request.method in _RESENDABLE_METHODS or request.url.path.endswith(CANCEL_SUFFIX):
        return True
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    chunk = content_type == CHUNK_CONTENT_TYPE
    return chunk and request.url.path.endswith(DEDUPLICATED_CHUNKS)


def never_ran(exc: BaseException) -> bool:
    """The call provably did not run: never written whole, or refused unrun."""
    if isinstance(exc, APIStatusError):
        return exc.status in REFUSED_UNRUN_STATUSES
    return isinstance(exc, _NEVER_REACHED)


def outcome_unknown(request: httpx.Request, exc: Exception, key: str | None) -> OutcomeUnknownError:
    """The error for a call that reached the service and whose answer was lost."""
    last = request.url.path.rstrip("/").rsplit("/", 1)[-1]
    route = "" if request.url.path.endswith("/") else last
    how = _HOW_TO_CHECK.get(route, _HOW_TO_CHECK_ANY)
    cause = str(exc) or type(exc).__name__
    message = (
        f"{request.method} {request.url.path}: the request reached the service and no answer "
        f"says whether it ran ({type(exc).__name__}: {cause}); today's service does not "
        f"recognise a call sent again (Idempotency-Key is a proposal there), so it was not "
        f"resent and may or may not have run: {how}, and send it again only if it did not"
    )
    err = OutcomeUnknownError(
        message,
        status=getattr(exc, "status", None),
        code="outcome_unknown",
        request_id=getattr(exc, "request_id", None),
    )
    err.idempotency_key = key
    return err


class AnswerDeadline:
    """The deadline of one attempt, pushed out as bytes move (see the module's doc)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._timeout: asyncio.Timeout | None = None

    async def __aenter__(self) -> AnswerDeadline:
        loop = asyncio.get_running_loop()
        self._timeout = asyncio.timeout_at(loop.time() + self.seconds)
        await self._timeout.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self._timeout is not None
        return await self._timeout.__aexit__(*exc_info)

    def moved(self, count: int) -> None:
        """``count`` bytes went out or came in: the deadline moves out by their share."""
        if self._timeout is not None and count > 0:
            when = self._timeout.when()
            if when is not None:
                self._timeout.reschedule(when + count / MIN_PROGRESS_BYTES_PER_S)

    def watch(self, stream: Any) -> httpx.AsyncByteStream:
        """A request body that counts its bytes as progress."""
        return _CountedStream(stream, self)


class _CountedStream(httpx.AsyncByteStream):
    def __init__(self, inner: Any, deadline: AnswerDeadline) -> None:
        self._inner = inner
        self._deadline = deadline

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            yield chunk
            self._deadline.moved(len(chunk))

    async def aclose(self) -> None:
        close = getattr(self._inner, "aclose", None)
        if close is not None:
            await close()
