"""Typed errors: one class per kind of failure, so callers can `except` precisely.

Every error carries the HTTP status, the service's error code, a message and the
`x-snowflake-request-id` (what Snowflake support asks for). None of them ever holds
the token: messages are built from the response body, never from request headers.
"""

from __future__ import annotations

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
    "ClientClosedError",
    "ConfigError",
    "ConflictError",
    "InsufficientStorageError",
    "InvalidRequestError",
    "JobFailedError",
    "JobNotRunningError",
    "NotFoundError",
    "NotServedError",
    "OutcomeUnknownError",
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
    "TooManyChunkGroupsError",
    "UnexpectedAnswerError",
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


class NotServedError(ArcticRLError, ValueError):
    """What was asked is something the service in use does not serve and the client cannot
    lower onto what it does (a KL loss term against today's service, a temperature other
    than 1.0): refused before anything is sent, naming the setting and the fix."""


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


# -- edges of the exchange: what a lost answer and a deadline leave the caller with ------


class OutcomeUnknownError(ArcticRLError):
    """A call that today's service does not deduplicate reached it, and its answer was lost.

    Sending it again could run it twice (today's service takes ``Idempotency-Key`` as a
    proposal only), so it was not: it may or may not have run. The message says how to
    find out (the job's ``global_steps``, its checkpoints, ...). `idempotency_key` is the
    key the call went with; `request_id` the exchange's, when an answer named one.
    """

    idempotency_key: str | None = None


# -- end of the exchange's edges ------------------------------------------------------


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


# -- a call's own client and uploads -------------------------------------------------------


class ClientClosedError(ArcticRLError):
    """The client was closed (``aclose``, ``shutdown``, the interpreter's exit) while the
    call ran. Nothing is retried once closing began; a call the service had accepted may
    still run there, and the same call on a new client is a new call."""


class TooManyChunkGroupsError(ConflictError):
    """409 ``too_many_chunk_groups``: the job holds as many unfinished uploads as the
    service allows (uploads cut mid-way, each kept until it expires). The client has
    already abandoned the ones it left open itself; the message says what else helps."""
