"""Reading the service's answers: a generated call's parsed model, a poll's reading.

What is outside the contract becomes a typed error here (`UnexpectedAnswerError`, a
`ResultFrameError` for a result that is not a valid DSSST1 frame), carrying the
exchange's ``x-snowflake-request-id`` where the service sent one, its text masked with
the client's token (`_masking`): never a bare parser error.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from arctic_rl._errors import ArcticRLError, ResultFrameError, UnexpectedAnswerError
from arctic_rl._masking import ANSWER_MASK, LAST_REQUEST_ID, mask_error
from arctic_rl._timing import current as current_timing

if TYPE_CHECKING:
    from cortex_gs_client.models import RequestStatus
    from cortex_gs_client.types import Response

    from arctic_rl._tracking import RequestTracker

__all__ = ["parsed", "parsed_and_id", "read_poll"]

T = TypeVar("T")
# What a parser may raise on an answer outside the contract: a missing key, a wrong type,
# bad base64 or an integer too long (ValueError), JSON nested too deep (RecursionError).
PARSE_ERRORS = (KeyError, TypeError, ValueError, RecursionError)


async def parsed(call: Awaitable[Response[Any]], *expected: type[T]) -> T:
    """The parsed answer of a generated call, or a clear error when it is outside the contract."""
    return (await parsed_and_id(call, *expected))[0]


async def parsed_and_id(call: Awaitable[Response[Any]], *expected: type[T]) -> tuple[T, str | None]:
    """The parsed answer and its x-snowflake-request-id.

    Error statuses never get here (the service transport raises them); an undocumented success
    status parses to None, an answer of the wrong shape fails in the generated parser.
    """
    from cortex_gs_contract import REQUEST_ID_HEADER

    try:
        response = await call
    except ArcticRLError:
        raise
    except PARSE_ERRORS as exc:
        raise mask_error(
            UnexpectedAnswerError(
                f"the service answered outside its contract: {type(exc).__name__}: "
                f"{str(exc)[:200]}",
                code="unexpected_answer",
                request_id=LAST_REQUEST_ID.get(),
            )
        ) from exc
    request_id = response.headers.get(REQUEST_ID_HEADER)
    if isinstance(response.parsed, expected):
        return response.parsed, request_id
    mask = ANSWER_MASK.get()
    quoted = response.content[:200].decode("utf-8", "replace")
    raise UnexpectedAnswerError(
        f"the service answered HTTP {response.status_code} outside its contract: "
        f"{mask(quoted) if mask else quoted!r}",
        status=response.status_code,
        code="unexpected_answer",
        request_id=request_id,
    )


def read_poll(tracker: RequestTracker, status: RequestStatus, sf_request_id: str | None) -> Any:
    """The tracker's reading of one poll; its errors carry the poll's request id, and the
    running call's timing sees the page (its stamps; whether it brought the result)."""
    from arctic_rl.wire import WireError

    try:
        outcome = tracker.read(status)
    except WireError as exc:
        err = ResultFrameError(
            f"request {tracker.request_id}'s result is not a valid DSSST1 frame: {exc.message}",
            code=exc.code,
            request_id=sf_request_id,
        )
        err.wire_code = exc.code
        raise err from exc
    except ArcticRLError as exc:
        exc.request_id = exc.request_id or sf_request_id
        mask_error(exc)
        raise
    except PARSE_ERRORS as exc:  # bad base64, a page of the wrong shape
        raise mask_error(
            ResultFrameError(
                f"request {tracker.request_id}'s result could not be read: "
                f"{type(exc).__name__}: {str(exc)[:200]}",
                code="unreadable_result",
                request_id=sf_request_id,
            )
        ) from exc
    timing = current_timing()
    if timing is not None:
        timing.read_status(status, tracker.state)
    return outcome
