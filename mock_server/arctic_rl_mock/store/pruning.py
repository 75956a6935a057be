"""Retention: which finished requests go, pruning them, and the ids of the pruned ones.

A finished request (``done``, ``failed``, ``cancelled``) is pruned with its events, its
chunk group (rows and any chunk files left) and any input file, in one transaction per
batch that also records its id in ``pruned_requests`` (with its job and chunk group).
That row is what tells a poll of a pruned id (410) from an id never issued (404), and
what a retried chunk group of a pruned request resolves to. Pruned ids are remembered
for the idempotency window, and at most ``keep_pruned`` per job.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arctic_rl_mock.store.db import Database
from arctic_rl_mock.store.files import StateFiles
from arctic_rl_mock.store.idempotency_records import IDEMPOTENCY_TTL_S
from arctic_rl_mock.store.requests import IN_FLIGHT, RequestTable

# The same words as the ``requests_finished`` index (SQLite uses a partial index only for
# a query that repeats its condition).
FINISHED_SQL = "status IN ('done', 'failed', 'cancelled')"
# Requests pruned per transaction: the store's lock is released between batches.
PRUNE_BATCH = 256


@dataclass(frozen=True)
class Retention:
    """How long and how many: finished requests kept ``keep_s`` seconds after they ended
    and at most ``keep_per_job`` per job (whichever prunes first); ``keep_pruned`` pruned
    ids per job remembered (each for the idempotency window); ``keep_log_lines`` per job."""

    keep_s: float
    keep_per_job: int
    keep_pruned: int
    keep_log_lines: int


@dataclass(frozen=True)
class Pruned:
    """What is left of a pruned request: its job, its chunk group, when it was pruned."""

    job_id: str
    group_id: str | None
    pruned_at: float


class RetentionTable:
    """The ``pruned_requests`` table: pruning finished requests (their rows in every
    table, their files), and what the store remembers of the pruned ones."""

    def __init__(self, database: Database, files: StateFiles, requests: RequestTable) -> None:
        self._database = database
        self._files = files
        self._requests = requests

    def prune_job(self, job_id: str, retention: Retention) -> int:
        """Prune what the job keeps beyond ``retention``, batch by batch; how many went."""
        total = 0
        while batch := self._prunable(job_id, retention, time.time()):
            self._prune(job_id, batch)
            total += len(batch)
            if len(batch) < PRUNE_BATCH:
                break
        self._forget_old(job_id, retention)
        return total

    def _prunable(self, job_id: str, retention: Retention, now: float) -> list[dict[str, Any]]:
        """Up to a batch of the job's finished requests past a bound: (request_id, input)."""
        finished = f"SELECT request_id, input FROM requests WHERE job_id = ? AND {FINISHED_SQL}"
        too_many = self._database.all(
            f"{finished} ORDER BY updated_at DESC LIMIT ? OFFSET ?",
            (job_id, PRUNE_BATCH, retention.keep_per_job),
        )
        too_old = self._database.all(
            f"{finished} AND updated_at < ? ORDER BY updated_at LIMIT ?",
            (job_id, now - retention.keep_s, PRUNE_BATCH),
        )
        batch = {row["request_id"]: row for row in (*too_many, *too_old)}
        return list(batch.values())[:PRUNE_BATCH]

    def _prune(self, job_id: str, batch: Sequence[dict[str, Any]]) -> None:
        """One transaction: the requests, their events and groups go; their ids stay."""
        now = time.time()
        inputs = [json.loads(row["input"] or "{}") for row in batch]
        ids = [(row["request_id"],) for row in batch]
        groups = [(job_id, i["group"]) for i in inputs if "group" in i]
        remembered = [
            (row["request_id"], job_id, payload.get("group"), now)
            for row, payload in zip(batch, inputs, strict=True)
        ]
        with self._database.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO pruned_requests VALUES (?, ?, ?, ?)", remembered)
            db.executemany("DELETE FROM events WHERE request_id = ?", ids)
            db.executemany("DELETE FROM chunks WHERE job_id = ? AND group_id = ?", groups)
            db.executemany("DELETE FROM chunk_groups WHERE job_id = ? AND group_id = ?", groups)
            db.executemany("DELETE FROM requests WHERE request_id = ?", ids)
        for payload in inputs:  # normally freed once the request ran
            self._files.drop_request_files(job_id, payload)

    def _forget_old(self, job_id: str, retention: Retention) -> None:
        """Bound what is remembered of the job: pruned ids by age and count, log lines."""
        with self._database.transaction() as db:
            db.execute(
                "DELETE FROM pruned_requests WHERE job_id = ? AND pruned_at < ?",
                (job_id, time.time() - IDEMPOTENCY_TTL_S),
            )
            db.execute(
                "DELETE FROM pruned_requests WHERE rowid IN (SELECT rowid FROM pruned_requests"
                " WHERE job_id = ? ORDER BY pruned_at DESC, rowid DESC LIMIT -1 OFFSET ?)",
                (job_id, retention.keep_pruned),
            )
            db.execute(
                "DELETE FROM logs WHERE job_id = ? AND seq <= "
                "(SELECT MAX(seq) FROM logs WHERE job_id = ?) - ?",
                (job_id, job_id, retention.keep_log_lines),
            )

    def pruned(self, request_id: str) -> Pruned | None:
        """What is remembered of a pruned request, or None (never issued, or forgotten)."""
        row = self._database.one(
            "SELECT job_id, group_id, pruned_at FROM pruned_requests WHERE request_id = ?",
            (request_id,),
        )
        return None if row is None else Pruned(**row)

    def pruned_group_request(self, job_id: str, group_id: str) -> str | None:
        """The pruned request a chunk group became, if the store still remembers it."""
        row = self._database.one(
            "SELECT request_id FROM pruned_requests WHERE job_id = ? AND group_id = ?",
            (job_id, group_id),
        )
        return None if row is None else str(row["request_id"])

    def drop_orphans(self) -> None:
        """Start-up: events of requests the store no longer has, input files of requests
        not waiting to run, chunk files of groups whose request is over (a crash between a
        request's end and the removal of its files leaves them)."""
        with self._database.transaction() as db:
            db.execute(
                "DELETE FROM events WHERE NOT EXISTS"
                " (SELECT 1 FROM requests AS r WHERE r.request_id = events.request_id)"
            )
            over = db.execute(
                f"SELECT job_id, input FROM requests WHERE {FINISHED_SQL} AND input IS NOT NULL"
            ).fetchall()
        self._files.drop_inputs_except(set(self._requests.requests_in(IN_FLIGHT)))
        for job_id, text in over:
            self._files.drop_request_files(job_id, json.loads(text))
