"""Run the mock on 127.0.0.1 inside a test process (used by tests/conftest.py).

A real uvicorn server on a real socket, so tests exercise HTTP exactly as clients do,
but in a background thread so startup takes a few hundred milliseconds and restarts
(same port, same state directory) are cheap.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import uvicorn

from mock_server.app import create_app
from mock_server.settings import TOKEN_TYPE, TOKEN_TYPE_HEADER, Settings

STARTUP_TIMEOUT_S = 20.0


def auth_headers(token: str) -> dict[str, str]:
    """The two headers a PAT-authenticated call needs."""
    return {"Authorization": f"Bearer {token}", TOKEN_TYPE_HEADER: TOKEN_TYPE}


def _bind(port: int = 0) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    return sock


@dataclass
class LiveMock:
    """A mock server running in this process.

    ``base_url`` is the full contract prefix (``http://127.0.0.1:PORT/api/v2/...``);
    ``headers()`` gives auth headers for ``token``; ``restart()`` stops the server and
    starts a fresh app on the same port and state directory (a "mock restart").
    """

    settings: Settings
    port: int = 0
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
        config = uvicorn.Config(
            create_app(self.settings), log_level="warning", lifespan="on", access_log=False
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
def running_mock(state_dir: Path, **settings: Any) -> Iterator[LiveMock]:
    """A started :class:`LiveMock` for the ``with`` block (defaults: canned, token 'test-pat')."""
    settings.setdefault("token", "test-pat")
    mock = LiveMock(Settings(state_dir=state_dir, **settings)).start()
    try:
        yield mock
    finally:
        mock.stop()
