"""Typed errors: one class per kind of failure, so callers can `except` precisely.

Every error carries the HTTP status, the service's error code, a message and the
`x-snowflake-request-id` (what Snowflake support asks for). None of them ever holds
the token: messages are built from the response body, never from request headers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "APIConnectionError",
    "ArcticRLError",
    "AuthenticationError",
    "BackendNotAvailableError",
    "BadRequestError",
    "ChunkGroupError",
    "ConfigError",
    "ConflictError",
    "JobFailedError",
    "JobNotRunningError",
    "NotFoundError",
    "PayloadTooLargeError",
    "RateLimitError",
    "RequestFailedError",
    "RequestTimeoutError",
    "ServerError",
    "ServiceUnavailableError",
    "ValidationError",
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
    """409 with a chunk_group_* code: the server's view of an upload disagrees with ours."""


class JobNotRunningError(ConflictError):
    """The job is not (or no longer) running, so data-plane calls cannot be served."""


class PayloadTooLargeError(APIStatusError):
    """413: one request body exceeded the service's limit (lower cortex.chunk_bytes)."""


class ValidationError(APIStatusError):
    """422: the JSON body or a parameter failed validation."""


class RateLimitError(APIStatusError):
    """429: too many requests; `retry_after` says how long the service asked us to wait."""

    retry_after: float | None = None


class ServerError(APIStatusError):
    """5xx: the service failed."""

    retry_after: float | None = None


class ServiceUnavailableError(ServerError):
    """503: the service is temporarily unavailable."""


class APIConnectionError(ArcticRLError):
    """The service could not be reached or the connection broke (after retries)."""


class RequestTimeoutError(ArcticRLError):
    """A request or job did not finish within the configured poll timeout."""


class RequestFailedError(ArcticRLError):
    """An accepted request ended in the failed or cancelled state."""


class JobFailedError(ArcticRLError):
    """The job ended (failed, cancelled, terminated) while we waited for it to run."""


_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: AuthenticationError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: ValidationError,
    429: RateLimitError,
    503: ServiceUnavailableError,
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


def error_from_response(
    status: int, body: Any, headers: Mapping[str, str] | None = None
) -> APIStatusError:
    """Build the typed error for an error response (both body shapes the service uses)."""
    headers = headers or {}
    request_id = headers.get("x-snowflake-request-id")
    code: str | int | None = None
    details: list[Any] | None = None
    message = ""
    if isinstance(body, Mapping):
        code = body.get("code")
        message = str(body.get("message") or "")
        request_id = request_id or body.get("request_id")
        raw_details = body.get("details") or body.get("detail")
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
    elif isinstance(body, str):
        message = body[:500]
    if not message:
        message = f"HTTP {status}"
    cls: type[APIStatusError]
    if status == 409 and code in CHUNK_GROUP_CODES:
        cls = ChunkGroupError
    elif status == 409 and code == "job_not_running":
        cls = JobNotRunningError
    elif status in _BY_STATUS:
        cls = _BY_STATUS[status]
    elif status >= 500:
        cls = ServerError
    else:
        cls = APIStatusError
    err = cls(message, status=status, code=code, request_id=request_id, details=details)
    if isinstance(err, RateLimitError | ServerError):
        err.retry_after = parse_retry_after(headers.get("retry-after"))
    return err
