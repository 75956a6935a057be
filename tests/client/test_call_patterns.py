"""The legacy client in the frameworks' own calling patterns, for thousands of calls.

Each pattern (`standins/call_patterns.py`: SkyRL's fresh loop per call never closed,
``asyncio.run`` per call, loops closed by hand, verl's plain threads, one long-lived
loop) runs 2,000 ``step()`` calls in a process of its own against the live mock, and is
held to counts, never timings: open descriptors flat after the first 10 calls, RSS
growth bounded, one connection reused by every call (one per thread calling at once),
and stderr clean through the interpreter's exit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import PAT_ENV, Endpoint
from .standins import call_patterns

SCRIPT = Path(call_patterns.__file__)
CALLS = 2_000
# Descriptors may rise this much after the first 10 calls (the pool's idle connections).
MAX_NEW_DESCRIPTORS = 8
# Measured: 0.5 to 1.7 MiB over 2,000 calls, by pattern; a leak of one loop, pool or task
# per call costs far more (tens of KiB each).
MAX_RSS_GROWTH_MIB = 8.0
NEVER_IN_STDERR = (
    "Task was destroyed",
    "Exception ignored",
    "NoEventLoopError",
    "ResourceWarning",
    "Traceback",
)
CALLERS = {"threads": call_patterns.THREADS}  # calls in flight at once; others make one


def replay(pattern: str, endpoint: Endpoint) -> tuple[dict[str, Any], str]:
    """The pattern's samples, and its whole stderr, read after the process exited."""
    warnings = ["-W", "always::ResourceWarning"]
    if pattern == "skyrl":  # the loops SkyRL's helper leaves open are its own, not ours
        warnings += ["-W", "ignore:unclosed event loop:ResourceWarning"]
    env = {**os.environ, PAT_ENV: endpoint.token}
    done = subprocess.run(
        [sys.executable, *warnings, str(SCRIPT), pattern, endpoint.base_url, str(CALLS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


@pytest.mark.parametrize("pattern", list(call_patterns.PATTERNS))
def test_thousands_of_calls_leave_descriptors_memory_and_stderr_as_they_were(
    pattern: str, endpoint: Endpoint
) -> None:
    outcome, stderr = replay(pattern, endpoint)
    first, *later = outcome["samples"]
    last = later[-1]
    assert outcome["steps"] == CALLS
    for shown in NEVER_IN_STDERR:
        assert shown not in stderr, stderr[-3000:]
    assert max(sample["fds"] for sample in later) <= first["fds"] + MAX_NEW_DESCRIPTORS, outcome
    assert last["rss_mib"] - first["rss_mib"] <= MAX_RSS_GROWTH_MIB, outcome
    # One pool for the client, whichever loop calls: its connections are reused, not
    # reopened per call or per loop.
    assert 1 <= len(outcome["connections"]) <= CALLERS.get(pattern, 1), outcome
