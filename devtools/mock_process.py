"""The mock Cortex GS as a subprocess of this checkout, for the demo, chaos, benchmarks, tests.

`running_mock` starts ``python -m arctic_rl_mock`` on 127.0.0.1 with a fresh random token
that travels only through environment variables, waits until it answers, and stops it.
`MockProcess` is one on a fixed port and state dir that a test stops, crashes and restarts
(``python -m devtools.mock_hooks`` when a crash point is armed).
"""

from __future__ import annotations

import os
import random
import secrets
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from arctic_rl_mock.settings import Settings
from cortex_gs_contract import TOKEN_TYPE, TOKEN_TYPE_HEADER

from devtools.live_mock import auth_headers
from devtools.mock_hooks import crashpoints

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


# A restartable mock process on a fixed port and state dir (the crash and restart tests).
TOKEN = "crash-test-pat"
PREFIX = Settings(state_dir=Path(".")).prefix
STARTUP_TIMEOUT_S = 60.0
TRAINING_JOB: dict[str, Any] = {
    "sub_job_configs": [
        {
            "job_type": "training",
            "model_name": "tiny-byte-lm",
            "training_config": {
                "optimizer": {"name": "AdamW", "lr": 1e-3},
                "max_seq_len": 64,
                "train_batch_size": 2,
                "n_gpus": 1,
            },
        }
    ]
}


@dataclass
class MockProcess:
    """The mock in a process of its own on a fixed port and state dir (restartable), playing
    ``service`` (``--service``)."""

    state_dir: Path
    port: int
    service: str = "today"
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PREFIX}"

    def start(self, crash_at: str | None = None, *, test_hooks: bool | None = None) -> None:
        """Start it; ``crash_at`` arms that crash point. ``test_hooks`` runs
        ``python -m devtools.mock_hooks`` (default: when a crash point is armed), else the
        product's ``python -m arctic_rl_mock``, where the variables set arm nothing."""
        env = {**os.environ, MOCK_TOKEN_ENV: TOKEN, "OMP_NUM_THREADS": "1"}
        if crash_at is not None:
            env[crashpoints.ENV] = crash_at
        log = (self.state_dir.parent / "mock.log").open("ab")
        armed = crash_at is not None if test_hooks is None else test_hooks
        module = "devtools.mock_hooks" if armed else "arctic_rl_mock"
        command = [sys.executable, "-m", module, "--port", str(self.port), "--backend"]
        command += ["canned", "--state-dir", str(self.state_dir), "--log-level", "warning"]
        command += ["--service", self.service]
        self.process = subprocess.Popen(
            command,
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        with httpx.Client(base_url=self.base_url, headers=auth_headers(TOKEN)) as http:
            while time.monotonic() < deadline:
                assert self.process is not None and self.process.poll() is None, self.log()
                try:
                    if http.get("/capacity", timeout=2).is_success:
                        return
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
        raise AssertionError(f"the mock did not start:\n{self.log()}")

    def wait_crashed(self, timeout: float = 60.0) -> int:
        """The exit status once the process has died (it must die by itself)."""
        assert self.process is not None
        return self.process.wait(timeout)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)

    def log(self) -> str:
        path = self.state_dir.parent / "mock.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        """Read the store read-only: what the mock really recorded."""
        uri = f"file:{self.state_dir / 'mock.sqlite3'}?mode=ro"
        db = sqlite3.connect(uri, uri=True, timeout=10)
        try:
            return db.execute(sql, args).fetchall()
        finally:
            db.close()

    def requests(self, job_id: str, kind: str) -> list[tuple[str, str]]:
        """(request_id, status) of each request of ``kind`` the job has."""
        return self.rows(
            "SELECT request_id, status FROM requests WHERE job_id = ? AND kind = ?", job_id, kind
        )


def running_job(http: httpx.Client) -> str:
    created = http.post("/", json=TRAINING_JOB)
    assert created.status_code == 200, created.text
    job_id = str(created.json()["job_id"])
    deadline = time.monotonic() + 30
    while http.get(f"/{job_id}").json()["status"] != "running":
        assert time.monotonic() < deadline, "the job never ran"
        time.sleep(0.05)
    return job_id


def wait_done(http: httpx.Client, job_id: str, request_id: str) -> dict[str, Any]:
    for _ in range(30):
        page = http.get(f"/{job_id}/requests/{request_id}", params={"wait_s": 2})
        assert page.status_code == 200, page.text
        if page.json()["status"] not in ("pending", "running"):
            return dict(page.json())
    raise AssertionError(f"request {request_id} never finished")


@contextmanager
def http_of(server: MockProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, headers=auth_headers(TOKEN), timeout=30) as http:
        yield http


def stable_port() -> int:
    """A free port below the ephemeral range: while a killed mock is down, no other
    process's connection (or port-0 server) can be handed its port before it restarts."""
    ephemeral = Path("/proc/sys/net/ipv4/ip_local_port_range")
    lowest = int(ephemeral.read_text().split()[0]) if ephemeral.exists() else 32768
    for port in random.sample(range(10_000, lowest), 200):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port below the ephemeral range")
