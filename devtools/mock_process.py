"""The mock Cortex GS as a subprocess of this checkout, for the demo, chaos and benchmarks.

`running_mock` starts ``python -m arctic_rl_mock`` on 127.0.0.1 with a fresh random token
that travels only through environment variables, waits until it answers, and stops it.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arctic_rl_mock.settings import Settings
from cortex_gs_contract import TOKEN_TYPE, TOKEN_TYPE_HEADER

REPO = Path(__file__).resolve().parent.parent
MOCK_TOKEN_ENV = "CORTEX_GS_MOCK_TOKEN"  # what the mock reads its token from
PAT_ENV = "ARCTIC_RL_DEMO_PAT"  # what the client reads it from (named in the config)


def free_port() -> int:
    """A port nothing listens on right now (the mock binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(proc: subprocess.Popen[bytes], url: str, token: str, timeout: float) -> None:
    """Poll the capacity route until the mock answers it (or the process dies)."""
    import httpx

    headers = {"Authorization": f"Bearer {token}", TOKEN_TYPE_HEADER: TOKEN_TYPE}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the mock exited with status {proc.returncode}")
        try:
            if httpx.get(f"{url}/capacity", headers=headers, timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the mock did not answer within {timeout:.0f} s")


@contextmanager
def running_mock(
    state_dir: Path, log_path: Path, *, backend: str = "reference", timeout: float = 120.0
) -> Iterator[str]:
    """Start ``python -m arctic_rl_mock`` as a subprocess; yield its base URL; stop it.

    The token is random, travels only through environment variables, and is put where
    the client's config says to look for it (``cortex.pat_env``, here ``PAT_ENV``), so
    child processes started meanwhile inherit it too. The benchmarks reuse this.
    """
    token = secrets.token_urlsafe(24)
    port = free_port()
    # One intra-op thread: the model is tiny, and spinning thread pools on a shared
    # two-core machine cost far more than they give.
    env = {"OMP_NUM_THREADS": "1", **os.environ, MOCK_TOKEN_ENV: token}
    cmd = [
        sys.executable, "-m", "arctic_rl_mock", "--host", "127.0.0.1", "--port", str(port),
        "--backend", backend, "--state-dir", str(state_dir), "--log-level", "warning",
    ]  # fmt: skip
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}{Settings(state_dir=state_dir).prefix}"  # CLI defaults
        wait_ready(proc, url, token, timeout)
        os.environ[PAT_ENV] = token
        yield url
    finally:
        os.environ.pop(PAT_ENV, None)
        stop_process(proc)


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """Ask the process to exit; kill it when it has not within 15 s."""
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
