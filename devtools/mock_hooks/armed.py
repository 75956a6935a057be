"""Test-only: the hooks of one app, armed from the environment, and the app built with them.

:func:`armed_app` builds the mock's app with :class:`ArmedHooks` (``python -m
devtools.mock_hooks``, ``LiveMock(test_hooks=True)``); each variable of
:mod:`devtools.mock_hooks` that is set arms its part, for this app alone.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from arctic_rl_mock.app import create_app
from arctic_rl_mock.hooks import Hooks
from arctic_rl_mock.settings import Settings
from arctic_rl_mock.store.db import Database
from arctic_rl_mock.web.server import ServerSettings
from fastapi import FastAPI

from devtools.mock_hooks import (
    CRASH_ENV,
    DEPART_ENV,
    STORAGE_FAULT_ENV,
    crashpoints,
    departures,
    storagefaults,
)

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

    def arm(self, app: FastAPI, settings: Settings) -> None:
        """A full disk caps the store's database too; departures wrap the app."""
        if self.disk is not None and self.disk.database_bytes is not None:
            cap_growth(app.state.service.store.db, self.disk.database_bytes)
        if self.departures:
            departures.install(app, settings, self.departures)


def cap_growth(db: Database, extra_bytes: int) -> None:
    """Let the database grow by at most ``extra_bytes`` from now on; beyond, SQLite fails
    the write with ``SQLITE_FULL``, as on a full disk."""
    with db.lock:
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {int(pages + extra_bytes // page_size)}")


def armed_app(
    settings: Settings, backend: Any = None, server: ServerSettings | None = None
) -> FastAPI:
    """The mock's app for ``settings``, with hooks armed from this process's environment."""
    hooks = ArmedHooks.from_environ(os.environ, settings.state_dir)
    app = create_app(settings, backend, server, hooks=hooks)
    hooks.arm(app, settings)
    return app
