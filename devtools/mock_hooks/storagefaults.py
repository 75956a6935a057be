"""Test-only: the mock's file writes fail as a full or a failing disk would.

The storage-fault tests (``tests/reliability/test_storage_faults.py``) run the full-disk
sequence on a real small filesystem, and through this switch:
``CORTEX_GS_MOCK_STORAGE_FAULT=<ENOSPC|EDQUOT|EIO>:<bytes>[:<database bytes>]`` in the
environment of a mock started with test hooks on (:mod:`devtools.mock_hooks.armed`)
puts that app's files (the store's and the backend's saved state) on a disk of
``<bytes>``. A full disk (``ENOSPC``, ``EDQUOT``) holds that many bytes of files under the
state directory, besides the database, and says what is left is free; a file the mock
removes gives its room back. A failing one (``EIO``) fails every write once that many
bytes were written. The write that goes past the room stores what still fits, then
raises ``OSError`` with that errno, as a disk that fills up mid-write does. A full disk
also lets the store's SQLite database grow by ``<database bytes>`` at most (default:
``<bytes>``): a write beyond fails with ``SQLITE_FULL`` ("database or disk is full").
:meth:`FailingDisk.grow` changes the room without a restart.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from devtools.mock_hooks import STORAGE_FAULT_ENV as ENV

ERRNOS = {"ENOSPC": errno.ENOSPC, "EDQUOT": errno.EDQUOT, "EIO": errno.EIO}
# The store's database and its WAL files (arctic_rl_mock.store.db), capped on their own.
DATABASE_NAME = "mock.sqlite3"
log = logging.getLogger("arctic_rl_mock")


class FailingDisk:
    """The disk under ``root``: ``budget`` bytes of files, then writes fail with ``code``;
    ``database_bytes`` is how much the database may grow (None: no cap)."""

    def __init__(
        self, root: Path, code: int, budget: int, database_bytes: int | None = None
    ) -> None:
        self.root = root
        self.code = code
        self.budget = budget
        self.database_bytes = database_bytes
        self._written = 0
        self._lock = threading.Lock()

    def grow(self, by: int) -> None:
        """The disk holds ``by`` more bytes (space returns), or fewer when negative."""
        with self._lock:
            self.budget += by

    def free_bytes(self) -> int:
        """What can still be written."""
        with self._lock:
            return max(0, self.budget - self._used())

    def write(self, path: Path, data: bytes | memoryview) -> None:
        view = memoryview(data)
        with self._lock:
            fits = max(0, min(self.budget - self._used(besides=path), view.nbytes))
            with path.open("wb") as file:  # a missing folder raises before anything counts
                file.write(view[:fits])
            self._written += fits
        if fits < view.nbytes:
            raise OSError(self.code, os.strerror(self.code), str(path))

    def _used(self, besides: Path | None = None) -> int:
        """Bytes the disk holds (a failing one: that it wrote), ``besides`` a file that is
        being overwritten."""
        if self.code == errno.EIO:
            return self._written
        total = 0
        for folder, _, names in os.walk(self.root):
            for name in names:
                path = Path(folder, name)
                if path == besides or (folder == str(self.root) and DATABASE_NAME in name):
                    continue
                with contextlib.suppress(FileNotFoundError):  # removed meanwhile
                    total += path.stat().st_size
        return total


def armed_disk(environ: Mapping[str, str], root: Path) -> FailingDisk:
    """The disk under ``root`` an app writes to for ``$CORTEX_GS_MOCK_STORAGE_FAULT``."""
    raw = environ.get(ENV, "").strip()
    name, _, sizes = raw.partition(":")
    budget, _, database = sizes.partition(":")
    if name not in ERRNOS or not budget.isdigit() or not (database or budget).isdigit():
        expected = f"<{'|'.join(ERRNOS)}>:<bytes>[:<database bytes>]"
        raise ValueError(f"{ENV}: expected {expected}, got {raw!r}")
    log.warning("TEST-ONLY: this mock's writes fail with %s after %s bytes", name, budget)
    full = ERRNOS[name] != errno.EIO
    database_bytes = int(database or budget) if full else None
    return FailingDisk(root, ERRNOS[name], int(budget), database_bytes)
