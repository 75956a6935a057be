"""Test-only: the store's file writes fail as a full or a failing disk would.

The storage-fault tests (``tests/reliability/test_storage_faults.py``) run the full-disk
sequence on a real small filesystem where they may mount one, and through this switch
where they may not: ``CORTEX_GS_MOCK_STORAGE_FAULT=<ENOSPC|EDQUOT|EIO>:<bytes>`` in the
environment when the app is built (:func:`mock_server.seams.arm`) lets the store write
that many bytes of files (and says that much is free); the write that would go past them
stores what still fits, then raises ``OSError`` with that errno, as a disk that fills up
mid-write does, and so does every write after it. A full disk (``ENOSPC``, ``EDQUOT``)
also lets the store's SQLite database grow by that many bytes at most: a write beyond
fails with ``SQLITE_FULL`` ("database or disk is full"). Never set it otherwise: the mock
then fails its writes on purpose.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from mock_server.seams import STORAGE_FAULT_ENV as ENV
from mock_server.store.db import Database

ERRNOS = {"ENOSPC": errno.ENOSPC, "EDQUOT": errno.EDQUOT, "EIO": errno.EIO}
log = logging.getLogger("mock_server")


class FailingDisk:
    """Writes files until ``budget`` bytes are written, then fails with ``code``."""

    def __init__(self, code: int, budget: int) -> None:
        self.code = code
        self.left = budget
        self._lock = threading.Lock()

    def free_bytes(self) -> int:
        """What can still be written."""
        with self._lock:
            return self.left

    def write(self, path: Path, data: bytes | memoryview) -> None:
        view = memoryview(data)
        with path.open("wb") as file:  # a missing folder raises before anything counts
            with self._lock:
                fits = min(self.left, view.nbytes)
                self.left -= fits
            file.write(view[:fits])
        if fits < view.nbytes:
            raise OSError(self.code, os.strerror(self.code), str(path))


def armed_disk(environ: Mapping[str, str], database: Database) -> FailingDisk:
    """The disk :mod:`mock_server.seams` writes to for ``$CORTEX_GS_MOCK_STORAGE_FAULT``
    (on a full disk, ``database`` is capped as well)."""
    raw = environ.get(ENV, "").strip()
    name, _, budget = raw.partition(":")
    if name not in ERRNOS or not budget.isdigit():
        raise ValueError(f"{ENV}: expected <{'|'.join(ERRNOS)}>:<bytes>, got {raw!r}")
    log.warning("TEST-ONLY: this mock's writes fail with %s after %s bytes", name, budget)
    if ERRNOS[name] != errno.EIO:
        database.cap_growth(int(budget))
    return FailingDisk(ERRNOS[name], int(budget))
