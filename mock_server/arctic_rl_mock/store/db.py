"""The SQLite file under --state-dir: its schema, one connection, one lock, transactions.

One connection guarded by a lock is plenty for a mock and keeps writes serialised; every
caller is a thread (the worker, the store's executor, start-up), never the event loop.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from arctic_rl_mock.hooks import Hooks

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY, status TEXT NOT NULL, reason TEXT, experiment_name TEXT,
    created_at REAL NOT NULL, updated_at REAL NOT NULL, sub_jobs TEXT NOT NULL,
    submitted_by TEXT, owner_role TEXT
);
CREATE TABLE IF NOT EXISTS requests (
    request_id TEXT PRIMARY KEY, job_id TEXT NOT NULL, kind TEXT NOT NULL,
    status TEXT NOT NULL, created_at REAL NOT NULL, updated_at REAL NOT NULL,
    input TEXT, result TEXT, error TEXT, delivered INTEGER NOT NULL DEFAULT 0,
    started_at REAL
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
-- Finished requests of a job, oldest first: what retention prunes
-- (arctic_rl_mock.services.retention).
CREATE INDEX IF NOT EXISTS requests_finished ON requests (job_id, updated_at)
    WHERE status IN ('done', 'failed', 'cancelled');
-- Requests retention pruned: enough to answer 410 (and a retried chunk group) for a while.
CREATE TABLE IF NOT EXISTS pruned_requests (
    request_id TEXT PRIMARY KEY, job_id TEXT NOT NULL, group_id TEXT, pruned_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS pruned_requests_age ON pruned_requests (job_id, pruned_at);
CREATE INDEX IF NOT EXISTS pruned_requests_group ON pruned_requests (job_id, group_id)
    WHERE group_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS checkpoints (
    job_id TEXT NOT NULL, checkpoint_id TEXT NOT NULL, global_steps INTEGER NOT NULL,
    avg_loss REAL, created_at REAL NOT NULL, checkpoint_type TEXT NOT NULL,
    PRIMARY KEY (job_id, checkpoint_id)
);
"""

# (table, column, declaration) added after the first release of the store.
ADDED_COLUMNS = (
    ("jobs", "submitted_by", "TEXT"),
    ("jobs", "owner_role", "TEXT"),
    ("requests", "delivered", "INTEGER NOT NULL DEFAULT 0"),
    ("idempotency", "request_id", "TEXT"),
    ("requests", "started_at", "REAL"),
)


def placeholders(values: Iterable[Any]) -> str:
    """``?,?,?`` for an ``IN (...)`` of ``values``."""
    return ",".join("?" for _ in values)


class Database:
    """The connection, its lock and the statement helpers every table of the store uses.

    Tables hold this object (never a connection of their own): one connection guarded by
    one re-entrant lock, so a table may read another's rows inside its own transaction.
    ``hooks`` are the app's hooks: the tables mark their commit boundaries with them.
    """

    def __init__(self, state_dir: Path, hooks: Hooks | None = None) -> None:
        self.hooks = hooks or Hooks()
        self.root = Path(state_dir)
        self.root.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self._db = sqlite3.connect(
            self.root / "mock.sqlite3", check_same_thread=False, isolation_level=None
        )
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        for table, column, decl in ADDED_COLUMNS:  # state dirs written by an older mock
            have = {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")

    def close(self) -> None:
        """Close the database (tests restart the mock on the same directory)."""
        with self.lock:
            self._db.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic unit of statements: all of them, or (on any error) none."""
        with self.lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                # SQLite may have rolled back already (``SQLITE_FULL`` does): a ROLLBACK
                # then fails and would hide the error that matters.
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def execute(self, sql: str, args: Iterable[Any] = ()) -> sqlite3.Cursor:
        """One statement (atomic by itself)."""
        with self.lock:
            return self._db.execute(sql, tuple(args))

    def one(self, sql: str, args: Iterable[Any] = ()) -> dict[str, Any] | None:
        """The first row of a query, or None."""
        with self.lock:
            row = self._db.execute(sql, tuple(args)).fetchone()
        return dict(row) if row is not None else None

    def all(self, sql: str, args: Iterable[Any] = ()) -> list[dict[str, Any]]:
        """Every row of a query."""
        with self.lock:
            return [dict(r) for r in self._db.execute(sql, tuple(args)).fetchall()]
