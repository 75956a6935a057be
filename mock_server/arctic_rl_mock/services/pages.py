"""Request status pages: polls, long-polls and a submit's ``wait_s``, woken by the worker.

A request's result and events are stored once, as the JSON text they travel in
(:mod:`arctic_rl_mock.services.results`); a page carries those texts as they are, never decoded.
When the worker ends a request it hands what it stored (an :class:`Outcome`) straight
to the long-polls waiting in this process, which answer from it without reading the
store again. The store is read off the event loop, once per poll at most. A submit held
for its request's end (``wait_s``) is not woken by its progress, and one whose request
was queued here (`expect`) reads nothing: its page is the outcome's.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, replace
from typing import Any

from arctic_rl_mock.services.retention import unknown_request
from arctic_rl_mock.store import IN_FLIGHT, Store

# Today's cap on one poll's events: larger asks are served this many, not refused.
MAX_EVENTS = 512
# Request kinds whose events are drained destructively (no client retry cursor).
STREAMED = ("generate_stream",)
_EVENT_CURSOR = re.compile(r"ev-(\d{1,12})")


@dataclass(frozen=True)
class Outcome:
    """How a request ended, as the worker stored it (result and events as JSON texts);
    ``row`` is the request's row as the worker read it to run it."""

    row: dict[str, Any]
    status: str
    updated_at: float
    result: str | None
    error: dict[str, Any] | None
    events: tuple[str, ...] = ()


# A request's pending waiter by request id (shared by all who wait on it).
Waiters = dict[str, "asyncio.Future[Outcome | None]"]


@dataclass(frozen=True)
class Page:
    """One ``RequestStatus`` answer: its small fields, and the stored result and events."""

    fields: dict[str, Any]
    result: str
    events: list[str]

    def body(self) -> bytes:
        """The answer's JSON: the fields, then the result and events spliced in as stored."""
        head = json.dumps(self.fields, ensure_ascii=False, separators=(",", ":"))
        tail = f',"result":{self.result},"events":[{",".join(self.events)}]}}'
        return (head[:-1] + tail).encode()


@dataclass(frozen=True)
class _View:
    """A request's row and one page of its events (from the store, or from an outcome)."""

    row: dict[str, Any]
    events: list[str]
    total: int

    def has_news(self, start: int) -> bool:
        """Whether it is over, or holds events this poller has not seen."""
        seen = self.row["delivered"] if self.row["kind"] in STREAMED else start
        return self.row["status"] not in IN_FLIGHT or self.total > seen

    def ended(self, outcome: Outcome, start: int, limit: int) -> _View:
        ended = {"status": outcome.status, "updated_at": outcome.updated_at}
        row = {**self.row, **ended, "result": outcome.result, "error": outcome.error}
        events = list(outcome.events[start : start + limit])
        return replace(self, row=row, events=events, total=len(outcome.events))

    @classmethod
    def of(cls, outcome: Outcome, start: int, limit: int) -> _View:
        """The view of a request that ended, from its outcome alone."""
        return cls(outcome.row, [], 0).ended(outcome, start, limit)


class RequestPages:
    """Answers polls of requests; the worker wakes waiters through :meth:`notify`."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._waiters: Waiters = {}  # woken by any change
        self._endings: Waiters = {}  # woken by the end alone
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop the waiters live on (set when the app starts)."""
        self._loop = loop

    async def poll(
        self, job_id: str, request_id: str, cursor: str | None, max_events: int, wait_s: float
    ) -> Page:
        """One request-status page; waits up to ``wait_s`` for news when there is none.

        ``next_cursor`` is ``""`` unless more events are queued beyond this page (today's
        clients re-poll at once on a non-empty one). Streamed events are handed out once.
        """
        limit = min(max_events, MAX_EVENTS)
        start = _cursor_start(cursor)
        view = await self._read(job_id, request_id, start, limit)
        if wait_s > 0 and not view.has_news(start):
            view = await self._wait(job_id, request_id, (start, limit), wait_s)
        return await self._page(request_id, view, start, limit)

    async def finished_page(
        self, job_id: str, request_id: str, wait_s: float, max_events: int
    ) -> Page | None:
        """A submit's proposed ``wait_s``: the request's first poll page when it ends within
        ``wait_s`` seconds, else None (the submit then answers its usual 202)."""
        page = (0, max_events)
        ending = self._endings.get(request_id)
        if ending is None:  # not queued here, or over: read it (after registering)
            ending = _shared(self._endings, request_id)
            view = await self._read(job_id, request_id, *page)
            if view.row["status"] not in IN_FLIGHT:
                _forget(self._endings, request_id, ending)
                return await self._page(request_id, view, *page)
        await asyncio.wait({ending}, timeout=wait_s)  # shared: never cancelled here
        if not ending.done():
            return None
        outcome = ending.result()
        if outcome is not None and outcome.row["kind"] not in STREAMED:
            view = _View.of(outcome, *page)
        else:  # it ended without an outcome (cancelled), or streams: read it
            view = await self._read(job_id, request_id, *page)
        return await self._page(request_id, view, *page)

    def expect(self, request_id: str) -> None:
        """A request just queued in this process: its end will come through `notify`, so
        a submit held for it needs no store read (call on the event loop)."""
        _shared(self._endings, request_id)

    def notify(self, request_id: str, outcome: Outcome | None = None, ended: bool = True) -> None:
        """Wake waiters of ``request_id`` (with how it ended, when it did); thread-safe.

        ``ended`` False: it only progressed (started, or streamed events), which wakes
        long-polls but not submits held for the end."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake, request_id, outcome, ended)

    def _wake(self, request_id: str, outcome: Outcome | None, ended: bool) -> None:
        for waiters in (self._waiters, self._endings) if ended else (self._waiters,):
            waiter = waiters.pop(request_id, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(outcome)

    async def _wait(
        self, job_id: str, request_id: str, page: tuple[int, int], wait_s: float
    ) -> _View:
        """Long-poll: until the request changes or has unread events, or time runs out."""
        start, limit = page
        waiter = _shared(self._waiters, request_id)
        # Registered before reading again, so a change in between still wakes us.
        view = await self._read(job_id, request_id, start, limit)
        if view.has_news(start):
            if view.row["status"] not in IN_FLIGHT:
                _forget(self._waiters, request_id, waiter)
            return view
        await asyncio.wait({waiter}, timeout=wait_s)  # shared: never cancelled here
        outcome = waiter.result() if waiter.done() else None
        if outcome is not None and view.row["kind"] not in STREAMED:
            return view.ended(outcome, start, limit)
        return await self._read(job_id, request_id, start, limit)

    async def _read(self, job_id: str, request_id: str, start: int, limit: int) -> _View:
        return await asyncio.to_thread(self._snapshot, job_id, request_id, start, limit)

    def _snapshot(self, job_id: str, request_id: str, start: int, limit: int) -> _View:
        """Store thread: the request's row and one page of its events (read together, so
        pruning cannot fall in between); 410 when it was pruned, 404 when never issued."""
        found = self.store.requests.request_page(request_id, start, limit)
        if found is None or found[0]["job_id"] != job_id:
            raise unknown_request(self.store, job_id, request_id)
        return _View(*found)

    async def _page(self, request_id: str, view: _View, start: int, limit: int) -> Page:
        row = view.row
        if row["kind"] in STREAMED:
            events, _ = await asyncio.to_thread(self.store.events.drain_events, request_id, limit)
            next_cursor = ""
        else:
            events, end = view.events, start + len(view.events)
            next_cursor = f"ev-{end}" if end < view.total else ""
        error = row["error"] or {}
        fields = {
            "request_id": request_id,
            "status": row["status"],
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "error": str(error.get("message") or ""),
            "next_cursor": next_cursor,
        }
        if row.get("started_at") is not None:
            fields["started_at"] = row["started_at"]
        if error.get("code"):
            fields["error_code"] = error["code"]
        return Page(fields, row["result"] or "{}", events)


def _shared(waiters: Waiters, request_id: str) -> asyncio.Future[Outcome | None]:
    """The pending waiter of ``request_id`` in ``waiters``, made when there is none."""
    waiter = waiters.get(request_id)
    if waiter is None or waiter.done():
        waiter = waiters[request_id] = asyncio.get_running_loop().create_future()
    return waiter


def _forget(waiters: Waiters, request_id: str, waiter: asyncio.Future[Outcome | None]) -> None:
    """Drop ``waiter`` of a request that has ended: no notice will come to resolve it."""
    if waiters.get(request_id) is waiter:
        del waiters[request_id]


def _cursor_start(cursor: str | None) -> int:
    """Cursors are ``ev-<index>``; any other (pattern-valid) cursor reads from the start.

    Forgiving on purpose: re-reading from the first event is always safe (pages are
    stable), while rejecting a schema-valid cursor would break the contract. The index
    has at most 12 digits (as log cursors): a larger one no SQLite integer holds.
    """
    match = _EVENT_CURSOR.fullmatch(cursor or "")
    return int(match.group(1)) if match else 0
