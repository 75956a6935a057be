"""The mock's CLI in a process of its own: start it, wait until it answers, stop it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from devtools.mock_process import free_port

PREFIX = "/api/v2/databases/DB1/schemas/S1/cortex-training"


def spawn(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    cmd = [sys.executable, "-m", "arctic_rl_mock", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--state-dir", str(tmp_path), "--database", "DB1", "--schema", "S1", *extra]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    return proc, port


def wait_up(port: int, proc: subprocess.Popen[str], headers: dict[str, str]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
        try:
            httpx.get(f"http://127.0.0.1:{port}{PREFIX}/capacity", headers=headers, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    pytest.fail("mock did not start")


def stop(proc: subprocess.Popen[str]) -> str:
    proc.terminate()
    out, _ = proc.communicate(timeout=30)
    return out
