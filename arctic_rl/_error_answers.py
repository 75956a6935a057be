"""An error answer read into its exception: the status and code mapped to one class, the
service's own message found in the body, Retry-After parsed, and a remedy named for a
refused token or a wrong URL."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from arctic_rl._errors import (
    CHUNK_GROUP_CODES,
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ChunkGroupError,
    ConflictError,
    InsufficientStorageError,
    InvalidRequestError,
    JobNotRunningError,
    NotFoundError,
    PayloadTooLargeError,
    RateLimitError,
    RequestExpiredError,
    ServerError,
    ServiceUnavailableError,
)

__all__ = [
    "LEGACY_MISSING_CHUNKS_MESSAGE",
    "URL_SETTINGS",
    "add_remedy",
    "error_from_response",
    "parse_retry_after",
]


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
    """Seconds from a Retry-After header: delta-seconds, or an HTTP date (one whose zone is
    ``-0000``, which parses without a zone, is UTC); None when it is neither."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        import datetime as dt
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.UTC)
        seconds = (when - dt.datetime.now(dt.UTC)).total_seconds()
    return None if math.isnan(seconds) else max(0.0, seconds)


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
            except RecursionError:
                return  # nested too deep here, and so from every later bracket inside it
            except ValueError:  # not JSON, or an integer too long
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
