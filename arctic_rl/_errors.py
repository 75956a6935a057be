"""Typed errors: one class per kind of failure, so callers can `except` precisely.

Every error carries the HTTP status, the service's error code, a message and the
`x-snowflake-request-id` (what Snowflake support asks for). None of them ever holds
the token: messages are built from the response body, never from request headers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = [
    "APIConnectionError",
    "AnswerTooLargeError",
    "ArcticRLError",
    "AuthenticationError",
    "BackendNotAvailableError",
    "BadRequestError",
    "CheckpointIdentityError",
    "CheckpointMismatchError",
    "ChunkGroupError",
    "ConfigError",
    "ConflictError",
    "InsufficientStorageError",
    "InvalidRequestError",
    "JobFailedError",
    "JobNotRunningError",
    "NotFoundError",
    "PayloadTooLargeError",
    "RateLimitError",
    "RedirectError",
    "RequestExpiredError",
    "RequestFailedError",
    "RequestTimeoutError",
    "ResultFrameError",
    "ServerError",
    "ServiceUnavailableError",
    "TokenLayoutError",
    "UnexpectedAnswerError",
    "error_from_response",
]

CHUNK_GROUP_CODES = frozenset(
    {"chunk_group_restart_required", "chunk_group_conflict", "chunk_group_missing_chunks"}
)


class ArcticRLError(Exception):
    """Base class of every error this SDK raises on purpose."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | int | None = None,
        request_id: str | None = None,
        details: list[Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.request_id = request_id
        self.details = details

    def __str__(self) -> str:
        parts = [self.message]
        if self.status is not None or self.code is not None:
            parts.append(f"(status={self.status}, code={self.code})")
        if self.request_id:
            parts.append(f"[x-snowflake-request-id: {self.request_id}]")
        return " ".join(parts)

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only constructor arguments: keep errors picklable (Ray ships them).
        return (_rebuild, (type(self), self.message, self.__dict__.copy()))


def _rebuild(cls: type[ArcticRLError], message: str, state: dict[str, Any]) -> ArcticRLError:
    err = cls.__new__(cls)
    Exception.__init__(err, message)
    err.__dict__.update(state)
    return err


class ConfigError(ArcticRLError, ValueError):
    """The configuration cannot describe a usable client (missing host, token variable...)."""


class BackendNotAvailableError(ArcticRLError, ImportError):
    """The selected backend needs a package that is not installed (on-prem backends)."""


class TokenLayoutError(ArcticRLError, ValueError):
    """A per-token input whose layout the client cannot know on its path (refused before
    anything is sent, rather than trained on the wrong tokens)."""


class APIStatusError(ArcticRLError):
    """The service answered with an error status."""


class BadRequestError(APIStatusError):
    """400: the request (often a DSSST1 frame) was malformed."""


class AuthenticationError(APIStatusError):
    """401: the token is missing, wrong or expired."""


class NotFoundError(APIStatusError):
    """404: unknown job, request or checkpoint."""


class ConflictError(APIStatusError):
    """409: the request conflicts with the job's state or an earlier request."""


class ChunkGroupError(ConflictError):
    """409 with a chunk_group_* code: the server's view of an upload disagrees with ours.

    `missing_chunk_count` (when the service says) is how many chunks it lacks in all;
    `details` may list only the first of them.
    """

    missing_chunk_count: int | None = None


class JobNotRunningError(ConflictError):
    """The job is not (or no longer) running, so data-plane calls cannot be served."""


class RequestExpiredError(APIStatusError):
    """410 ``request_expired``: the request finished and the service pruned its result.

    The service keeps finished requests' results for a limited time and number per job;
    polling again cannot bring it back, so this is never retried: submit the work again.
    `expired_request_id` is the data-plane request it concerns (`request_id`, as on every
    error, is the exchange's x-snowflake-request-id).
    """

    expired_request_id: str | None = None


class PayloadTooLargeError(APIStatusError):
    """413: one request body exceeded the service's limit (lower cortex.chunk_bytes)."""


class InvalidRequestError(APIStatusError):
    """422: the JSON body or a parameter failed the service's validation."""


class RateLimitError(APIStatusError):
    """429: too many requests; `retry_after` says how long the service asked us to wait."""

    retry_after: float | None = None


class ServerError(APIStatusError):
    """5xx: the service failed."""

    retry_after: float | None = None


class ServiceUnavailableError(ServerError):
    """503: the service is temporarily unavailable."""


class InsufficientStorageError(ServerError):
    """507: the service's storage is full (``storage_full``); nothing of the call was kept.

    Retried with backoff as long as Retry-After and the retry budget allow; raised when the
    space does not come back in that time. The same call succeeds once it does.
    """


class UnexpectedAnswerError(ArcticRLError):
    """A success the contract does not allow: a redirect, a body that is not JSON, ..."""


class RedirectError(UnexpectedAnswerError):
    """3xx: the service never redirects, so the answer is not the one asked for.

    Followed, a redirect could carry the token to another host; read as a success, its
    body would pass for the job or request. `location` says where it pointed.
    """

    location: str | None = None


class AnswerTooLargeError(UnexpectedAnswerError):
    """The answer, once decompressed, is larger than `cortex.max_answer_bytes` allows."""


class ResultFrameError(UnexpectedAnswerError):
    """A request's result is not a valid DSSST1 frame; `wire_code` is the codec's code."""

    wire_code: str | None = None


class APIConnectionError(ArcticRLError):
    """The service could not be reached or the connection broke (after retries)."""


class RequestTimeoutError(ArcticRLError):
    """A request or job did not finish within the configured poll timeout."""


class RequestFailedError(ArcticRLError):
    """An accepted request ended in the failed or cancelled state."""


class JobFailedError(ArcticRLError):
    """The job ended (failed, cancelled, terminated) while we waited for it to run."""


class CheckpointIdentityError(ArcticRLError):
    """A folder to resume from names no Cortex checkpoint this client can use (no identity
    file, an unreadable one, or one from another model): refused rather than a fresh start."""


class CheckpointMismatchError(ArcticRLError):
    """The service's step after a save or load is not the one the folder records."""


_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: AuthenticationError,
    404: NotFoundError,
    409: ConflictError,
    410: RequestExpiredError,
    413: PayloadTooLargeError,
    422: InvalidRequestError,
    429: RateLimitError,
    503: ServiceUnavailableError,
    507: InsufficientStorageError,
}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds form; dates are rare here)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        import datetime as dt

        return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


# The older service's answer for a chunk group with holes: no code, just this message.
LEGACY_MISSING_CHUNKS_MESSAGE = "request chunk group is missing chunks"
_MAX_ERROR_DEPTH = 8
_JSON_START = re.compile(r"[\[{]")


def _error_objects(value: Any, depth: int = 0) -> Iterator[Mapping[str, Any]]:
    """Every JSON object in an error body, outermost first.

    The gateway in front of the service may wrap the service's error as a JSON text inside a
    string field ("GS-wrapped"), so JSON embedded in strings is searched too.
    """
    if depth > _MAX_ERROR_DEPTH:
        return
    if isinstance(value, Mapping):
        yield value
        for child in value.values():
            yield from _error_objects(child, depth + 1)
    elif isinstance(value, list):
        for child in value:
            yield from _error_objects(child, depth + 1)
    elif isinstance(value, str):
        decoder = json.JSONDecoder()
        index = 0
        while (start := _JSON_START.search(value, index)) is not None:
            try:
                decoded, index = decoder.raw_decode(value, start.start())
            except ValueError:
                index = start.start() + 1
                continue
            yield from _error_objects(decoded, depth + 1)


def _chunk_group_error(body: Any) -> Mapping[str, Any] | None:
    """The object describing a chunk-group error anywhere in the body, with its string code."""
    for obj in _error_objects(body):
        code = obj.get("error_code") if obj.get("error_code") in CHUNK_GROUP_CODES else None
        code = code or (obj.get("code") if obj.get("code") in CHUNK_GROUP_CODES else None)
        if code is not None:
            return {**obj, "code": code}
        if obj.get("chunk_group_id") and obj.get("message") == LEGACY_MISSING_CHUNKS_MESSAGE:
            return {**obj, "code": "chunk_group_missing_chunks"}
    return None


def _innermost_message(body: Mapping[str, Any]) -> str:
    """The most specific human-readable message: a wrapped error's own, else the outer one."""
    messages = [str(o["message"]) for o in _error_objects(body) if o.get("message")]
    readable = [m for m in messages if not m.lstrip().startswith(("{", "["))]
    return (readable or messages or [""])[-1]


def _error_class(status: int, code: str | int | None, chunk_group: bool) -> type[APIStatusError]:
    """The error type for a status (and the code, where one type covers several)."""
    if chunk_group:
        return ChunkGroupError
    if status == 409 and code == "job_not_running":
        return JobNotRunningError
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else APIStatusError


def error_from_response(
    status: int, body: Any, headers: Mapping[str, str] | None = None
) -> APIStatusError:
    """Build the typed error for an error response, in any shape the service uses.

    Today: ``{"message", "code": <int>}`` (chunk-group errors carry a string code),
    FastAPI's ``{"detail": [...]}`` or ``{"detail": "..."}``, a gateway-wrapped error (JSON
    in a string), and the older missing-chunks body ``{chunk_group_id, message}``. Proposed
    extras are used when present: a string ``error_code``, ``request_id`` and ``details``.
    ``code`` on the error is the string code when the service gave one, else its integer.
    """
    from cortex_gs_contract import REQUEST_ID_HEADER, RETRY_AFTER_HEADER  # the client's, lazily

    headers = {name.lower(): value for name, value in (headers or {}).items()}
    request_id = headers.get(REQUEST_ID_HEADER.lower())
    code: str | int | None = None
    details: list[Any] | None = None
    message = ""
    chunk_group = _chunk_group_error(body)
    if isinstance(body, str) and chunk_group is None:
        message = body[:500]
    elif isinstance(body, Mapping) or chunk_group is not None:
        outer: Mapping[str, Any] = body if isinstance(body, Mapping) else {}
        source = chunk_group or outer
        code = source.get("code") if chunk_group else outer.get("error_code") or outer.get("code")
        message = _innermost_message(source) if source else ""
        request_id = request_id or outer.get("request_id") or source.get("request_id")
        raw_details = source.get("details") or source.get("detail") or outer.get("detail")
        if isinstance(raw_details, list):
            details = raw_details
            if not message:
                message = "; ".join(
                    f"{'.'.join(map(str, d.get('loc', [])))}: {d.get('msg')}"
                    for d in raw_details
                    if isinstance(d, Mapping)
                )
        elif isinstance(raw_details, str) and not message:
            message = raw_details
    if not message:
        message = f"HTTP {status}"
    cls = _error_class(status, code, chunk_group is not None)
    err = cls(message, status=status, code=code, request_id=request_id, details=details)
    if isinstance(err, ChunkGroupError) and chunk_group is not None:
        count = chunk_group.get("missing_chunk_count")
        err.missing_chunk_count = count if isinstance(count, int) else None
    if isinstance(err, RequestExpiredError) and isinstance(body, Mapping):
        expired = body.get("expired_request_id")
        err.expired_request_id = expired if isinstance(expired, str) else None
    if isinstance(err, RateLimitError | ServerError):
        err.retry_after = parse_retry_after(headers.get(RETRY_AFTER_HEADER.lower()))
    return err


URL_SETTINGS = (
    "cortex.base_url, or cortex.host with cortex.database, cortex.schema and cortex.endpoint"
)


def add_remedy(err: APIStatusError, method: str, url: str, token_env: str | None) -> None:
    """Say what to fix on a 401/403 (the token's variable) or a 404 (the URL and the
    settings that built it); other errors are left as they are."""
    if isinstance(err, AuthenticationError):
        variable = f"${token_env}" if token_env else "the variable cortex.pat_env names"
        remedy = (
            f"{method} {url} refused the token in {variable} (cortex.pat_env): set it to a "
            "valid, unexpired programmatic access token"
        )
    elif isinstance(err, NotFoundError):
        remedy = f"{method} {url}; that URL is built from {URL_SETTINGS}"
    else:
        return
    err.message = f"{err.message}: {remedy}"
    err.args = (err.message,)
