"""Where a training or sampling call's seconds went: the ``timing/*`` figures of its answer.

Each data-plane call of `CortexService` runs under one `CallTiming`, which the service
transport, the uploader and the poll loop mark as the call goes (a few ``perf_counter``
reads and counters an exchange: no request, no copy); the figures go back in the call's
answer under ``"timing"``, so they reach the caller whichever event loop ran the call.

The phases tile the call's time, ``total_s``, on the client's clock (``perf_counter``):

- ``encode_s``: building the DSSST1 request frames (0 for JSON bodies, which the HTTP
  stack serialises as it sends them);
- ``upload_s``: from the start to the moment the final request body was handed to the
  connection, less ``encode_s`` (chunks, their answers and their retries included);
- ``queue_s`` and ``compute_s``: the service's own timestamps of the request, accepted
  (``created_at``) to started (``started_at``) and started to finished (``updated_at`` of
  its end). Without ``started_at`` ``queue_s`` is 0 and ``compute_s`` runs from
  acceptance; stamps of whole seconds are too coarse to use, and then ``compute_s`` is
  the client's time from sending to the result's answer, and ``queue_s`` 0;
- ``latency_s``: the rest of that window, on the client's clock: the round trips of the
  submit and its polls, and how long after its end the request's result was asked for;
- ``download_s``: from the first answer carrying the result (its headers) to the decoded
  result in hand: the result's bytes, its further pages, parsing and decoding.

Counts: ``polls`` status reads (result pages included; a retried one once), ``retries``
resent exchanges (the service transport's retries), ``bytes_up`` request bodies sent (every
attempt), ``bytes_down`` answer bodies received as they came over the wire. All are
floats: the frameworks reduce metrics with ``np.mean``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator
from contextvars import ContextVar
from datetime import datetime
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

if TYPE_CHECKING:
    from cortex_gs_client.models import RequestStatus

__all__ = ["PHASES", "TIMING_KEY", "TIMING_KEYS", "CallTiming", "current", "encoded", "timed"]

TIMING_KEY = "timing"
"""The key of an answer's figures."""
PHASES = ("encode_s", "upload_s", "queue_s", "compute_s", "latency_s", "download_s")
COUNTS = ("polls", "retries", "bytes_up", "bytes_down")
TIMING_KEYS = tuple(f"timing/{name}" for name in (*PHASES, "total_s", *COUNTS))
"""Every figure's name, in the order above."""
_COMPLETED = "completed"

P = ParamSpec("P")
T = TypeVar("T")
_clock = time.perf_counter


class CallTiming:
    """The marks and counts of one data-plane call (see the module's doc)."""

    __slots__ = (
        "answer_at",
        "bytes_down",
        "bytes_up",
        "encode_s",
        "polls",
        "result_at",
        "retries",
        "sent_at",
        "stamps",
        "started",
    )

    def __init__(self) -> None:
        self.started = self.sent_at = self.answer_at = _clock()
        self.result_at: float | None = None
        self.stamps: tuple[object, object, object] | None = None
        self.encode_s = 0.0
        self.polls = self.retries = self.bytes_up = self.bytes_down = 0

    def sending(self, content_length: str | None) -> None:
        """An exchange goes out (a retry too); before any poll, it is the submit's."""
        self.bytes_up += int(content_length or 0)
        self.body_sent()

    def body_sent(self) -> None:
        """The submit's body has been handed over (a streamed chunk's last piece)."""
        if self.polls == 0:
            self.sent_at = _clock()

    def answered(self) -> None:
        """An answer's headers have come back."""
        self.answer_at = _clock()

    def read_status(self, status: RequestStatus, state: str) -> None:
        """A status page was read; the first one of a completed request carries its result."""
        self.stamps = (status.created_at, getattr(status, "started_at", None), status.updated_at)
        if state == _COMPLETED and self.result_at is None:
            self.result_at = self.answer_at

    def figures(self) -> dict[str, float]:
        """The call's figures, now that its result is in hand."""
        ended = _clock()
        result_at = self.answer_at if self.result_at is None else self.result_at
        window = max(0.0, result_at - self.sent_at)
        queue_s, compute_s = _service_seconds(self.stamps) or (0.0, window)
        values = (
            self.encode_s,
            max(0.0, self.sent_at - self.started - self.encode_s),
            queue_s,
            compute_s,
            max(0.0, window - queue_s - compute_s),
            ended - result_at,
            ended - self.started,
            self.polls,
            self.retries,
            self.bytes_up,
            self.bytes_down,
        )
        return {key: float(value) for key, value in zip(TIMING_KEYS, values, strict=True)}


def _service_seconds(stamps: tuple[object, object, object] | None) -> tuple[float, float] | None:
    """(queue_s, compute_s) from the last page's (created_at, started_at, updated_at); None
    without them, or when they have whole-second resolution."""
    if stamps is None:
        return None
    created, started, ended = stamps
    if not (isinstance(created, datetime) and isinstance(ended, datetime)):
        return None
    # Without started_at, compute runs from acceptance.
    begun = started if isinstance(started, datetime) else created
    if created.microsecond == begun.microsecond == ended.microsecond == 0:
        return None
    return (
        max(0.0, (begun - created).total_seconds()),
        max(0.0, (ended - begun).total_seconds()),
    )


_CURRENT: ContextVar[CallTiming | None] = ContextVar("arctic_rl_call_timing", default=None)


def current() -> CallTiming | None:
    """The timing of the call this task is running, if any."""
    return _CURRENT.get()


def timed(method: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, Coroutine[Any, Any, T]]:
    """A service method measured as one call; a mapping answer gets its figures (``"timing"``).

    The timing is set in the task running the method (on whatever loop runs it) and read
    below it by the transport, uploader and poll loop of that same task.
    """

    @functools.wraps(method)
    async def measured(*args: P.args, **kwargs: P.kwargs) -> T:
        timing = CallTiming()
        token = _CURRENT.set(timing)
        try:
            answer = await method(*args, **kwargs)
        finally:
            _CURRENT.reset(token)
        if isinstance(answer, dict):
            answer[TIMING_KEY] = timing.figures()
        return answer

    return measured


def encoded(items: Iterable[T]) -> Iterator[T]:
    """``items``, the time spent producing each one counted as the call's encoding."""
    iterator = iter(items)
    timing = _CURRENT.get()
    if timing is None:
        yield from iterator
        return
    while True:
        began = _clock()
        try:
            item = next(iterator)
        except StopIteration:
            return
        finally:
            timing.encode_s += _clock() - began
        yield item
