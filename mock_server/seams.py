"""The places where test support may hook into the mock; all do nothing by default.

The product never imports :mod:`mock_server.testsupport` unless one of these
environment variables asks for it (only tests set them):

- ``CORTEX_GS_MOCK_CRASH_AT`` names a commit boundary at which the process exits
  (:mod:`mock_server.testsupport.crashpoints`); the store marks each boundary with
  :func:`crash_point`.
- ``CORTEX_GS_MOCK_DEPART`` names deliberate departures from the contract
  (:mod:`mock_server.testsupport.departures`), for the contract-check kit's tests.
- ``CORTEX_GS_MOCK_STORAGE_FAULT`` makes the store's file writes fail as a full or failing
  disk would (:mod:`mock_server.testsupport.storagefaults`); the store writes every file
  through :func:`write_file` and asks :func:`free_bytes` how much room is left.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from mock_server.settings import Settings

CRASH_ENV = "CORTEX_GS_MOCK_CRASH_AT"
DEPART_ENV = "CORTEX_GS_MOCK_DEPART"
STORAGE_FAULT_ENV = "CORTEX_GS_MOCK_STORAGE_FAULT"

# What a crash point calls: empty (every crash point a no-op) unless a crash test armed one.
_crash_hook: list[Callable[[str], None]] = []


def crash_point(point: str) -> None:
    """A commit boundary of the store: nothing happens unless a crash test armed one."""
    for hook in _crash_hook:
        hook(point)


class Disk(Protocol):
    """A failing disk a storage-fault test puts under the store."""

    def write(self, path: Path, data: bytes | memoryview) -> None: ...

    def free_bytes(self) -> int: ...


# The disk the store's files go to instead of the real one: empty unless a test armed one.
_disk: list[Disk] = []


def write_file(path: Path, data: bytes | memoryview) -> None:
    """Write one of the store's files (a plain write unless a storage-fault test armed one)."""
    if _disk:
        _disk[0].write(path, data)
    else:
        path.write_bytes(data)


def free_bytes(path: Path) -> int:
    """Free bytes on the disk that holds ``path`` (what an armed failing disk has left)."""
    return _disk[0].free_bytes() if _disk else shutil.disk_usage(path).free


def arm(app: Any, settings: Settings) -> None:
    """Install the test support the environment asks for (nothing when unset).

    The storage fault is armed afresh for each app, so a test clears it by restarting the
    mock without the variable.
    """
    _disk.clear()
    if os.environ.get(STORAGE_FAULT_ENV, "").strip():
        from mock_server.testsupport import storagefaults

        _disk.append(storagefaults.armed_disk(os.environ, app.state.service.store.db))
    if os.environ.get(CRASH_ENV, "").strip() and not _crash_hook:
        from mock_server.testsupport import crashpoints

        _crash_hook.append(crashpoints.armed_hook(os.environ))
    if os.environ.get(DEPART_ENV, "").strip():
        from mock_server.testsupport import departures

        departures.install(app, settings)


__all__ = [
    "CRASH_ENV",
    "DEPART_ENV",
    "STORAGE_FAULT_ENV",
    "arm",
    "crash_point",
    "free_bytes",
    "write_file",
]
