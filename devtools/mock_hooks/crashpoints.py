"""Test-only: kill the mock at a named point between two of its durable writes.

The crash-point tests (``tests/reliability/test_crash_points.py``) prove that a mock killed
at any commit boundary, then restarted on the same ``--state-dir``, still runs each
request exactly once. They start ``python -m devtools.mock_hooks`` with
``CORTEX_GS_MOCK_CRASH_AT=<point>`` in the environment; the first time the mock reaches
that point, the process exits at once (``os._exit``: no cleanup, no flush, no answer), as
a killed process would. The variable is read when the app is built, and only when the
mock was started with test hooks on (:mod:`devtools.mock_hooks.armed`). Points:

``request_uncommitted``
    A JSON request (step, save, sync-weights, log-probs, ...) and its idempotency record
    are written inside their transaction, which is not committed yet.
``request_committed``
    That transaction is committed; the worker has not been told and no answer was sent.
``chunk_file_written``
    A non-final chunk's file is on disk; its row (and its group's) is not.
``chunk_committed``
    A non-final chunk's row is committed; no answer was sent.
``final_chunk_file_written``
    A group's final chunk is verified and decoded and its file is on disk; nothing of it is
    committed.
``group_uncommitted``
    The final chunk's row, the group's new request and the group's binding to it are
    written inside their transaction, which is not committed yet.
``group_committed``
    That transaction is committed; the worker has not been told and no answer was sent.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Mapping

from devtools.mock_hooks import CRASH_ENV as ENV

POINTS = frozenset(
    {
        "request_uncommitted",
        "request_committed",
        "chunk_file_written",
        "chunk_committed",
        "final_chunk_file_written",
        "group_uncommitted",
        "group_committed",
    }
)
# What the process exits with at the point, so a test can tell this exit from any other.
EXIT_STATUS = 86
log = logging.getLogger("arctic_rl_mock")


def armed_hook(environ: Mapping[str, str]) -> Callable[[str], None]:
    """What an armed app's crash points call for ``$CORTEX_GS_MOCK_CRASH_AT``.

    The hook exits the process the first time the armed point is reached; an unknown
    name (in the variable or at a call) is an error.
    """
    armed = environ.get(ENV, "").strip()
    if armed not in POINTS:
        raise ValueError(f"{ENV}: unknown crash point {armed!r}; known: {sorted(POINTS)}")
    log.warning("TEST-ONLY: this mock exits at crash point %r (%s)", armed, ENV)

    def reached(point: str) -> None:
        if point not in POINTS:
            raise ValueError(f"unknown crash point {point!r}")
        if point == armed:
            sys.stderr.write(f"arctic_rl_mock: crash point {point} reached; exiting\n")
            sys.stderr.flush()
            os._exit(EXIT_STATUS)

    return reached
