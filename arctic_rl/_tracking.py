"""Reading one request's polls: its state, cursor, result chunks and end.

A request's poll answer is read by `RequestTracker`, a small state machine: each
`RequestStatus` either finishes the wait (a result, or a typed error) or says whether to
poll again at once (more result pages are queued) or when the schedule says
(`arctic_rl._polling` decides when).
"""

from __future__ import annotations

import base64
import enum
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cortex_gs_client.models import InlineBinaryResult, JsonResult, RequestEvent, RequestStatus
from cortex_gs_client.types import Unset
from cortex_gs_contract import ErrorCode, JobState, RequestState

from arctic_rl._errors import RequestFailedError, ResultFrameError

if TYPE_CHECKING:
    from arctic_rl.wire import AssemblyPool

__all__ = [
    "IN_FLIGHT_REQUEST_STATES",
    "RUNNING_JOB_STATE",
    "TERMINAL_JOB_STATES",
    "Finished",
    "Next",
    "RequestTracker",
    "ResultChunks",
    "normalize_state",
]

RESULT_CHUNK_EVENT = "result_chunk"

RUNNING_JOB_STATE = JobState.running.value
# A job in one of these will not run again ("completed" is an older server's word for it).
TERMINAL_JOB_STATES = frozenset(
    {JobState.cancelled.value, JobState.terminated.value, JobState.failed.value, "completed"}
)
IN_FLIGHT_REQUEST_STATES = frozenset(
    {RequestState.pending.value, RequestState.running.value, RequestState.streaming.value}
)
_STATE_ALIASES = {
    "done": "completed",
    "complete": "completed",
    "succeeded": "completed",
    "success": "completed",
    "canceled": "cancelled",
    "cancelling": "cancelled",
    "canceling": "cancelled",
    "error": "failed",
}


def normalize_state(raw: Any) -> str:
    """One vocabulary for job and request states across server generations."""
    state = str(getattr(raw, "value", raw) or "unknown").strip().lower()
    for prefix in ("job_state_", "request_state_"):
        state = state.removeprefix(prefix)
    return _STATE_ALIASES.get(state, state)


class Next(enum.Enum):
    """What a poll answer asks for when it does not finish the wait."""

    POLL_NOW = "poll_now"  # more result pages are queued
    POLL_LATER = "poll_later"  # still in flight


@dataclass(frozen=True)
class Finished:
    """The request succeeded with this (decoded) result."""

    value: Any


class RequestTracker:
    """Reads successive poll answers of one request: its cursor, result chunks and end.

    ``pool``: the client's `wire.AssemblyPool`, which its result chunks are assembled with."""

    def __init__(self, request_id: str, pool: AssemblyPool | None = None) -> None:
        self.request_id = request_id
        self.cursor: str | None = None
        self.state = "unknown"
        self._chunks = ResultChunks(pool)

    def read(self, status: RequestStatus) -> Finished | Next:
        """Take one poll answer; raise when the request failed."""
        events = [] if isinstance(status.events, Unset) else status.events
        for event in events:
            if event.type_ == RESULT_CHUNK_EVENT:
                self._chunks.add(event)
        # "" means nothing is queued right now: keep reading from where we are.
        next_cursor = "" if isinstance(status.next_cursor, Unset) else status.next_cursor
        self.cursor = next_cursor or self.cursor
        self.state = normalize_state(status.status)
        if self.state == "completed":
            return self._completed(status, more_pages=bool(next_cursor))
        if self.state not in IN_FLIGHT_REQUEST_STATES:
            raise _request_failure(self.request_id, self.state, status)
        return Next.POLL_NOW if events and next_cursor else Next.POLL_LATER

    def _completed(self, status: RequestStatus, *, more_pages: bool) -> Finished | Next:
        result = None if isinstance(status.result, Unset) else status.result
        if not (self._chunks.started or (more_pages and not result)):
            # A success without a result (proto3 may omit it) is an empty result.
            return Finished(_decode_result(result))
        if self._chunks.complete:
            return Finished(self._chunks.value())
        if more_pages:
            return Next.POLL_NOW
        raise ResultFrameError(
            f"request {self.request_id} completed without all its result chunks",
            code=ErrorCode.missing_chunks.value,
        )


class ResultChunks:
    """Result-chunk events -> one verified frame (each payload hash checked on arrival),
    assembled with ``pool`` (without one, the assembler's own)."""

    def __init__(self, pool: AssemblyPool | None = None) -> None:
        self._pool = pool
        self._assembler: Any = None
        self._seen: set[int] = set()

    @property
    def started(self) -> bool:
        return self._assembler is not None

    @property
    def complete(self) -> bool:
        return self._assembler is not None and bool(self._assembler.complete)

    def add(self, event: RequestEvent) -> None:
        from arctic_rl import wire

        idx = -1 if isinstance(event.chunk_idx, Unset) else event.chunk_idx
        if idx in self._seen:
            return  # a re-read page; already have it
        if isinstance(event.payload_b64, Unset):
            raise ResultFrameError(
                f"result chunk {idx} carries no payload", code=ErrorCode.missing_chunks.value
            )
        payload = base64.b64decode(event.payload_b64)
        expected = event.payload_sha256
        if expected and hashlib.sha256(payload).hexdigest() != expected:
            raise ResultFrameError(
                f"result chunk {idx} failed its sha256 check", code=ErrorCode.hash_mismatch.value
            )
        if self._assembler is None:
            self._assembler = wire.ChunkAssembler(kind="result_chunk", pool=self._pool)
        descriptor = self._assembler.add(payload)
        self._seen.add(descriptor.chunk_idx)

    def value(self) -> Any:
        return self._assembler.value()


def _decode_result(result: InlineBinaryResult | JsonResult | None) -> Any:
    if isinstance(result, InlineBinaryResult):
        from arctic_rl import wire

        return wire.loads(base64.b64decode(result.payload_b64))
    return {} if result is None else result.to_dict()


def _request_failure(request_id: str, state: str, status: RequestStatus) -> RequestFailedError:
    """Today ``error`` is a string (``""`` when none); an older mock sent an Error object."""
    error: Any = None if isinstance(status.error, Unset) else status.error
    if isinstance(error, Mapping):
        return RequestFailedError(
            str(error.get("message") or f"request {request_id} ended {state}"),
            code=error.get("code") or state,
            request_id=error.get("request_id"),
            details=error.get("details"),
        )
    message = f"request {request_id} ended {state}" + (f": {error}" if error else "")
    code = None if isinstance(status.error_code, Unset) else status.error_code
    return RequestFailedError(message, code=code or state)
