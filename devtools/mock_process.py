"""The one way this checkout starts the mock Cortex GS as a process of its own.

:class:`MockProcess` runs ``python -m arctic_rl_mock`` (or ``python -m devtools.mock_hooks``
when test hooks are armed) on 127.0.0.1 with a token that travels only through
environment variables, waits until it answers, and stops, kills and restarts it on the same
port and state dir. Its options are the mock's CLI (service, backend, database, schema and
any further arguments), the process's environment, a lowered open-file limit, the log file
and the source tree it runs from. :func:`running_mock` is the demo's and the benchmarks'
short form: a started mock whose token is where the client's config looks for it.
"""

from __future__ import annotations

import os
import random
import resource
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from arctic_rl_mock.settings import Settings

from devtools.live_mock import auth_headers
from devtools.mock_hooks import crashpoints

REPO = Path(__file__).resolve().parent.parent
MOCK_TOKEN_ENV = "CORTEX_GS_MOCK_TOKEN"  # what the mock reads its token from
PAT_ENV = "ARCTIC_RL_DEMO_PAT"  # what the client reads it from (named in the config)
PRODUCT = ("-m", "arctic_rl_mock")
WITH_TEST_HOOKS = ("-m", "devtools.mock_hooks")


def free_port() -> int:
    """A port nothing listens on right now (the mock binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


def stop_process(proc: subprocess.Popen[Any]) -> None:
    """Ask the process to exit; kill it when it has not within 15 s."""
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _new_token() -> str:
    return secrets.token_urlsafe(24)


@dataclass
class MockProcess:
    """The mock in a process of its own; a ``with`` block starts and stops it.

    ``token``: the PAT it accepts; ``auth=False`` lets any request in (``--no-auth``: the
    published client's ``base_url`` sends no token). ``service``: ``--service`` (None for a
    checkout older than that switch). ``args``: more CLI arguments. ``env``: changes to the
    inherited environment (None removes a variable). ``open_files``: an open-file limit
    (``RLIMIT_NOFILE``) it cannot raise. ``log_path`` (default ``mock.log`` beside the
    state dir) gathers its output across restarts. ``launch`` is what follows the
    interpreter and ``tree`` the checkout it runs from (the benchmarks' baseline).
    """

    state_dir: Path
    port: int = field(default_factory=free_port)
    token: str = field(default_factory=_new_token, repr=False)
    auth: bool = True
    service: str | None = "today"
    backend: str = "canned"
    database: str = "RL_DB"
    schema: str = "PUBLIC"
    args: Sequence[str] = ()
    env: Mapping[str, str | None] = field(default_factory=dict, repr=False)
    open_files: int | None = None
    log_path: Path | None = None
    log_level: str = "warning"
    launch: Sequence[str] = PRODUCT
    tree: Path = REPO
    startup_timeout_s: float = 120.0
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def root_url(self) -> str:
        """Scheme, host and port, without the contract prefix."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def prefix(self) -> str:
        """The contract's path prefix for this mock's database and schema."""
        return Settings(state_dir=self.state_dir, database=self.database, schema=self.schema).prefix

    @property
    def base_url(self) -> str:
        """The contract's server URL for this mock."""
        return self.root_url + self.prefix

    @property
    def log_file(self) -> Path:
        """Where its output goes."""
        return self.log_path or self.state_dir.parent / "mock.log"

    def headers(self) -> dict[str, str]:
        """What a request needs to be let in."""
        return auth_headers(self.token)

    def _command(self, launch: Sequence[str]) -> list[str]:
        """The command line (the token is never on it)."""
        cmd = [sys.executable, *launch, "--host", "127.0.0.1", "--port", str(self.port)]
        cmd += ["--backend", self.backend, "--state-dir", str(self.state_dir)]
        cmd += ["--database", self.database, "--schema", self.schema]
        cmd += ["--log-level", self.log_level]
        cmd += ["--service", self.service] if self.service else []
        cmd += [] if self.auth else ["--no-auth"]
        return [*cmd, *self.args]

    def _environment(self, crash_at: str | None) -> dict[str, str]:
        # One intra-op thread: the model is tiny, and spinning thread pools on a shared
        # two-core machine cost far more than they give.
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        token = self.token if self.auth else None
        for name, value in {**self.env, MOCK_TOKEN_ENV: token}.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        if crash_at is not None:
            env[crashpoints.ENV] = crash_at
        return env

    def start(self, crash_at: str | None = None, *, test_hooks: bool | None = None) -> None:
        """Start it and wait until it answers; ``crash_at`` arms that crash point.
        ``test_hooks`` runs ``python -m devtools.mock_hooks`` (default: when a crash point
        is armed), which arms what the environment asks for; the product arms nothing."""
        armed = crash_at is not None if test_hooks is None else test_hooks
        limit = self.open_files
        with self.log_file.open("ab") as log:
            self.process = subprocess.Popen(
                self._command(WITH_TEST_HOOKS if armed else self.launch),
                cwd=self.tree,
                env=self._environment(crash_at),
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=None if limit is None else lambda: _limit_open_files(limit),
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self) -> None:
        """Poll the capacity route until the mock answers it (or the process dies)."""
        deadline = time.monotonic() + self.startup_timeout_s
        with httpx.Client(base_url=self.base_url, headers=self.headers()) as http:
            while time.monotonic() < deadline:
                assert self.process is not None
                if self.process.poll() is not None:
                    raise RuntimeError(
                        f"the mock exited ({self.process.returncode}):\n{self.log()}"
                    )
                try:
                    if http.get("/capacity", timeout=2).is_success:
                        return
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
        raise RuntimeError(
            f"the mock did not answer within {self.startup_timeout_s:.0f} s:\n{self.log()}"
        )

    def stop(self) -> None:
        """Ask it to exit (killed when it has not within 15 s)."""
        if self.process is not None and self.process.poll() is None:
            stop_process(self.process)

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, as when a machine is preempted."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def wait_crashed(self, timeout: float = 60.0) -> int:
        """The exit status once the process has died (it must die by itself)."""
        assert self.process is not None
        return self.process.wait(timeout)

    def __enter__(self) -> MockProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log(self) -> str:
        """The end of what it printed."""
        path = self.log_file
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def rows(self, sql: str, *args: Any, timeout: float = 10.0) -> list[tuple[Any, ...]]:
        """Read the store read-only: what the mock really recorded."""
        uri = f"file:{self.state_dir / 'mock.sqlite3'}?mode=ro"
        db = sqlite3.connect(uri, uri=True, timeout=timeout)
        try:
            return db.execute(sql, args).fetchall()
        finally:
            db.close()

    def requests(self, job_id: str, kind: str) -> list[tuple[str, str]]:
        """(request_id, status) of each request of ``kind`` the job has."""
        return self.rows(
            "SELECT request_id, status FROM requests WHERE job_id = ? AND kind = ?", job_id, kind
        )


def _limit_open_files(limit: int) -> None:
    """In the mock's process, before it starts: a soft and hard limit it cannot raise."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


@contextmanager
def pat_exported(token: str) -> Iterator[None]:
    """The token where the client's config looks for it (``PAT_ENV``), so child processes
    started meanwhile inherit it too; the previous value comes back after."""
    previous = os.environ.get(PAT_ENV)
    os.environ[PAT_ENV] = token
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(PAT_ENV, None)
        else:
            os.environ[PAT_ENV] = previous


@contextmanager
def running_mock(state_dir: Path, log_path: Path, *, backend: str = "reference") -> Iterator[str]:
    """A started mock (today's service) for the ``with`` block; yields its base URL, its
    random token exported meanwhile (:func:`pat_exported`). The demo and benchmarks use it."""
    mock = MockProcess(state_dir, backend=backend, log_path=log_path)
    with mock, pat_exported(mock.token):
        yield mock.base_url


# What the crash and restart tests create and wait for.
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
    with httpx.Client(base_url=server.base_url, headers=server.headers(), timeout=30) as http:
        yield http
