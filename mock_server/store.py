"""Durable mock state: one SQLite file (plus chunk and checkpoint files) under --state-dir.

The real service keeps accepted chunks with the job, not the connection, and promises
idempotency for 24 hours; the mock can only honour those promises across its own
restarts if jobs, requests, events, chunk groups and idempotency records are on disk.
One connection guarded by a lock is plenty for a mock and keeps writes serialised.
Over 400 lines on purpose: every SQL statement of the mock lives here, beside the schema
it depends on, so no other module knows a table's columns.

Each state change that must survive a crash whole is one transaction: a request with its
idempotency record (``create_request``), a group's final chunk with the group's request
and binding (``finish_group``); files are written before the rows that name them, so a
crash leaves at most a file without a row, which ``reconcile`` removes at start-up.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cortex_gs_contract import RequestState

from mock_server.seams import crash_point

IDEMPOTENCY_TTL_S = 24 * 3600
# Expired idempotency records are purged at most this often (reads skip them anyway).
IDEMPOTENCY_PURGE_EVERY_S = 60.0
# A request in one of these states may still move on.
IN_FLIGHT = (RequestState.pending, RequestState.running, RequestState.streaming)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY, status TEXT NOT NULL, reason TEXT, experiment_name TEXT,
    created_at REAL NOT NULL, updated_at REAL NOT NULL, sub_jobs TEXT NOT NULL,
    submitted_by TEXT, owner_role TEXT
);
CREATE TABLE IF NOT EXISTS requests (
    request_id TEXT PRIMARY KEY, job_id TEXT NOT NULL, kind TEXT NOT NULL,
    status TEXT NOT NULL, created_at REAL NOT NULL, updated_at REAL NOT NULL,
    input TEXT, result TEXT, error TEXT, delivered INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS logs (
    job_id TEXT NOT NULL, seq INTEGER NOT NULL, ts REAL NOT NULL, sub_job_id TEXT,
    line TEXT NOT NULL, PRIMARY KEY (job_id, seq)
);
CREATE TABLE IF NOT EXISTS events (
    request_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (request_id, seq)
);
CREATE TABLE IF NOT EXISTS chunk_groups (
    job_id TEXT NOT NULL, group_id TEXT NOT NULL, operation TEXT NOT NULL,
    frame_sha256 TEXT NOT NULL, frame_size INTEGER NOT NULL, total_chunks INTEGER NOT NULL,
    request_id TEXT, created_at REAL NOT NULL, PRIMARY KEY (job_id, group_id)
);
-- The unfinished groups of a job, counted on every new group (the finished ones pile up).
CREATE INDEX IF NOT EXISTS chunk_groups_open ON chunk_groups (job_id) WHERE request_id IS NULL;
-- chunk_sha256 is "" when the mock checks a resent chunk against its stored file instead.
CREATE TABLE IF NOT EXISTS chunks (
    job_id TEXT NOT NULL, group_id TEXT NOT NULL, chunk_idx INTEGER NOT NULL,
    chunk_sha256 TEXT NOT NULL, PRIMARY KEY (job_id, group_id, chunk_idx)
);
CREATE TABLE IF NOT EXISTS idempotency (
    scope TEXT NOT NULL, key TEXT NOT NULL, body_hash TEXT NOT NULL, status INTEGER NOT NULL,
    response TEXT NOT NULL, created_at REAL NOT NULL, request_id TEXT,
    PRIMARY KEY (scope, key)
);
CREATE TABLE IF NOT EXISTS checkpoints (
    job_id TEXT NOT NULL, checkpoint_id TEXT NOT NULL, global_steps INTEGER NOT NULL,
    avg_loss REAL, created_at REAL NOT NULL, checkpoint_type TEXT NOT NULL,
    PRIMARY KEY (job_id, checkpoint_id)
);
"""

# (table, column, declaration) added after the first release of the store.
_ADDED_COLUMNS = (
    ("jobs", "submitted_by", "TEXT"),
    ("jobs", "owner_role", "TEXT"),
    ("requests", "delivered", "INTEGER NOT NULL DEFAULT 0"),
    ("idempotency", "request_id", "TEXT"),
)


@dataclass(frozen=True)
class IdempotencyRecord:
    """The first answer under an ``Idempotency-Key``; ``request_id`` is the request that
    answer names, if any (a record whose request is gone is not honoured)."""

    scope: str
    key: str
    body_hash: str
    status: int
    response: Any
    request_id: str | None = None


def _safe(part: str) -> str:
    """Ids are pattern-checked before they get here; this is belt and braces for paths."""
    if not part or "/" in part or part in (".", "..") or "\\" in part:
        raise ValueError(f"unsafe path component {part!r}")
    return part


class Store:
    """Thread-safe access to the mock's durable state."""

    def __init__(self, state_dir: Path) -> None:
        self.root = Path(state_dir)
        self.root.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(
            self.root / "mock.sqlite3", check_same_thread=False, isolation_level=None
        )
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._add_missing_columns()
        self._purged_at = 0.0
        # Job rows as last written by this store (every job write goes through it): the
        # routes read a job on nearly every call, and a read here takes no lock.
        self._jobs: dict[str, dict[str, Any]] = {}

    def _add_missing_columns(self) -> None:
        """State dirs written by an older mock lack the newer columns; add them."""
        for table, column, decl in _ADDED_COLUMNS:
            have = {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")

    def close(self) -> None:
        """Close the database (tests restart the mock on the same directory)."""
        with self._lock:
            self._db.close()

    # -- plumbing --------------------------------------------------------------------
    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic unit of statements: all of them, or (on any error) none."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    @staticmethod
    def _insert_events(db: sqlite3.Connection, request_id: str, events: list[Any]) -> None:
        """Append events after the request's existing ones (inside a transaction)."""
        start = db.execute(
            "SELECT COUNT(*) FROM events WHERE request_id = ?", (request_id,)
        ).fetchone()[0]
        db.executemany(
            "INSERT INTO events VALUES (?, ?, ?)",
            [(request_id, start + i, json.dumps(e)) for i, e in enumerate(events)],
        )

    def _exec(self, sql: str, args: Iterable[Any] = ()) -> sqlite3.Cursor:
        with self._lock:
            return self._db.execute(sql, tuple(args))

    def _one(self, sql: str, args: Iterable[Any] = ()) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(sql, tuple(args)).fetchone()
        return dict(row) if row is not None else None

    def _all(self, sql: str, args: Iterable[Any] = ()) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(r) for r in self._db.execute(sql, tuple(args)).fetchall()]

    # -- jobs ------------------------------------------------------------------------
    def create_job(
        self,
        job_id: str,
        sub_jobs: list[dict[str, Any]],
        experiment_name: str | None,
        owner: tuple[str, str] | None = None,
        idempotency: IdempotencyRecord | None = None,
    ) -> None:
        """Insert a new job in state ``pending`` (with its idempotency record, atomically);
        ``owner`` is (submitted_by, owner_role)."""
        now = time.time()
        submitted_by, owner_role = owner or (None, None)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO jobs (job_id, status, reason, experiment_name, created_at,"
                " updated_at, sub_jobs, submitted_by, owner_role)"
                " VALUES (?, 'pending', NULL, ?, ?, ?, ?, ?, ?)",
                (job_id, experiment_name, now, now, json.dumps(sub_jobs), submitted_by, owner_role),
            )
            if idempotency is not None:
                self._insert_idempotent(db, idempotency)

    def get_job(self, job_id: str) -> dict[str, Any] | None:
        """A job row with ``sub_jobs`` decoded (shared: read-only), or None."""
        cached = self._jobs.get(job_id)
        if cached is None:
            with self._lock:  # a writer updates the cache under the lock too
                row = self._one("SELECT * FROM jobs WHERE job_id = ?", (job_id,))
                if row is None:
                    return None
                row["sub_jobs"] = json.loads(row["sub_jobs"])
                cached = self._jobs.setdefault(job_id, row)
        return dict(cached)

    def list_jobs(self, status: str | None = None) -> list[dict[str, Any]]:
        """Jobs newest first, optionally filtered by state."""
        sql = "SELECT * FROM jobs"
        args: tuple[Any, ...] = ()
        if status is not None:
            sql, args = sql + " WHERE status = ?", (status,)
        rows = self._all(sql + " ORDER BY created_at DESC, rowid DESC", args)
        for row in rows:
            row["sub_jobs"] = json.loads(row["sub_jobs"])
        return rows

    def set_job_status(
        self, job_id: str, status: str, reason: str | None = None, *, only_from: Iterable[str] = ()
    ) -> bool:
        """Move a job to ``status``; with ``only_from``, only from those states."""
        allowed = list(only_from)
        now = time.time()
        sql = "UPDATE jobs SET status = ?, reason = ?, updated_at = ? WHERE job_id = ?"
        args: list[Any] = [status, reason, now, job_id]
        if allowed:
            sql += f" AND status IN ({','.join('?' * len(allowed))})"
            args += allowed
        with self._lock:
            changed = self._db.execute(sql, args).rowcount > 0
            cached = self._jobs.get(job_id)
            if changed and cached is not None:  # a new dict: readers never see half of it
                update = {"status": status, "reason": reason, "updated_at": now}
                self._jobs[job_id] = {**cached, **update}
        return changed

    # -- requests --------------------------------------------------------------------
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
        with self._transaction() as db:
            self._insert_request(db, request_id, job_id, kind, payload)
            if idempotency is not None:
                self._insert_idempotent(db, idempotency)
            crash_point("request_uncommitted")
        crash_point("request_committed")

    @staticmethod
    def _insert_request(
        db: sqlite3.Connection, request_id: str, job_id: str, kind: str, payload: dict[str, Any]
    ) -> None:
        now = time.time()
        db.execute(
            "INSERT INTO requests (request_id, job_id, kind, status, created_at, updated_at,"
            " input) VALUES (?, ?, ?, 'pending', ?, ?, ?)",
            (request_id, job_id, kind, now, now, json.dumps(payload)),
        )

    def get_request(self, request_id: str) -> dict[str, Any] | None:
        """A request row with input/result/error decoded, or None."""
        row = self._one("SELECT * FROM requests WHERE request_id = ?", (request_id,))
        if row is not None:
            for key in ("input", "result", "error"):
                row[key] = json.loads(row[key]) if row[key] is not None else None
        return row

    def requests_in(self, states: Iterable[str], job_id: str | None = None) -> list[str]:
        """Ids of requests in the given states, oldest first."""
        wanted = list(states)
        sql = f"SELECT request_id FROM requests WHERE status IN ({','.join('?' * len(wanted))})"
        if job_id is not None:
            sql += " AND job_id = ?"
            wanted.append(job_id)
        return [r["request_id"] for r in self._all(sql + " ORDER BY created_at, rowid", wanted)]

    def set_request_status(
        self,
        request_id: str,
        status: str,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        events: list[dict[str, Any]] | None = None,
        only_from: Iterable[str] = IN_FLIGHT,
        log: tuple[str, str] | None = None,
    ) -> bool:
        """Set a request's state (and result, error, events) atomically; ``log`` is a
        (job_id, line) appended to that job's log in the same commit when it changed."""
        allowed = list(only_from)
        update = (
            "UPDATE requests SET status = ?, updated_at = ?, result = ?, error = ? "
            f"WHERE request_id = ? AND status IN ({','.join('?' * len(allowed))})",
            (
                status,
                time.time(),
                None if result is None else json.dumps(result),
                None if error is None else json.dumps(error),
                request_id,
                *allowed,
            ),
        )
        if not events and log is None:  # one statement is atomic by itself
            return self._exec(*update).rowcount > 0
        with self._transaction() as db:
            changed = db.execute(*update).rowcount > 0
            if changed and events:
                self._insert_events(db, request_id, events)
            if changed and log is not None:
                self._insert_log(db, *log)
        return changed

    def append_events(self, request_id: str, events: list[dict[str, Any]]) -> None:
        """Queue events of a request that is still running (streamed generation)."""
        with self._transaction() as db:
            self._insert_events(db, request_id, events)
            db.execute(
                "UPDATE requests SET updated_at = ? WHERE request_id = ?",
                (time.time(), request_id),
            )

    def drain_events(self, request_id: str, limit: int) -> tuple[list[dict[str, Any]], int]:
        """Hand out up to ``limit`` undelivered events, consuming them; and how many remain."""
        with self._transaction() as db:
            delivered = db.execute(
                "SELECT delivered FROM requests WHERE request_id = ?", (request_id,)
            ).fetchone()[0]
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
        return [json.loads(r[0]) for r in rows], int(total) - delivered - len(rows)

    def events(self, request_id: str, start: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """One page of events from ``start`` and the total event count."""
        rows = self._all(
            "SELECT body FROM events WHERE request_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
            (request_id, start, limit),
        )
        total = self._one("SELECT COUNT(*) AS n FROM events WHERE request_id = ?", (request_id,))
        return [json.loads(r["body"]) for r in rows], int(total["n"] if total else 0)

    # -- chunk groups ----------------------------------------------------------------
    def chunk_dir(self, job_id: str, group_id: str) -> Path:
        """Where a group's accepted chunk frames live until the group runs."""
        return self.root / "chunks" / _safe(job_id) / _safe(group_id)

    def get_group(self, job_id: str, group_id: str) -> dict[str, Any] | None:
        """A chunk group row plus ``chunks``: {idx: chunk_sha256}."""
        row = self._one(
            "SELECT * FROM chunk_groups WHERE job_id = ? AND group_id = ?", (job_id, group_id)
        )
        if row is not None:
            rows = self._all(
                "SELECT chunk_idx, chunk_sha256 FROM chunks WHERE job_id = ? AND group_id = ?",
                (job_id, group_id),
            )
            row["chunks"] = {r["chunk_idx"]: r["chunk_sha256"] for r in rows}
        return row

    def write_chunk_file(self, job_id: str, group_id: str, chunk_idx: int, chunk: bytes) -> None:
        """Put a chunk's bytes on disk before any row names them.

        Written in place (no temporary and rename): its row is committed only after the
        write returns, and a file a crash cut short has no row, so start-up removes it.
        """
        path = self.chunk_dir(job_id, group_id) / f"{chunk_idx}.bin"
        try:
            path.write_bytes(chunk)
        except FileNotFoundError:  # the group's first chunk: make its folder
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(chunk)

    def add_chunk(
        self,
        job_id: str,
        group_id: str,
        descriptor: dict[str, Any],
        operation: str,
        chunk_sha256: str,
        chunk: bytes,
    ) -> None:
        """Persist one accepted non-final chunk: its file, then its row (creating the group)."""
        self.write_chunk_file(job_id, group_id, int(descriptor["chunk_idx"]), chunk)
        crash_point("chunk_file_written")
        with self._transaction() as db:
            self._insert_chunk_row(db, job_id, group_id, descriptor, operation, chunk_sha256)
        crash_point("chunk_committed")

    def finish_group(
        self,
        job_id: str,
        group_id: str,
        descriptor: dict[str, Any],
        operation: str,
        chunk_sha256: str,
        request_id: str,
    ) -> None:
        """The final chunk's row, the group's request and the group's binding to it, in one
        transaction (the chunk's file is already written: ``write_chunk_file``).

        The request's input is ``{"group": group_id}``: after a restart the worker
        re-assembles the frame from the stored chunks, so no decoded value has to outlive
        the process.
        """
        crash_point("final_chunk_file_written")
        with self._transaction() as db:
            self._insert_chunk_row(db, job_id, group_id, descriptor, operation, chunk_sha256)
            self._bind_new_request(db, job_id, group_id, request_id, operation)
            crash_point("group_uncommitted")
        crash_point("group_committed")

    def submit_stored_group(self, job_id: str, group_id: str, request_id: str) -> None:
        """A complete group that has no request yet gets one (start-up reconciliation)."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT operation FROM chunk_groups WHERE job_id = ? AND group_id = ?"
                " AND request_id IS NULL",
                (job_id, group_id),
            ).fetchone()
            if row is not None:
                self._bind_new_request(db, job_id, group_id, request_id, row[0])

    @classmethod
    def _bind_new_request(
        cls, db: sqlite3.Connection, job_id: str, group_id: str, request_id: str, operation: str
    ) -> None:
        """Insert the group's request (its kind is the route in ``operation``) and bind it."""
        kind = operation.split(":", 1)[0]
        cls._insert_request(db, request_id, job_id, kind, {"group": group_id})
        db.execute(
            "UPDATE chunk_groups SET request_id = ? WHERE job_id = ? AND group_id = ?",
            (request_id, job_id, group_id),
        )

    @staticmethod
    def _insert_chunk_row(
        db: sqlite3.Connection,
        job_id: str,
        group_id: str,
        descriptor: dict[str, Any],
        operation: str,
        chunk_sha256: str,
    ) -> None:
        db.execute(
            "INSERT OR IGNORE INTO chunk_groups VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
            (
                job_id,
                group_id,
                operation,
                descriptor["frame_sha256"],
                descriptor["frame_size_bytes"],
                descriptor["total_chunks"],
                time.time(),
            ),
        )
        db.execute(
            "INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?)",
            (job_id, group_id, int(descriptor["chunk_idx"]), chunk_sha256),
        )

    def read_chunks(self, job_id: str, group_id: str) -> list[bytes]:
        """The group's stored chunk frames, by index."""
        group = self.get_group(job_id, group_id) or {"chunks": {}}
        directory = self.chunk_dir(job_id, group_id)
        return [(directory / f"{idx}.bin").read_bytes() for idx in sorted(group["chunks"])]

    def open_group_ids(self, job_id: str) -> set[str]:
        """The ids of the job's chunk groups that have not become a request yet."""
        rows = self._all(
            "SELECT group_id FROM chunk_groups WHERE job_id = ? AND request_id IS NULL",
            (job_id,),
        )
        return {r["group_id"] for r in rows}

    def expired_groups(self, created_before: float) -> list[tuple[str, str]]:
        """(job_id, group_id) of the unfinished groups whose first chunk came before then."""
        rows = self._all(
            "SELECT job_id, group_id FROM chunk_groups WHERE request_id IS NULL AND created_at < ?",
            (created_before,),
        )
        return [(r["job_id"], r["group_id"]) for r in rows]

    def drop_group(self, job_id: str, group_id: str) -> None:
        """Forget an unfinished group (its frame failed verification)."""
        with self._transaction() as db:
            db.execute("DELETE FROM chunks WHERE job_id = ? AND group_id = ?", (job_id, group_id))
            db.execute(
                "DELETE FROM chunk_groups WHERE job_id = ? AND group_id = ?", (job_id, group_id)
            )
        self.drop_chunk_files(job_id, group_id)

    def drop_chunk_files(self, job_id: str, group_id: str) -> None:
        """Free a group's chunk bytes once its request no longer needs them.

        Its folder holds only chunk files: unlinking them is cheaper than ``rmtree``
        (which runs once per group request).
        """
        directory = self.chunk_dir(job_id, group_id)
        try:
            names = os.listdir(directory)
        except FileNotFoundError:
            return
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(directory / name)
        with contextlib.suppress(OSError):
            directory.rmdir()

    # -- idempotency -----------------------------------------------------------------
    def get_idempotent(self, scope: str, key: str) -> dict[str, Any] | None:
        """A live record: under 24 h old, and its request (if it names one) still stored."""
        row = self._one(
            "SELECT * FROM idempotency AS i WHERE scope = ? AND key = ? AND created_at >= ?"
            " AND (i.request_id IS NULL OR EXISTS"
            " (SELECT 1 FROM requests AS r WHERE r.request_id = i.request_id))",
            (scope, key, time.time() - IDEMPOTENCY_TTL_S),
        )
        if row is not None:
            row["response"] = json.loads(row["response"])
        return row

    def put_idempotent(self, record: IdempotencyRecord) -> None:
        """Remember the first answer under a key (one that changed no state of its own)."""
        with self._transaction() as db:
            self._insert_idempotent(db, record)

    def _insert_idempotent(self, db: sqlite3.Connection, record: IdempotencyRecord) -> None:
        """Write ``record`` (inside a transaction); now and then purge the expired ones."""
        now = time.time()
        if now - self._purged_at >= IDEMPOTENCY_PURGE_EVERY_S:
            db.execute("DELETE FROM idempotency WHERE created_at < ?", (now - IDEMPOTENCY_TTL_S,))
            self._purged_at = now
        db.execute(
            "INSERT OR REPLACE INTO idempotency"
            " (scope, key, body_hash, status, response, created_at, request_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                record.scope,
                record.key,
                record.body_hash,
                record.status,
                json.dumps(record.response),
                now,
                record.request_id,
            ),
        )

    # -- start-up reconciliation -----------------------------------------------------
    def reconcile(self) -> list[tuple[str, str]]:
        """Make what a crash left consistent; the complete groups still without a request.

        Idempotency records naming a request that does not exist are dropped (a retry then
        runs once). Of each group not yet bound to a request, a chunk row whose file is
        gone is deleted (its chunk is accepted again when resent) and so is a chunk file
        no row names (written just before a crash). Chunk files of groups the store does
        not know are deleted. Returns (job_id, group_id) of the unbound groups holding
        every chunk: an older mock stored a final chunk before creating its request.
        """
        with self._transaction() as db:
            db.execute(
                "DELETE FROM idempotency WHERE request_id IS NOT NULL AND request_id NOT IN"
                " (SELECT request_id FROM requests)"
            )
            groups = db.execute(
                "SELECT job_id, group_id, total_chunks, request_id FROM chunk_groups"
            ).fetchall()
            known = {(g[0], g[1]) for g in groups}
            complete = []
            for job_id, group_id, total, request_id in groups:
                if request_id is None and self._reconcile_group(db, job_id, group_id) == total:
                    complete.append((job_id, group_id))
        self._drop_unknown_chunk_dirs(known)
        return complete

    def _reconcile_group(self, db: sqlite3.Connection, job_id: str, group_id: str) -> int:
        """Chunk rows and files of one unbound group agree afterwards; how many chunks."""
        directory = self.chunk_dir(job_id, group_id)
        rows = {
            r[0]
            for r in db.execute(
                "SELECT chunk_idx FROM chunks WHERE job_id = ? AND group_id = ?",
                (job_id, group_id),
            )
        }
        files = {p.name: p for p in directory.iterdir()} if directory.is_dir() else {}
        lost = [idx for idx in rows if f"{idx}.bin" not in files]
        db.executemany(
            "DELETE FROM chunks WHERE job_id = ? AND group_id = ? AND chunk_idx = ?",
            [(job_id, group_id, idx) for idx in lost],
        )
        named = {f"{idx}.bin" for idx in rows}
        for name, path in files.items():
            if name not in named:
                path.unlink(missing_ok=True)
        return len(rows) - len(lost)

    def _drop_unknown_chunk_dirs(self, known: set[tuple[str, str]]) -> None:
        root = self.root / "chunks"
        if not root.is_dir():
            return
        for job_dir in root.iterdir():
            for group_dir in job_dir.iterdir() if job_dir.is_dir() else ():
                if (job_dir.name, group_dir.name) not in known:
                    shutil.rmtree(group_dir, ignore_errors=True)

    # -- logs ------------------------------------------------------------------------
    def add_log(self, job_id: str, line: str, sub_job_id: str | None = None) -> None:
        """Append one line to the job's log (what ``tail-logs`` pages through)."""
        with self._lock:
            self._insert_log(self._db, job_id, line, sub_job_id)

    @staticmethod
    def _insert_log(
        db: sqlite3.Connection, job_id: str, line: str, sub_job_id: str | None = None
    ) -> None:
        # The next seq from the primary key's last entry: a count would scan the job's log.
        db.execute(
            "INSERT INTO logs SELECT ?, COALESCE(MAX(seq) + 1, 0), ?, ?, ? FROM logs"
            " WHERE job_id = ?",
            (job_id, time.time(), sub_job_id, line, job_id),
        )

    def logs(
        self, job_id: str, start: int, limit: int, sub_job_id: str | None = None
    ) -> tuple[list[dict[str, Any]], bool]:
        """Up to ``limit`` log rows from seq ``start`` (job-wide lines plus ``sub_job_id``'s
        own, or all when None) and whether more rows follow."""
        sql = "SELECT seq, ts, sub_job_id, line FROM logs WHERE job_id = ? AND seq >= ?"
        args: list[Any] = [job_id, start]
        if sub_job_id is not None:
            sql += " AND (sub_job_id IS NULL OR sub_job_id = ?)"
            args.append(sub_job_id)
        rows = self._all(sql + " ORDER BY seq LIMIT ?", [*args, limit + 1])
        return rows[:limit], len(rows) > limit

    # -- checkpoints -----------------------------------------------------------------
    def checkpoint_dir(self, job_id: str, checkpoint_id: str) -> Path:
        """Where a checkpoint's files live."""
        return self.root / "checkpoints" / _safe(job_id) / _safe(checkpoint_id)

    def add_checkpoint(
        self,
        job_id: str,
        checkpoint_id: str,
        global_steps: int,
        avg_loss: float | None,
        checkpoint_type: str,
    ) -> None:
        """Record a saved checkpoint (replacing one with the same id)."""
        self._exec(
            "INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?, ?, ?)",
            (job_id, checkpoint_id, global_steps, avg_loss, time.time(), checkpoint_type),
        )

    def list_checkpoints(self, job_id: str) -> list[dict[str, Any]]:
        """A job's checkpoints, oldest first."""
        return self._all(
            "SELECT * FROM checkpoints WHERE job_id = ? ORDER BY created_at, rowid", (job_id,)
        )

    def get_checkpoint(self, job_id: str, checkpoint_id: str) -> dict[str, Any] | None:
        """One checkpoint row, or None."""
        return self._one(
            "SELECT * FROM checkpoints WHERE job_id = ? AND checkpoint_id = ?",
            (job_id, checkpoint_id),
        )

    def delete_checkpoint(self, job_id: str, checkpoint_id: str) -> bool:
        """Delete a checkpoint's row and files; False when it did not exist."""
        gone = (
            self._exec(
                "DELETE FROM checkpoints WHERE job_id = ? AND checkpoint_id = ?",
                (job_id, checkpoint_id),
            ).rowcount
            > 0
        )
        shutil.rmtree(self.checkpoint_dir(job_id, checkpoint_id), ignore_errors=True)
        return gone
