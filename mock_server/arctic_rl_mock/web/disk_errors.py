"""Storage faults as answers: a full disk is ``507 storage_full``, an I/O error ``503
storage_error``, both with ``Retry-After``; never a ``500`` or a misleading ``409``.

The store writes chunk files, bare inputs, rows (SQLite) and the backend's state. When
one of those writes fails because the disk (or a quota) is full, or because the device
fails, nothing of the write stays half-done: the file is removed, the transaction rolls
back, an unfinished chunk group is freed with all its chunks. What the client gets is
the answer :meth:`StorageFaults.answer` builds here; the same retry succeeds once space
returns. Each app builds one :class:`StorageFaults` for its request guard and chunk
groups, so its log throttle is that app's alone.
"""

from __future__ import annotations

import errno
import logging
import sqlite3

from cortex_gs_contract import RETRY_AFTER_HEADER, ErrorCode

from arctic_rl_mock.errors import ApiError
from arctic_rl_mock.web.server import ServerSettings, ThrottledLog

# What the answer's Retry-After says: the disk may take a while to get its space back.
RETRY_AFTER_S = 5
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
# SQLite's primary result codes (the low byte of its extended ones).
SQLITE_IOERR = 10
SQLITE_FULL = 13
log = logging.getLogger("arctic_rl_mock")


def kind_of(exc: BaseException) -> str | None:
    """``storage_full``, ``storage_error`` or None (not a storage fault) for an error."""
    if isinstance(exc, OSError):
        if exc.errno in FULL_ERRNOS:
            return ErrorCode.storage_full
        if exc.errno == errno.EIO:
            return ErrorCode.storage_error
        return None
    if isinstance(exc, sqlite3.DatabaseError):
        primary = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
        if primary == SQLITE_FULL:
            return ErrorCode.storage_full
        if primary == SQLITE_IOERR:
            return ErrorCode.storage_error
    return None


class StorageFaults:
    """Answers storage faults, logging one line per ``log_interval_s`` however many calls
    a full or failing disk refuses (the rest counted in the next line)."""

    def __init__(self, log_interval_s: float = ServerSettings.log_interval_s) -> None:
        self._log = ThrottledLog(log, log_interval_s)

    def answer(self, exc: BaseException, doing: str = "storing the request") -> ApiError | None:
        """The answer for a storage fault (None when ``exc`` is not one)."""
        kind = kind_of(exc)
        if kind is None:
            return None
        self._log.warning("storage fault while %s: %s: %s", doing, type(exc).__name__, exc)
        if kind == ErrorCode.storage_full:
            return full(f"the server's storage is full while {doing}; retry once space is freed")
        message = f"the server's storage failed while {doing}; retry shortly"
        return ApiError(503, kind, message, headers={RETRY_AFTER_HEADER: str(RETRY_AFTER_S)})


def full(message: str, fields: dict[str, str] | None = None) -> ApiError:
    """A ``507 storage_full`` answer."""
    headers = {RETRY_AFTER_HEADER: str(RETRY_AFTER_S)}
    return ApiError(507, ErrorCode.storage_full, message, headers=headers, fields=fields)


__all__ = ["RETRY_AFTER_S", "StorageFaults", "full", "kind_of"]
