"""The places where test support may hook into one app; all do nothing by default.

Each app has its own :class:`Hooks` (``app.state.hooks``): its store marks every commit
boundary with :meth:`Hooks.crash_point`, and its store and backend write every file
through :meth:`Hooks.write_file` and ask :meth:`Hooks.free_bytes` how much room is left.
The product's hooks are these plain ones. Test support replaces them only when the mock
is started with test hooks on (``python -m arctic_rl_mock --test-hooks``, or
``create_app(..., test_hooks=True)`` as the test harness does); the environment then
says what to arm:

- ``CORTEX_GS_MOCK_CRASH_AT`` names a commit boundary at which the process exits
  (:mod:`devtools.mock_hooks.crashpoints`).
- ``CORTEX_GS_MOCK_DEPART`` names deliberate departures from the contract
  (:mod:`devtools.mock_hooks.departures`), for the contract-check kit's tests.
- ``CORTEX_GS_MOCK_STORAGE_FAULT`` makes the mock's file writes fail as a full or failing
  disk would (:mod:`devtools.mock_hooks.storagefaults`).

Without the flag a variable arms nothing (a shell that kept one exported must not make a
mock fail on purpose); the mock says it ignores it.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arctic_rl_mock.settings import Settings

if TYPE_CHECKING:
    from arctic_rl_mock.store import Store

CRASH_ENV = "CORTEX_GS_MOCK_CRASH_AT"
DEPART_ENV = "CORTEX_GS_MOCK_DEPART"
STORAGE_FAULT_ENV = "CORTEX_GS_MOCK_STORAGE_FAULT"
HOOK_ENVS = (CRASH_ENV, DEPART_ENV, STORAGE_FAULT_ENV)
TEST_HOOKS_FLAG = "--test-hooks"
log = logging.getLogger("arctic_rl_mock")


class Hooks:
    """The seams of one app, as the product runs them: plain writes, no crash points."""

    def crash_point(self, point: str) -> None:
        """A commit boundary of the store (nothing happens here)."""

    def write_file(self, path: Path, data: bytes | memoryview, *, in_place: bool = False) -> None:
        """Write one of the mock's files; ``in_place`` overwrites it without truncating it
        first (see :func:`write_in_place`)."""
        if in_place:
            write_in_place(path, data)
        else:
            path.write_bytes(data)

    def free_bytes(self, path: Path) -> int:
        """Free bytes on the disk that holds ``path``."""
        return shutil.disk_usage(path).free

    def install(self, app: Any, settings: Settings, store: Store) -> None:
        """Put what the hooks need around the app and its store (nothing here)."""


def write_in_place(path: Path, data: bytes | memoryview) -> None:
    """Overwrite ``path`` from its first byte, then cut it to ``data``'s length.

    A rename over an existing file, or a truncation to zero followed by a write, makes
    ext4 flush the data at once; an overwrite in place does not (callers that need a
    torn write to be detectable make the content say its own length and checksum).
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, memoryview(data).nbytes)
    finally:
        os.close(fd)


def hooks_for(
    settings: Settings, test_hooks: bool, environ: Mapping[str, str] | None = None
) -> Hooks:
    """The hooks of a new app: armed from ``environ`` (default: the process's) when the
    mock was started with test hooks on, else the plain ones."""
    environ = os.environ if environ is None else environ
    asked = [name for name in HOOK_ENVS if environ.get(name, "").strip()]
    if not test_hooks:
        if asked:
            log.warning(
                "ignoring %s: test hooks are armed only by %s", ", ".join(asked), TEST_HOOKS_FLAG
            )
        return Hooks()
    from devtools.mock_hooks.armed import ArmedHooks

    return ArmedHooks.from_environ(environ, settings.state_dir)


__all__ = [
    "CRASH_ENV",
    "DEPART_ENV",
    "HOOK_ENVS",
    "STORAGE_FAULT_ENV",
    "TEST_HOOKS_FLAG",
    "Hooks",
    "hooks_for",
    "write_in_place",
]
