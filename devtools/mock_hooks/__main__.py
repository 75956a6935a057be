"""``python -m devtools.mock_hooks``: the mock (the same options) with its hooks armed
from the environment (:mod:`devtools.mock_hooks`); its help lists the faults it can plant,
and a fault it does not know is refused in one line before it serves."""

import sys
from typing import Any

from arctic_rl_mock.__main__ import main
from arctic_rl_mock.settings import Settings
from fastapi import FastAPI

from devtools.mock_hooks import (
    CRASH_ENV,
    DEPART_ENV,
    STORAGE_FAULT_ENV,
    crashpoints,
    departures,
    storagefaults,
)
from devtools.mock_hooks.armed import armed_app


def planted_faults() -> str:
    """The faults this mock can be told to plant (for kit drills: docs/server-team.md), by
    the variable that names them."""
    codes = "|".join(storagefaults.ERRNOS)
    return "\n".join(
        [
            "planted faults:",
            f"  {DEPART_ENV}=name[,name...]: {', '.join(sorted(departures.DEPARTURES))}",
            f"  {STORAGE_FAULT_ENV}={codes}:<bytes>[:<database bytes>]",
            f"  {CRASH_ENV}=point: {', '.join(sorted(crashpoints.POINTS))}",
        ]
    )


def armed_or_refused(settings: Settings, *args: Any, **kwargs: Any) -> FastAPI:
    """The armed app, or exit status 2 with one line naming a fault it does not know."""
    try:
        return armed_app(settings, *args, **kwargs)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    sys.exit(main(build_app=armed_or_refused, epilog=planted_faults()))
