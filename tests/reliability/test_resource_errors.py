"""A mock out of file descriptors logs one line per interval, not a traceback per attempt.

``python -m arctic_rl_mock`` runs with its open-file limit lowered (``RLIMIT_NOFILE``), so its
``accept()`` fails with ``EMFILE`` while a crowd of raw connections holds every descriptor;
asyncio reports each failed attempt to the loop's exception handler. The mock's handler
logs the first, then one line per ``--log-interval`` with the count of those left out.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from arctic_rl_mock.settings import Settings

from devtools.live_mock import auth_headers
from devtools.mock_process import stable_port

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "resource-test-pat"
FD_LIMIT = 128
CROWD = 3 * FD_LIMIT
LOG_INTERVAL_S = 2
GIVE_UP_S = 60.0
MARK = "out of system resource"


def lowered_fd_limit() -> None:
    """In the mock's process, before it starts: a soft and hard limit it cannot raise."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def start_mock(state_dir: Path, port: int, log_path: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "arctic_rl_mock", "--port", str(port), "--backend", "canned"]
    command += ["--state-dir", str(state_dir), "--log-level", "warning"]
    command += ["--log-interval", str(LOG_INTERVAL_S)]
    env = {**os.environ, "CORTEX_GS_MOCK_TOKEN": TOKEN, "OMP_NUM_THREADS": "1"}
    with log_path.open("wb") as log:
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=lowered_fd_limit,
        )


def capacity(base_url: str) -> int | None:
    try:
        return httpx.get(f"{base_url}/capacity", headers=auth_headers(TOKEN), timeout=2).status_code
    except httpx.TransportError:
        return None


def wait_for(what: str, ready: object, log_path: Path) -> None:
    deadline = time.monotonic() + GIVE_UP_S
    while not ready():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"{what}:\n{log_path.read_text()[-4000:]}"
        time.sleep(0.1)


def crowd(port: int) -> list[socket.socket]:
    """Raw connections that never send a byte (those the backlog cannot take are skipped)."""
    held = []
    for _ in range(CROWD):
        try:
            held.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        except OSError:
            break
    return held


def test_running_out_of_descriptors_logs_one_line_per_interval(tmp_path: Path) -> None:
    port, log_path = stable_port(), tmp_path / "mock.log"
    base_url = f"http://127.0.0.1:{port}{Settings(state_dir=tmp_path).prefix}"
    process = start_mock(tmp_path / "state", port, log_path)
    held: list[socket.socket] = []
    try:
        wait_for("the mock did not start", lambda: capacity(base_url) == 200, log_path)
        held = crowd(port)

        def throttled() -> bool:  # a second line, counting the attempts left out
            lines = [line for line in log_path.read_text().splitlines() if MARK in line]
            return len(lines) >= 2

        wait_for("no throttled resource-error line", throttled, log_path)
        for sock in held:
            sock.close()
        wait_for("the mock did not recover", lambda: capacity(base_url) == 200, log_path)
    finally:
        for sock in held:
            sock.close()
        process.terminate()
        process.wait(30)
    text = log_path.read_text()
    lines = [line for line in text.splitlines() if MARK in line]
    assert "Traceback" not in text and "Too many open files" in lines[0]
    assert all("more like it in the last 2 s" in line for line in lines[1:]), lines
