"""Jobs, their logs and their checkpoints' rows.

Every job row is held in memory too (loaded when the store opens, kept as written): the
routes read a job on nearly every call, and such a read takes neither the lock nor SQL.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from collections.abc import Iterable
from typing import Any

from arctic_rl_mock.store.db import Database, placeholders
from arctic_rl_mock.store.files import StateFiles
from arctic_rl_mock.store.idempotency_records import IdempotencyRecord, IdempotencyTable

# The next seq from the primary key's last entry: a count would scan the job's log.
APPEND_LOG = (
    "INSERT INTO logs SELECT ?, COALESCE(MAX(seq) + 1, 0), ?, ?, ? FROM logs WHERE job_id = ?"
)


class LogTable:
    """The ``logs`` table: each job's log lines, what ``tail-logs`` pages through."""

    def __init__(self, database: Database) -> None:
        self._database = database

    def add_log(self, job_id: str, line: str, sub_job_id: str | None = None) -> None:
        """Append one line to the job's log."""
        self._database.execute(APPEND_LOG, _log_args(job_id, line, sub_job_id))

    @staticmethod
    def insert_log(
        db: sqlite3.Connection, job_id: str, line: str, sub_job_id: str | None = None
    ) -> None:
        """Append one line inside a transaction (``db``: its connection)."""
        db.execute(APPEND_LOG, _log_args(job_id, line, sub_job_id))

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
        rows = self._database.all(sql + " ORDER BY seq LIMIT ?", [*args, limit + 1])
        return rows[:limit], len(rows) > limit


class JobTable:
    """The ``jobs`` table, mirrored in memory; a job's creation and moves are logged."""

    def __init__(self, database: Database, logs: LogTable, idempotency: IdempotencyTable) -> None:
        self._database = database
        self._logs = logs
        self._idempotency = idempotency
        rows = database.all("SELECT * FROM jobs ORDER BY created_at, rowid")
        self._jobs: dict[str, dict[str, Any]] = {r["job_id"]: _decoded(r) for r in rows}

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
        with self._database.transaction() as db:
            db.execute(
                "INSERT INTO jobs (job_id, status, reason, experiment_name, created_at,"
                " updated_at, sub_jobs, submitted_by, owner_role)"
                " VALUES (?, 'pending', NULL, ?, ?, ?, ?, ?, ?)",
                (job_id, experiment_name, now, now, json.dumps(sub_jobs), submitted_by, owner_role),
            )
            if idempotency is not None:
                self._idempotency.insert(db, idempotency)
            self._logs.insert_log(
                db, job_id, f"job {job_id} created with {len(sub_jobs)} sub-job(s)"
            )
        self._jobs[job_id] = {
            "job_id": job_id,
            "status": "pending",
            "reason": None,
            "experiment_name": experiment_name,
            "created_at": now,
            "updated_at": now,
            "sub_jobs": sub_jobs,
            "submitted_by": submitted_by,
            "owner_role": owner_role,
        }

    def get_job(self, job_id: str) -> dict[str, Any] | None:
        """A job row with ``sub_jobs`` decoded (shared: read-only), or None."""
        cached = self._jobs.get(job_id)
        return None if cached is None else dict(cached)

    def list_jobs(self, status: str | None = None) -> list[dict[str, Any]]:
        """Jobs newest first, optionally filtered by state."""
        rows = [dict(r) for r in reversed(self._jobs.values())]
        rows.sort(key=lambda r: r["created_at"], reverse=True)
        return [r for r in rows if status is None or r["status"] == status]

    def set_job_status(
        self, job_id: str, status: str, reason: str | None = None, *, only_from: Iterable[str] = ()
    ) -> bool:
        """Move a job to ``status``; with ``only_from``, only from those states."""
        allowed = list(only_from)
        now = time.time()
        sql = "UPDATE jobs SET status = ?, reason = ?, updated_at = ? WHERE job_id = ?"
        args: list[Any] = [status, reason, now, job_id]
        if allowed:
            sql += f" AND status IN ({placeholders(allowed)})"
            args += allowed
        with self._database.lock:
            changed = self._database.execute(sql, args).rowcount > 0
            cached = self._jobs.get(job_id)
            if changed and cached is not None:  # a new dict: readers never see half of it
                update = {"status": status, "reason": reason, "updated_at": now}
                self._jobs[job_id] = {**cached, **update}
        return changed

    def move_job(self, job_id: str, current: str, nxt: str) -> bool:
        """One step of the job's walk to ``running`` (logged); False when it moved on."""
        if not self.set_job_status(job_id, nxt, only_from=(current,)):
            return False
        self._logs.add_log(job_id, f"job is {nxt}")
        return True


class CheckpointTable:
    """The ``checkpoints`` table, beside the checkpoint folders it names."""

    def __init__(self, database: Database, files: StateFiles) -> None:
        self._database = database
        self._files = files

    def add_checkpoint(
        self,
        job_id: str,
        checkpoint_id: str,
        global_steps: int,
        avg_loss: float | None,
        checkpoint_type: str,
    ) -> None:
        """Record a saved checkpoint (replacing one with the same id)."""
        self._database.execute(
            "INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?, ?, ?)",
            (job_id, checkpoint_id, global_steps, avg_loss, time.time(), checkpoint_type),
        )

    def list_checkpoints(self, job_id: str) -> list[dict[str, Any]]:
        """A job's checkpoints, oldest first."""
        return self._database.all(
            "SELECT * FROM checkpoints WHERE job_id = ? ORDER BY created_at, rowid", (job_id,)
        )

    def get_checkpoint(self, job_id: str, checkpoint_id: str) -> dict[str, Any] | None:
        """One checkpoint row, or None."""
        return self._database.one(
            "SELECT * FROM checkpoints WHERE job_id = ? AND checkpoint_id = ?",
            (job_id, checkpoint_id),
        )

    def delete_checkpoint(self, job_id: str, checkpoint_id: str) -> bool:
        """Delete a checkpoint's row and files; False when it did not exist."""
        sql = "DELETE FROM checkpoints WHERE job_id = ? AND checkpoint_id = ?"
        gone = self._database.execute(sql, (job_id, checkpoint_id)).rowcount > 0
        shutil.rmtree(self._files.checkpoint_dir(job_id, checkpoint_id), ignore_errors=True)
        return gone


def _log_args(job_id: str, line: str, sub_job_id: str | None) -> tuple[Any, ...]:
    return (job_id, time.time(), sub_job_id, line, job_id)


def _decoded(row: dict[str, Any]) -> dict[str, Any]:
    row["sub_jobs"] = json.loads(row["sub_jobs"])
    return row
