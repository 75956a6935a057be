"""Requests and their events.

A request's result and its events are stored in their wire form: the JSON text the poll
answer carries, written once by the worker and never decoded again by the mock.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from typing import Any

from cortex_gs_contract import JobState, RequestState

from arctic_rl_mock.store.db import Database, placeholders
from arctic_rl_mock.store.idempotency_records import IdempotencyRecord, IdempotencyTable
from arctic_rl_mock.store.jobs import JobTable, LogTable

# A request in one of these states may still move on.
IN_FLIGHT = (RequestState.pending, RequestState.running, RequestState.streaming)


class EventTable:
    """The ``events`` table: what a request hands out while it runs and after it ended."""

    def __init__(self, database: Database) -> None:
        self._database = database

    @staticmethod
    def insert_events(db: sqlite3.Connection, request_id: str, events: Sequence[str]) -> None:
        """Append events (JSON texts) after the request's existing ones (in a transaction)."""
        start = db.execute(
            "SELECT COUNT(*) FROM events WHERE request_id = ?", (request_id,)
        ).fetchone()[0]
        db.executemany(
            "INSERT INTO events VALUES (?, ?, ?)",
            [(request_id, start + i, e) for i, e in enumerate(events)],
        )

    def append_events(self, request_id: str, events: Sequence[str]) -> None:
        """Queue events of a request that is still running (streamed generation)."""
        with self._database.transaction() as db:
            self.insert_events(db, request_id, events)
            db.execute(
                "UPDATE requests SET updated_at = ? WHERE request_id = ?",
                (time.time(), request_id),
            )

    def drain_events(self, request_id: str, limit: int) -> tuple[list[str], int]:
        """Hand out up to ``limit`` undelivered events, consuming them; and how many remain."""
        with self._database.transaction() as db:
            row = db.execute(
                "SELECT delivered FROM requests WHERE request_id = ?", (request_id,)
            ).fetchone()
            if row is None:  # pruned since it was read
                return [], 0
            delivered = row[0]
            rows = db.execute(
                "SELECT body FROM events WHERE request_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
                (request_id, delivered, limit),
            ).fetchall()
            db.execute(
                "UPDATE requests SET delivered = ? WHERE request_id = ?",
                (delivered + len(rows), request_id),
            )
            total = db.execute(
                "SELECT COUNT(*) FROM events WHERE request_id = ?", (request_id,)
            ).fetchone()[0]
        return [r[0] for r in rows], int(total) - delivered - len(rows)

    def events(self, request_id: str, start: int, limit: int) -> tuple[list[str], int]:
        """One page of events (JSON texts) from ``start`` and the total event count."""
        rows = self._database.all(
            "SELECT body FROM events WHERE request_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
            (request_id, start, limit),
        )
        total = self._database.one(
            "SELECT COUNT(*) AS n FROM events WHERE request_id = ?", (request_id,)
        )
        return [r["body"] for r in rows], int(total["n"] if total else 0)


class RequestTable:
    """The ``requests`` table; a request is stored with the idempotency record that
    answers for it, and moves with its events and its job's log line."""

    def __init__(
        self,
        database: Database,
        jobs: JobTable,
        logs: LogTable,
        events: EventTable,
        idempotency: IdempotencyTable,
    ) -> None:
        self._database = database
        self._jobs = jobs
        self._logs = logs
        self._events = events
        self._idempotency = idempotency

    def cancel_job(self, job_id: str, error: dict[str, Any]) -> list[str]:
        """Cancel a job (logged) and its pending requests; the ids of those requests."""
        self._jobs.set_job_status(job_id, JobState.cancelled, "cancelled by user")
        self._logs.add_log(job_id, "job cancelled by user")
        pending = self.requests_in((RequestState.pending,), job_id)
        return [r for r in pending if self._cancel(r, error)]

    def cancel_request(
        self, job_id: str, request_id: str, error: dict[str, Any]
    ) -> tuple[bool, bool]:
        """Cancel a request that has not started: (whether the job has it, whether it did)."""
        row = self._database.one("SELECT job_id FROM requests WHERE request_id = ?", (request_id,))
        if row is None or row["job_id"] != job_id:
            return False, False
        return True, self._cancel(request_id, error)

    def _cancel(self, request_id: str, error: dict[str, Any]) -> bool:
        pending = (RequestState.pending,)
        changed = self.set_request_status(
            request_id, RequestState.cancelled, error=error, only_from=pending
        )
        return changed is not None

    def create_request(
        self,
        request_id: str,
        job_id: str,
        kind: str,
        payload: dict[str, Any],
        idempotency: IdempotencyRecord | None = None,
    ) -> None:
        """Insert a ``pending`` request and, in the same transaction, the idempotency record
        that answers with it; ``payload`` is whatever the worker needs to run it."""
        with self._database.transaction() as db:
            self.insert_request(db, request_id, job_id, kind, payload)
            if idempotency is not None:
                self._idempotency.insert(db, idempotency)
            self._database.hooks.crash_point("request_uncommitted")
        self._database.hooks.crash_point("request_committed")

    @staticmethod
    def insert_request(
        db: sqlite3.Connection, request_id: str, job_id: str, kind: str, payload: dict[str, Any]
    ) -> None:
        """Insert a ``pending`` request inside a transaction (``db``: its connection)."""
        now = time.time()
        db.execute(
            "INSERT INTO requests (request_id, job_id, kind, status, created_at, updated_at,"
            " input) VALUES (?, ?, ?, 'pending', ?, ?, ?)",
            (request_id, job_id, kind, now, now, json.dumps(payload)),
        )

    def get_request(self, request_id: str) -> dict[str, Any] | None:
        """A request row with ``input`` and ``error`` decoded, or None; ``result`` stays
        the JSON text it was stored as (None before there is one)."""
        row = self._database.one("SELECT * FROM requests WHERE request_id = ?", (request_id,))
        if row is not None:
            for key in ("input", "error"):
                row[key] = json.loads(row[key]) if row[key] is not None else None
        return row

    def requests_in(self, states: Iterable[str], job_id: str | None = None) -> list[str]:
        """Ids of requests in the given states, oldest first."""
        wanted = list(states)
        sql = f"SELECT request_id FROM requests WHERE status IN ({placeholders(wanted)})"
        if job_id is not None:
            sql += " AND job_id = ?"
            wanted.append(job_id)
        return [
            r["request_id"] for r in self._database.all(sql + " ORDER BY created_at, rowid", wanted)
        ]

    def set_request_status(
        self,
        request_id: str,
        status: str,
        *,
        result: str | None = None,
        error: dict[str, Any] | None = None,
        events: Sequence[str] = (),
        only_from: Iterable[str] = IN_FLIGHT,
        log: tuple[str, str] | None = None,
    ) -> float | None:
        """Set a request's state (and result, error, events: JSON texts) atomically; ``log``
        is a (job_id, line) appended to that job's log in the same commit when it changed.
        The time it changed, or None when it was not in an ``only_from`` state; the time
        it became ``running`` is also kept as its ``started_at``."""
        allowed = list(only_from)
        now = time.time()
        sets = "status = ?, updated_at = ?, result = ?, error = ?"
        values: list[Any] = [status, now, result, None if error is None else json.dumps(error)]
        if status == RequestState.running:
            sets += ", started_at = ?"
            values.append(now)
        where = f"request_id = ? AND status IN ({placeholders(allowed)})"
        sql = f"UPDATE requests SET {sets} WHERE {where}"
        args = (*values, request_id, *allowed)
        if not events and log is None:  # one statement is atomic by itself
            return now if self._database.execute(sql, args).rowcount > 0 else None
        with self._database.transaction() as db:
            changed = db.execute(sql, args).rowcount > 0
            if changed and events:
                self._events.insert_events(db, request_id, events)
            if changed and log is not None:
                self._logs.insert_log(db, *log)
        return now if changed else None

    def request_page(
        self, request_id: str, start: int, limit: int
    ) -> tuple[dict[str, Any], list[str], int] | None:
        """A request's row (as ``get_request``), one page of its events and its event
        count, read at one moment; None when the store does not hold it."""
        with self._database.lock:
            row = self.get_request(request_id)
            return None if row is None else (row, *self._events.events(request_id, start, limit))
