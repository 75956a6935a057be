"""Durable mock state: one SQLite file (plus chunk and checkpoint files) under --state-dir.

The real service keeps accepted chunks with the job, not the connection, and promises
idempotency for 24 hours; the mock can only honour those promises across its own
restarts if jobs, requests, events, chunk groups and idempotency records are on disk.
One :class:`~.db.Database` (the schema, the one connection and its lock, transactions)
is held by table objects, each with the SQL of its tables; a table that writes another's
rows in its own transaction holds that table too (a request's idempotency record, a
group's request):

- :mod:`.jobs`: ``jobs`` (jobs, also held in memory), ``logs``, ``checkpoints``;
- :mod:`.requests`: ``requests``, ``events``; :mod:`.idempotency`: ``idempotency``;
- :mod:`.groups`: ``groups`` (chunk groups) and start-up reconciliation;
- :mod:`.retention`: ``retention`` (pruning finished requests, the ids of pruned ones);
- :mod:`.files`: ``files``, where files live, and the chunk files.

Each state change that must survive a crash whole is one transaction: a request with its
idempotency record (``create_request``), a group's final chunk with the group's request
and binding (``finish_group``); files are written before the rows that name them, so a
crash leaves at most a file without a row, which ``reconcile`` removes at start-up.
The store is blocking: the event loop calls it in a thread (``asyncio.to_thread``), the
worker thread directly.
"""

from __future__ import annotations

from pathlib import Path

from arctic_rl_mock.hooks import Hooks
from arctic_rl_mock.store.db import Database
from arctic_rl_mock.store.files import StateFiles
from arctic_rl_mock.store.groups import ChunkGroupTable
from arctic_rl_mock.store.idempotency_records import IdempotencyRecord, IdempotencyTable
from arctic_rl_mock.store.jobs import CheckpointTable, JobTable, LogTable
from arctic_rl_mock.store.pruning import RetentionTable
from arctic_rl_mock.store.requests import IN_FLIGHT, EventTable, RequestTable


class Store:
    """Thread-safe access to the mock's durable state: its tables over one database;
    ``hooks`` are the app's hooks (crash points, file writes), plain ones by default."""

    def __init__(self, state_dir: Path, hooks: Hooks | None = None) -> None:
        self.hooks = hooks or Hooks()
        self.db = Database(state_dir, self.hooks)
        self.root = self.db.root
        self.files = StateFiles(self.root, self.hooks)
        self.idempotency = IdempotencyTable(self.db)
        self.logs = LogTable(self.db)
        self.jobs = JobTable(self.db, self.logs, self.idempotency)
        self.checkpoints = CheckpointTable(self.db, self.files)
        self.events = EventTable(self.db)
        self.requests = RequestTable(self.db, self.jobs, self.logs, self.events, self.idempotency)
        self.groups = ChunkGroupTable(self.db, self.files, self.requests, self.idempotency)
        self.retention = RetentionTable(self.db, self.files, self.requests)

    def close(self) -> None:
        """Close the database (tests restart the mock on the same directory)."""
        self.db.close()


__all__ = ["IN_FLIGHT", "IdempotencyRecord", "Store"]
