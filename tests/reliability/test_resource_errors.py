"""A mock out of file descriptors logs one line per interval, not a traceback per attempt.

``python -m arctic_rl_mock`` runs with its open-file limit lowered (``RLIMIT_NOFILE``), so its
``accept()`` fails with ``EMFILE`` while a crowd of raw connections holds every descriptor;
asyncio reports each failed attempt to the loop's exception handler. The mock's handler
logs the first, then one line per ``--log-interval`` with the count of those left out.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx

from devtools.mock_process import MockProcess, stable_port

FD_LIMIT = 128
CROWD = 3 * FD_LIMIT
LOG_INTERVAL_S = 2
GIVE_UP_S = 60.0
MARK = "out of system resource"


def answers(mock: MockProcess) -> bool:
    """Whether its capacity route answers (once the crowd has gone)."""
    try:
        return httpx.get(f"{mock.base_url}/capacity", headers=mock.headers(), timeout=2).is_success
    except httpx.TransportError:
        return False


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
    mock = MockProcess(
        tmp_path / "state",
        port=stable_port(),
        open_files=FD_LIMIT,
        args=("--log-interval", str(LOG_INTERVAL_S)),
    )
    log_path = mock.log_file
    held: list[socket.socket] = []
    with mock:
        try:
            held = crowd(mock.port)

            def throttled() -> bool:  # a second line, counting the attempts left out
                lines = [line for line in log_path.read_text().splitlines() if MARK in line]
                return len(lines) >= 2

            wait_for("no throttled resource-error line", throttled, log_path)
            for sock in held:
                sock.close()
            wait_for("the mock did not recover", lambda: answers(mock), log_path)
        finally:
            for sock in held:
                sock.close()
    text = log_path.read_text()
    lines = [line for line in text.splitlines() if MARK in line]
    assert "Traceback" not in text and "Too many open files" in lines[0]
    assert all("more like it in the last 2 s" in line for line in lines[1:]), lines
