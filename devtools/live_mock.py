"""Run the mock on 127.0.0.1 inside a test process (used by tests/conftest.py).

A real uvicorn server on a real socket, so tests exercise HTTP exactly as clients do,
but in a background thread so startup takes a few hundred milliseconds and restarts
(same port, same state directory) are cheap.
"""

from __future__ import annotations

import base64
import hashlib
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import httpx
import uvicorn
from arctic_rl_mock.app import create_app
from arctic_rl_mock.settings import Settings
from arctic_rl_mock.web.server import ServerSettings
from cortex_gs_contract import (
    CHUNK_OPERATIONS,
    TOKEN_TYPE,
    TOKEN_TYPE_HEADER,
    JobState,
    RequestState,
)

from arctic_rl import wire
from devtools.mock_hooks.armed import armed_app

STARTUP_TIMEOUT_S = 20.0


def auth_headers(token: str) -> dict[str, str]:
    """The two headers a PAT-authenticated call needs."""
    return {"Authorization": f"Bearer {token}", TOKEN_TYPE_HEADER: TOKEN_TYPE}


def request_chunks(
    value: Any,
    *,
    payload_bytes: int,
    group: str | None = None,
    operation: str | None = CHUNK_OPERATIONS["forward_backward"],
) -> list[bytes]:
    """``value`` as request-chunk frames of ``payload_bytes`` each, always enveloped."""
    chunking = wire.Chunking.for_payload(
        payload_bytes,
        kind="request_chunk",
        chunk_group_id=group,
        operation=operation,
        bare_max_bytes=0,
    )
    return [bytes(chunk) for chunk in wire.iter_chunks(value, chunking)]


def _bind(port: int = 0) -> socket.socket:
    # IPPROTO_TCP by name: asyncio sets TCP_NODELAY only on sockets whose proto says TCP,
    # and without it every response (headers, then body) waited ~40 ms for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    return sock


@dataclass
class LiveMock:
    """A mock server running in this process.

    ``base_url`` is the full contract prefix (``http://127.0.0.1:PORT/api/v2/...``);
    ``headers()`` gives auth headers for ``token``; ``restart()`` stops the server and
    starts a fresh app on the same port and state directory (a "mock restart");
    ``app`` is the running FastAPI app (``app.state.service`` for white-box checks,
    ``app.state.hooks`` for its test hooks); ``server`` the HTTP server's limits
    (timeouts, connection cap), as the CLI applies them. ``test_hooks``: each start arms
    what the environment then asks for (:mod:`devtools.mock_hooks`).
    """

    settings: Settings
    port: int = 0
    server: ServerSettings = field(default_factory=ServerSettings)
    test_hooks: bool = False
    app: Any = field(default=None, repr=False)
    _server: uvicorn.Server | None = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def token(self) -> str:
        """The PAT the mock accepts."""
        return self.settings.token or ""

    @property
    def state_dir(self) -> Path:
        """Where the mock keeps its SQLite store, chunks and checkpoints."""
        return self.settings.state_dir

    @property
    def root_url(self) -> str:
        """Scheme, host and port, without the contract prefix."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The contract's server URL for this mock."""
        return self.root_url + self.settings.prefix

    def headers(self, **extra: str) -> dict[str, str]:
        """Auth headers plus ``extra`` (underscores in names become dashes)."""
        return {**auth_headers(self.token), **{k.replace("_", "-"): v for k, v in extra.items()}}

    def start(self) -> LiveMock:
        """Serve in a background thread; returns once the socket accepts requests."""
        sock = _bind(self.port)
        self.port = sock.getsockname()[1]
        build = armed_app if self.test_hooks else create_app
        self.app = build(self.settings, server=self.server)
        self.server.ensure_descriptors()
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            lifespan="on",
            access_log=False,
            **self.server.uvicorn_options(),
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="live-mock", daemon=True
        )
        thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("mock server failed to start")
            time.sleep(0.005)
        self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        """Shut down gracefully (the worker finishes its current request)."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(30)
        self._server = self._thread = None

    def restart(self, **changes: Any) -> None:
        """Stop and start again on the same port and state directory."""
        self.stop()
        if changes:
            self.settings = replace(self.settings, **changes)
        self.start()


@contextmanager
def serving_in_process(
    state_dir: Path,
    server: ServerSettings | None = None,
    *,
    test_hooks: bool = False,
    **settings: Any,
) -> Iterator[LiveMock]:
    """A started :class:`LiveMock` for the ``with`` block (defaults: canned, token 'test-pat')."""
    settings.setdefault("token", "test-pat")
    mock = LiveMock(
        Settings(state_dir=state_dir, **settings),
        server=server or ServerSettings(),
        test_hooks=test_hooks,
    )
    mock.start()
    try:
        yield mock
    finally:
        mock.stop()


TERMINAL = (RequestState.done, RequestState.failed, RequestState.cancelled)


class ServedMock(Protocol):
    """What :class:`MockApi` needs of a mock, in this process (:class:`LiveMock`) or in
    its own (:class:`devtools.mock_process.MockProcess`)."""

    @property
    def base_url(self) -> str: ...

    @property
    def state_dir(self) -> Path: ...

    def headers(self) -> dict[str, str]: ...


Served = TypeVar("Served", bound=ServedMock)


class MockApi(Generic[Served]):
    """Raw-HTTP helpers for tests: plain httpx plus the codec, no SDK.

    Deliberately thin, so tests exercising the mock check the wire protocol itself;
    every method returns or asserts on ``httpx.Response`` objects.
    """

    def __init__(self, mock: Served, timeout: float = 60.0) -> None:
        self.mock = mock
        self.http = httpx.Client(base_url=mock.base_url, headers=mock.headers(), timeout=timeout)

    def close(self) -> None:
        """Close the connection pool."""
        self.http.close()

    def create_job(self, *, seed: int = 0, lr: float = 1e-3, **training: Any) -> str:
        """A training + sampling job; waits until it is running."""
        tcfg = {"optimizer": {"lr": lr}, "max_seq_len": 256, "train_batch_size": 8, "n_gpus": 1}
        body = {
            "sub_job_configs": [
                {
                    "job_type": "training",
                    "model_name": "tiny-byte-lm",
                    "seed": seed,
                    "training_config": {**tcfg, **training},
                },
                {
                    "job_type": "sampling",
                    "model_name": "tiny-byte-lm",
                    "inference_config": {"max_seq_len": 256, "n_gpus": 1},
                },
            ]
        }
        response = self.http.post("/", json=body)
        assert response.status_code == 200, response.text
        job_id = str(response.json()["job_id"])
        self.wait_running(job_id)
        return job_id

    def wait_running(self, job_id: str, timeout: float = 30.0) -> dict[str, Any]:
        """Poll get_job until ``running`` (fails on a terminal state)."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.http.get(f"/{job_id}").json()
            if job["status"] == JobState.running:
                return job
            assert job["status"] not in (
                JobState.cancelled,
                JobState.terminated,
                JobState.failed,
            ), job
            assert time.monotonic() < deadline, f"job {job_id} never ran: {job}"
            time.sleep(0.01)

    def post_chunks(
        self, job_id: str, route: str, chunks: list[bytes] | list[wire.ChunkFrame]
    ) -> list[Any]:
        """POST each chunk frame; returns the responses."""
        return [self.http.post(f"/{job_id}/{route}", content=bytes(chunk)) for chunk in chunks]

    def wait(self, job_id: str, request_id: str, timeout: float = 60.0) -> dict[str, Any]:
        """Long-poll until terminal; returns the last RequestStatus (first event page)."""
        deadline = time.monotonic() + timeout
        while True:
            response = self.http.get(f"/{job_id}/requests/{request_id}", params={"wait_s": 5})
            assert response.status_code == 200, response.text
            status = response.json()
            if status["status"] in TERMINAL:
                return status
            assert time.monotonic() < deadline, f"request {request_id} still {status['status']}"

    def result(self, job_id: str, request_id: str, max_events: int = 16) -> Any:
        """The completed request's result: JSON, inline DSSST1, or paged result chunks."""
        status = self.wait(job_id, request_id)
        assert status["status"] == RequestState.done, status
        result = status["result"]
        if isinstance(result, dict) and result.get("wire_format") == "DSSST1":
            return wire.loads(base64.b64decode(result["payload_b64"]))
        if result:
            return result
        chunks: list[bytes] = []
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"max_events": max_events}
            if cursor is not None:
                params["cursor"] = cursor
            page = self.http.get(f"/{job_id}/requests/{request_id}", params=params).json()
            for event in page["events"]:
                if event["type"] == "result_chunk":
                    payload = base64.b64decode(event["payload_b64"])
                    assert hashlib.sha256(payload).hexdigest() == event["payload_sha256"]
                    chunks.append(payload)
            cursor = page["next_cursor"]
            if not cursor:  # "": nothing more queued
                break
        return wire.loads(wire.join_chunks(chunks, kind="result_chunk"))

    def run(self, job_id: str, route: str, json: Any) -> Any:
        """POST a JSON data-plane call and return its result."""
        response = self.http.post(f"/{job_id}/{route}", json=json)
        assert response.status_code == 202, response.text
        return self.result(job_id, response.json()["request_id"])

    def run_frame(
        self, job_id: str, route: str, value: Any, *, chunk_bytes: int | None = None
    ) -> Any:
        """Send ``value`` as DSSST1 (chunk envelope on fwd routes); returns the result."""
        operation_id = route.replace("-", "_")
        chunking = wire.Chunking.for_payload(
            chunk_bytes or wire.MAX_BODY_BYTES - wire.CHUNK_HEADROOM,
            kind="request_chunk",
            operation=CHUNK_OPERATIONS[operation_id],
            # forward-backward and forward-no-grad always travel as chunk envelopes.
            bare_max_bytes=None if operation_id == "generate" else 0,
        )
        chunks = wire.split_chunks(wire.dumps(value), chunking)
        responses = self.post_chunks(job_id, route, chunks)
        final = responses[-1]
        assert final.status_code == 202, final.text
        return self.result(job_id, final.json()["request_id"])
