"""Test-only: the hooks of one app started with test hooks on, armed from the environment.

:func:`arctic_rl_mock.hooks.hooks_for` builds them (importing this module only then) when the
mock was started with ``--test-hooks`` (``create_app(..., test_hooks=True)``); each
variable of :mod:`arctic_rl_mock.hooks` that is set arms its part, for this app alone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from arctic_rl_mock.hooks import CRASH_ENV, DEPART_ENV, STORAGE_FAULT_ENV, Hooks
from arctic_rl_mock.settings import Settings
from arctic_rl_mock.store import Store

from devtools.mock_hooks import crashpoints, departures, storagefaults

log = logging.getLogger("arctic_rl_mock")


class ArmedHooks(Hooks):
    """A crash point, a failing disk and departures, each armed or not."""

    def __init__(
        self,
        crash: Callable[[str], None] | None = None,
        disk: storagefaults.FailingDisk | None = None,
        departures_named: frozenset[str] = frozenset(),
    ) -> None:
        self.crash = crash
        self.disk = disk
        self.departures = departures_named

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], state_dir: Path) -> ArmedHooks:
        """What the variables that are set ask for, for the app whose state lives in
        ``state_dir`` (an invalid value is an error)."""
        crash = crashpoints.armed_hook(environ) if environ.get(CRASH_ENV, "").strip() else None
        faulty = environ.get(STORAGE_FAULT_ENV, "").strip()
        disk = storagefaults.armed_disk(environ, state_dir) if faulty else None
        named = departures.requested(environ) if environ.get(DEPART_ENV, "").strip() else None
        if crash is None and disk is None and not named:
            log.warning("test hooks are on, and none is armed")
        return cls(crash, disk, named or frozenset())

    def crash_point(self, point: str) -> None:
        if self.crash is not None:
            self.crash(point)

    def write_file(self, path: Path, data: bytes | memoryview, *, in_place: bool = False) -> None:
        if self.disk is not None:
            self.disk.write(path, data)
        else:
            super().write_file(path, data, in_place=in_place)

    def free_bytes(self, path: Path) -> int:
        return self.disk.free_bytes() if self.disk is not None else super().free_bytes(path)

    def install(self, app: Any, settings: Settings, store: Store) -> None:
        """A full disk caps the store's database too; departures wrap the app."""
        if self.disk is not None and self.disk.database_bytes is not None:
            store.db.cap_growth(self.disk.database_bytes)
        if self.departures:
            departures.install(app, settings, self.departures)
