"""Idempotency records: the first answer under a key, which answers its retries."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from arctic_rl_mock.store.db import Database

IDEMPOTENCY_TTL_S = 24 * 3600
# Expired idempotency records are purged at most this often (reads skip them anyway).
IDEMPOTENCY_PURGE_EVERY_S = 60.0


@dataclass(frozen=True)
class IdempotencyRecord:
    """The first answer under an ``Idempotency-Key``; ``request_id`` is the request that
    answer names, if any (a record whose request is neither stored nor remembered as
    pruned is not honoured)."""

    scope: str
    key: str
    body_hash: str
    status: int
    response: Any
    request_id: str | None = None


class IdempotencyTable:
    """The ``idempotency`` table; records are written in the transaction of what they
    answer for (a job, a request), so a crash keeps both or neither."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._purged_at = 0.0

    def get_idempotent(self, scope: str, key: str) -> dict[str, Any] | None:
        """A live record: under 24 h old, and its request (if it names one) still stored or
        remembered as pruned (a retry then answers the pruned request, whose poll is 410)."""
        row = self._database.one(
            "SELECT * FROM idempotency AS i WHERE scope = ? AND key = ? AND created_at >= ?"
            " AND (i.request_id IS NULL"
            " OR EXISTS (SELECT 1 FROM requests AS r WHERE r.request_id = i.request_id)"
            " OR EXISTS (SELECT 1 FROM pruned_requests AS p WHERE p.request_id = i.request_id))",
            (scope, key, time.time() - IDEMPOTENCY_TTL_S),
        )
        if row is not None:
            row["response"] = json.loads(row["response"])
        return row

    def put_idempotent(self, record: IdempotencyRecord) -> None:
        """Remember the first answer under a key (one that changed no state of its own)."""
        with self._database.transaction() as db:
            self.insert(db, record)

    def insert(self, db: sqlite3.Connection, record: IdempotencyRecord) -> None:
        """Write ``record`` inside a transaction (``db``: its connection); now and then
        purge the expired ones."""
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

    @staticmethod
    def drop_unbacked(db: sqlite3.Connection) -> None:
        """Inside a transaction: drop the records naming a request that neither exists nor
        was pruned (a crash came between them; a retry then runs once)."""
        db.execute(
            "DELETE FROM idempotency WHERE request_id IS NOT NULL AND request_id NOT IN"
            " (SELECT request_id FROM requests UNION SELECT request_id FROM pruned_requests)"
        )
