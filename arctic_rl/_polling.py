"""When to poll: a job until it runs, a data-plane request until it ends.

Each poll's answer is read by `arctic_rl._tracking.RequestTracker`; when to send the next
one is decided here, by `PollPlanner` (one per service client) and the `RequestPolls` it
hands out for each request, and `poll_once` sends it:

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
  serves it. A poll refused for ``wait_s`` (400/422) or a submit refused with an error that
  names it (sent once more without it, `send_with_wait_s`) marks the job as not serving
  it; so do two misses in a row, a miss being a long poll answered at once without news
  or a submit answered 202 well before its ``wait_s`` (one alone may be a busy server
  shedding a wait; an answer that was held resets the count). A job so marked follows
  the schedule above and sends no ``wait_s``, until ``REPROBE_AFTER_S`` later its next
  request tries the long poll again (a service may start serving it, or stop shedding).
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime
from typing import Any, TypeVar

from cortex_gs_client.models import RequestStatus
from cortex_gs_client.types import UNSET, Unset

from arctic_rl._answers import read_poll
from arctic_rl._errors import BadRequestError, InvalidRequestError
from arctic_rl._http import LONG_POLL_PARAM
from arctic_rl._options import PollSettings
from arctic_rl._timing import current as current_timing
from arctic_rl._tracking import Finished, Next, RequestTracker

__all__ = [
    "PollPause",
    "PollPlanner",
    "RequestPolls",
    "fallback_polls",
    "held_wait_s",
    "poll_once",
    "send_with_wait_s",
]

log = logging.getLogger("arctic_rl")

MAX_LONG_POLL_S = 20.0  # the contract's maximum wait_s
MISSES_IN_A_ROW = 2  # quick answers without news that turn the long poll off for a job
REPROBE_AFTER_S = 60.0  # how long a job's long poll stays off before it is tried again
T = TypeVar("T")

# One poll of a request: its page and exchange id, or None when the service refused wait_s.
Poll = Callable[
    [str, str, "str | None", float], Awaitable["tuple[RequestStatus, str | None] | None"]
]


class PollPause:
    """The pause between polls: the documented schedule's, from ``initial_s`` growing by
    ``factor`` up to ``max_s``."""

    def __init__(self, settings: PollSettings) -> None:
        self._settings = settings
        self._delay = settings.initial_s

    def next(self) -> float:
        delay = self._delay
        self._delay = min(delay * self._settings.factor, self._settings.max_s)
        return delay


DURATIONS_KEPT = 5  # per job and operation kind
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
        self._misses: dict[str, int] = {}  # misses in a row, per job
        self._no_long_poll: dict[str, float] = {}  # job -> when its long poll was turned off

    def rtt(self) -> float:
        return min(self._rtts, default=0.0)

    def expected(self, job_id: str, kind: str) -> float | None:
        """The median of the recent durations of this job's requests of ``kind``."""
        recent = self._durations.get((job_id, kind))
        return statistics.median(recent) if recent and self.settings.adaptive else None

    def long_poll_s(self, job_id: str, wanted: float) -> float:
        """The ``wait_s`` to send for this job: none while it is marked as not serving it."""
        since = self._no_long_poll.get(job_id)
        if since is None:
            return wanted
        if self.clock() - since < REPROBE_AFTER_S:
            return 0.0
        del self._no_long_poll[job_id]
        log.debug("arctic_rl: trying the long poll again for job %s", job_id)
        return wanted

    def no_long_poll(self, job_id: str, why: str) -> None:
        """Poll job ``job_id`` without ``wait_s`` for the next ``REPROBE_AFTER_S``."""
        self._misses.pop(job_id, None)
        if job_id not in self._no_long_poll:
            log.info(
                "arctic_rl: the service %s wait_s for job %s; polling instead (trying it "
                "again in %.0f s)",
                why,
                job_id,
                REPROBE_AFTER_S,
            )
        self._no_long_poll[job_id] = self.clock()

    def missed(self, job_id: str) -> None:
        """A long poll or submit came back at once without news: two in a row, and the
        job's service is taken not to serve ``wait_s``."""
        misses = self._misses[job_id] = self._misses.get(job_id, 0) + 1
        if misses >= MISSES_IN_A_ROW:
            self.no_long_poll(job_id, "ignores")

    def held(self, job_id: str) -> None:
        """A long poll or submit was held (or brought news): the misses start over."""
        self._misses.pop(job_id, None)

    def submitted(self, job_id: str, wait_s: float | Unset, seconds: float) -> None:
        """A submit sent with ``wait_s`` answered 202 after ``seconds``: well before
        ``wait_s``, a miss."""
        sent = wait_s if isinstance(wait_s, float | int) else 0.0
        if sent > 0:
            (self.missed if seconds < sent / 2 else self.held)(job_id)

    def request(self, job_id: str, kind: str, wanted_wait_s: float) -> RequestPolls:
        """The polls of a request accepted just now."""
        return RequestPolls(self, job_id, kind, wanted_wait_s)

    def record(self, job_id: str, kind: str, seconds: float) -> None:
        key = (job_id, kind)
        self._durations.setdefault(key, deque(maxlen=DURATIONS_KEPT)).append(seconds)

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
            (self._planner.held if held else self._planner.missed)(self.job_id)
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


async def poll_once(
    poll: Poll, plan: RequestPolls, tracker: RequestTracker, deadline: float
) -> Any:
    """One poll when ``plan`` says; its reading (``Finished`` or ``Next``), or None
    when the service refused ``wait_s``."""
    wait_s = plan.wait_s(max(0.0, deadline - time.monotonic()))
    delay = plan.delay(wait_s)
    if delay > 0:
        await asyncio.sleep(delay)
    before, started = tracker.state, time.monotonic()
    timing = current_timing()
    if timing is not None:
        timing.polls += 1
    polled = await poll(plan.job_id, tracker.request_id, tracker.cursor, wait_s)
    if polled is None:
        return None
    outcome = read_poll(tracker, *polled)
    if isinstance(outcome, Finished):
        plan.finished(polled[0])
    else:
        seconds = time.monotonic() - started
        news = before != "unknown" and tracker.state != before
        plan.answered(wait_s, seconds, news=news, more=outcome)
    return outcome


def held_wait_s(wait_s: float) -> float | Unset:
    """A long poll's ``wait_s`` as sent: capped at the contract's maximum, UNSET when off."""
    return round(min(wait_s, MAX_LONG_POLL_S), 3) if wait_s > 0 else UNSET


async def send_with_wait_s(
    planner: PollPlanner,
    job_id: str,
    wait_s: float | Unset,
    send: Callable[[float | Unset], Awaitable[T]],
) -> tuple[T, float | Unset]:
    """``send(wait_s)`` and the ``wait_s`` it went with: a submit refused for ``wait_s`` is
    sent once more without it, and the job is remembered as not serving it."""
    try:
        return await send(wait_s), wait_s
    except (BadRequestError, InvalidRequestError) as exc:
        held = not isinstance(wait_s, Unset) and wait_s > 0
        if not held or LONG_POLL_PARAM not in f"{exc.message} {exc.details}":
            raise  # not a refusal of the wait_s it carried (the error would name it)
        planner.no_long_poll(job_id, "refuses")
        return await send(UNSET), UNSET
