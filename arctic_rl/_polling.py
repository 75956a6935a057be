"""Polling: a job until it runs, a data-plane request until it ends (collecting its result).

A request's poll answer is read by `RequestTracker`, a small state machine: each
`RequestStatus` either finishes the wait (a result, or a typed error) or says whether to
poll again at once (more result pages are queued) or after a pause.

When to poll is decided here too, by `PollPlanner` (one per service client) and the
`RequestPolls` it hands out for each request:

- The fallback is the documented schedule: a poll as soon as the request is accepted, then
  pauses of ``initial_s`` (0.5 s) growing by ``factor`` (x1.25) up to ``max_s`` (6 s). Its
  poll times are counted from the request's acceptance (0, 0.5, 1.125, 1.906, ... s).
- Learning: per job and operation kind, the planner keeps how long the last few requests
  took, from the request's own ``created_at``/``updated_at`` when they have sub-second
  resolution, else from the client's clock. It also keeps the shortest recent poll round
  trip (RTT).
- With an estimate ``D`` (the median of the recent durations), the first poll is sent at
  ``D - RTT`` after acceptance, so that it reaches the service just as the request ends.
  Up to ``probes`` polls are made near there, each step doubling from a tenth of ``D``;
  after them the schedule goes on with the fallback's own poll times, skipping those
  already passed.
- The bound: for a request lasting ``T``, the number of polls is at most
  ``probes + fallback_polls(T)``, the documented schedule's count for the same duration plus
  a constant; and a request that runs far longer than estimated is found by the same poll
  time the documented schedule would have found it with (within one of its steps).
  Result pages (``next_cursor`` set) are read at once and are not polls of the schedule.
- ``Retry-After``: a throttled poll (429, 503) is retried by the HTTP seam after the
  service's ``Retry-After``; the schedule resumes from the time that answer came back.
- The proposed long poll (``wait_s``, on polls and submits) is used while the job's service
  serves it. A poll refused for ``wait_s`` (400/422), a long poll answered at once without
  news, or a submit answered 202 well before its ``wait_s`` marks the job as not serving
  it: from then on its requests follow the schedule above and send no ``wait_s``.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import logging
import statistics
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cortex_gs_client.models import InlineBinaryResult, JsonResult, RequestEvent, RequestStatus
from cortex_gs_client.types import Unset
from cortex_gs_contract import ErrorCode, JobState, RequestState

from arctic_rl._errors import RequestFailedError, ResultFrameError

__all__ = [
    "IN_FLIGHT_REQUEST_STATES",
    "RUNNING_JOB_STATE",
    "TERMINAL_JOB_STATES",
    "Backoff",
    "Next",
    "PollPlanner",
    "PollSettings",
    "RequestPolls",
    "RequestTracker",
    "fallback_polls",
    "normalize_state",
]

log = logging.getLogger("arctic_rl")

POLL_INITIAL_S = 0.5
POLL_FACTOR = 1.25
POLL_MAX_S = 6.0
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


class Backoff:
    """The pause between polls: grows by POLL_FACTOR up to POLL_MAX_S."""

    def __init__(self) -> None:
        self._delay = POLL_INITIAL_S

    def next(self) -> float:
        delay = self._delay
        self._delay = min(delay * POLL_FACTOR, POLL_MAX_S)
        return delay


class Next(enum.Enum):
    """What a poll answer asks for when it does not finish the wait."""

    POLL_NOW = "poll_now"  # more result pages are queued
    POLL_LATER = "poll_later"  # still in flight


@dataclass(frozen=True)
class Finished:
    """The request succeeded with this (decoded) result."""

    value: Any


class RequestTracker:
    """Reads successive poll answers of one request: its cursor, result chunks and end."""

    def __init__(self, request_id: str) -> None:
        self.request_id = request_id
        self.cursor: str | None = None
        self.state = "unknown"
        self._chunks = ResultChunks()

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
    """Result-chunk events -> one verified frame (each payload hash checked on arrival)."""

    def __init__(self) -> None:
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
            self._assembler = wire.ChunkAssembler(kind="result_chunk")
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


@dataclass(frozen=True)
class PollSettings:
    """The poll schedule's knobs (CortexConfig's ``poll_*`` fields)."""

    adaptive: bool = True  # False: the documented schedule alone
    initial_s: float = POLL_INITIAL_S
    factor: float = POLL_FACTOR
    max_s: float = POLL_MAX_S
    probes: int = 3  # polls near the expected finish before the documented schedule resumes
    history: int = 5  # durations kept per job and operation kind


PROBE_STEP = 0.1  # the first step after the expected finish, as a share of the duration
MIN_PROBE_STEP_S = 0.01
RTT_SAMPLES = 8


def fallback_offsets(settings: PollSettings) -> Iterator[float]:
    """The documented schedule's poll times, in seconds after acceptance: 0, 0.5, 1.125, ..."""
    offset, delay = 0.0, settings.initial_s
    while True:
        yield offset
        offset += delay
        delay = min(delay * settings.factor, settings.max_s)


def fallback_polls(duration: float, settings: PollSettings) -> int:
    """How many polls the documented schedule makes to find a request lasting ``duration``."""
    for count, offset in enumerate(fallback_offsets(settings), 1):
        if offset >= duration:
            return count
    raise AssertionError("unreachable: the schedule is endless")  # pragma: no cover


def probe_offsets(expected: float, rtt: float, probes: int) -> list[float]:
    """Poll times near the expected finish: sent one RTT early, then doubling steps."""
    offset = max(0.0, expected - rtt)
    step = max(MIN_PROBE_STEP_S, PROBE_STEP * expected)
    times = []
    for _ in range(probes):
        times.append(offset)
        offset, step = offset + step, step * 2
    return times


class Schedule:
    """The poll times of one request, counted from its acceptance (see the module's doc)."""

    def __init__(self, settings: PollSettings, expected: float | None, rtt: float) -> None:
        self._probes = probe_offsets(expected, rtt, settings.probes) if expected is not None else []
        self._probes.reverse()
        self._grid = fallback_offsets(settings)
        self._floor = -1.0  # the offset of the last poll time used

    def next_offset(self) -> float:
        """The offset of the next poll: a probe, else the documented schedule's next time."""
        if self._probes:
            self._floor = self._probes.pop()
            return self._floor
        offset = next(self._grid)
        while offset <= self._floor:
            offset = next(self._grid)
        self._floor = offset
        return offset


class PollPlanner:
    """What a client learned about its service's requests, and each request's polls."""

    def __init__(
        self,
        settings: PollSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings or PollSettings()
        self.clock = clock
        self._durations: dict[tuple[str, str], deque[float]] = {}
        self._rtts: deque[float] = deque(maxlen=RTT_SAMPLES)
        self._no_long_poll: set[str] = set()

    def rtt(self) -> float:
        return min(self._rtts, default=0.0)

    def expected(self, job_id: str, kind: str) -> float | None:
        """The median of the recent durations of this job's requests of ``kind``."""
        recent = self._durations.get((job_id, kind))
        return statistics.median(recent) if recent and self.settings.adaptive else None

    def long_poll_s(self, job_id: str, wanted: float) -> float:
        """The ``wait_s`` to send for this job: none once it is known not to serve it."""
        return 0.0 if job_id in self._no_long_poll else wanted

    def no_long_poll(self, job_id: str, why: str) -> None:
        if job_id not in self._no_long_poll:
            log.info("arctic_rl: the service %s wait_s for job %s; polling instead", why, job_id)
            self._no_long_poll.add(job_id)

    def submitted(self, job_id: str, wait_s: float, seconds: float) -> None:
        """A submit answered 202 after ``seconds``: well before ``wait_s``, it was ignored."""
        if wait_s > 0 and seconds < wait_s / 2:
            self.no_long_poll(job_id, "ignores")

    def request(self, job_id: str, kind: str, wanted_wait_s: float) -> RequestPolls:
        """The polls of a request accepted just now."""
        return RequestPolls(self, job_id, kind, wanted_wait_s)

    def record(self, job_id: str, kind: str, seconds: float) -> None:
        key = (job_id, kind)
        self._durations.setdefault(key, deque(maxlen=self.settings.history)).append(seconds)

    def round_trip(self, seconds: float) -> None:
        self._rtts.append(seconds)


class RequestPolls:
    """When one request is polled next, and with which ``wait_s``."""

    def __init__(self, planner: PollPlanner, job_id: str, kind: str, wanted_wait_s: float) -> None:
        self._planner = planner
        self.job_id, self.kind = job_id, kind
        self._wanted_wait_s = wanted_wait_s
        self._accepted = planner.clock()
        expected = planner.expected(job_id, kind)
        self._schedule = Schedule(planner.settings, expected, planner.rtt())
        self._now = False  # the next poll goes out at once (result pages, a held long poll)
        self.polls = 0  # polls of the schedule made so far (result pages not counted)

    def wait_s(self, remaining: float) -> float:
        """The ``wait_s`` of the next poll (0: a plain poll)."""
        return min(self._planner.long_poll_s(self.job_id, self._wanted_wait_s), remaining)

    def delay(self, wait_s: float) -> float:
        """Seconds to sleep before the next poll (a long poll goes out at once)."""
        if self._now:
            self._now = False
            return 0.0
        self.polls += 1
        offset = self._schedule.next_offset()
        elapsed = self._planner.clock() - self._accepted
        return 0.0 if wait_s > 0 else max(0.0, offset - elapsed)

    def answered(self, wait_s: float, seconds: float, *, news: bool, more: Next) -> None:
        """A poll taking ``seconds`` answered the request still in flight."""
        if more is Next.POLL_NOW:
            self._now = True
        elif wait_s > 0:
            held = news or seconds >= wait_s / 2
            self._now = held
            if not held:
                self._planner.no_long_poll(self.job_id, "ignores")
        else:
            self._planner.round_trip(seconds)

    def finished(self, status: RequestStatus) -> None:
        """Learn the request's duration: its own timestamps, else the client's clock."""
        seconds = _stamped_duration(status)
        if seconds is None:
            seconds = self._planner.clock() - self._accepted - self._planner.rtt()
        self._planner.record(self.job_id, self.kind, max(0.0, seconds))


def _stamped_duration(status: RequestStatus) -> float | None:
    """``updated_at - created_at`` when both are there with sub-second resolution."""
    created, updated = status.created_at, status.updated_at
    if not isinstance(created, datetime) or not isinstance(updated, datetime):
        return None
    if created.microsecond == 0 and updated.microsecond == 0:
        return None  # whole seconds: too coarse for short requests
    return (updated - created).total_seconds()
