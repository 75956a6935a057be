"""Durable mock state: one SQLite file (plus chunk and checkpoint files) under --state-dir.

The real service keeps accepted chunks with the job, not the connection, and promises
idempotency for 24 hours; the mock can only honour those promises across its own
restarts if jobs, requests, events, chunk groups and idempotency records are on disk.
Split by concern, every SQL statement beside the tables it reads:

- :mod:`.db`: the schema, the one connection and its lock, transactions;
- :mod:`.jobs`: jobs (also held in memory), their logs and checkpoints;
- :mod:`.requests`: requests, their events, idempotency records;
- :mod:`.groups`: chunk groups and start-up reconciliation;
- :mod:`.retention`: pruning finished requests, and the ids of the pruned ones;
- :mod:`.files`: where files live, and the chunk files.

Each state change that must survive a crash whole is one transaction: a request with its
idempotency record (``create_request``), a group's final chunk with the group's request
and binding (``finish_group``); files are written before the rows that name them, so a
crash leaves at most a file without a row, which ``reconcile`` removes at start-up.
The store is blocking: the event loop calls it in a thread (``asyncio.to_thread``), the
worker thread directly.
"""

from __future__ import annotations

from mock_server.store.requests import IN_FLIGHT, IdempotencyRecord
from mock_server.store.retention import RetentionRows


class Store(RetentionRows):
    """Thread-safe access to the mock's durable state (every part of it, one connection)."""


__all__ = ["IN_FLIGHT", "IdempotencyRecord", "Store"]
