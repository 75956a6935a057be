"""The published client (arctic-platform 0.1.4), unchanged, against a real mock process.

``python -m arctic_rl_mock --no-auth`` runs as a subprocess for the whole suite, as a user
would start it. Each test reaches it through its own counting proxy (the fault proxy with
no faults), so a test can count exactly which requests the client made. The published
client reaches a non-Snowflake host only through ``base_url``, which sends no token:
hence ``--no-auth``.

Fixtures
--------
``mock_process``
    The running mock (:class:`devtools.mock_process.MockProcess`): ``.port``,
    ``.database``, ``.schema``, ``.state_dir``.
``slow_mock_process``, ``slow_proxy``, ``slow_published``
    The same over a second mock whose requests each stay in flight ``REQUEST_LATENCY_S``.
``proxy``
    A :class:`CountingProxy` in front of the mock; ``.requests`` lists the request lines
    (``b"GET /api/v2/... HTTP/1.1"``) that reached the mock.
``published``
    ``await published(**config_fields)`` builds an ``AsyncArcticRLClient`` through the
    proxy (training + sampling sub-jobs, an optimizer and batch size unless told
    otherwise) and shuts it down after the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from arctic_platform.client import (
    ArcticClientConfig,
    AsyncArcticRLClient,
    CortexConfig,
    TrainingConfig,
)

from devtools.faults import FaultProxy
from devtools.mock_process import MockProcess

DATABASE = "CONFORMANCE_DB"
SCHEMA = "SUITE"
MODEL = "tiny-byte-lm"
# Short enough that a client stuck on a broken answer fails the test instead of hanging it.
CLIENT_TIMEOUT_S = 60.0
# How long the slow mock keeps each request in flight: the poll-count test's "finishes
# within 0.2 s".
REQUEST_LATENCY_S = 0.2


@contextlib.contextmanager
def _launch_mock(state_dir: Path, *extra: str) -> Iterator[MockProcess]:
    """``python -m arctic_rl_mock --no-auth`` (canned backend) on a free port, as a user runs it."""
    mock = MockProcess(
        state_dir / "state", auth=False, database=DATABASE, schema=SCHEMA, args=extra
    )
    with mock:
        yield mock


@pytest.fixture(scope="session")
def mock_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MockProcess]:
    """The mock for the whole suite; every test creates its own job."""
    with _launch_mock(tmp_path_factory.mktemp("conformance-mock")) as mock:
        yield mock


@pytest.fixture(scope="session")
def slow_mock_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MockProcess]:
    """A mock whose data-plane requests each stay in flight for REQUEST_LATENCY_S."""
    state_dir = tmp_path_factory.mktemp("conformance-slow-mock")
    with _launch_mock(state_dir, "--request-latency", str(REQUEST_LATENCY_S)) as mock:
        yield mock


class _HangingUpProxy(FaultProxy):
    """The fault proxy, faultless, able to hang up on the clients it still serves."""

    def __init__(self, target_port: int) -> None:
        super().__init__(target_port)
        self._clients: set[asyncio.StreamWriter] = set()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._clients.add(writer)
        try:
            await super()._serve(reader, writer)
        finally:
            self._clients.discard(writer)

    async def close(self) -> None:
        await self.__aexit__(None, None, None)
        for writer in list(self._clients):
            writer.transport.abort()  # a keep-alive connection a client never closed
        handlers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        await asyncio.gather(*handlers, return_exceptions=True)


class CountingProxy:
    """A faultless fault proxy on its own event-loop thread, counting what reaches the mock.

    Its own thread because the published client's constructor and ``shutdown`` block on
    ``requests``; the proxy must keep serving while they do.
    """

    def __init__(self, target_port: int) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._proxy = _HangingUpProxy(target_port)
        self._run(self._proxy.__aenter__())

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(30)

    @property
    def port(self) -> int:
        return self._proxy.port

    @property
    def requests(self) -> list[bytes]:
        """Request lines that reached the mock, in order."""
        return list(self._proxy.forwarded)

    def count(self, method: str, path_part: str) -> int:
        """How many requests of ``method`` had ``path_part`` in their request line."""
        start = method.encode() + b" "
        return sum(1 for r in self.requests if r.startswith(start) and path_part.encode() in r)

    def close(self) -> None:
        self._run(self._proxy.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


@contextlib.contextmanager
def _counting(mock: MockProcess) -> Iterator[CountingProxy]:
    counting = CountingProxy(mock.port)
    try:
        yield counting
    finally:
        counting.close()


@pytest.fixture
def proxy(mock_process: MockProcess) -> Iterator[CountingProxy]:
    with _counting(mock_process) as counting:
        yield counting


@pytest.fixture
def slow_proxy(slow_mock_process: MockProcess) -> Iterator[CountingProxy]:
    with _counting(slow_mock_process) as counting:
        yield counting


# What most tests create with: a typical training setup (optimizer, batch size), so each test
# isolates its own call; test_create_with_default_training_settings sends neither.
TRAINABLE_DS_CONFIG = {
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
    "train_batch_size": 8,
}


def client_config(port: int, **fields: Any) -> ArcticClientConfig:
    """A config as a user of the published client writes it for a mock at ``port``."""
    backend = CortexConfig(
        base_url=f"http://127.0.0.1:{port}",
        database=fields.pop("database", DATABASE),
        schema=fields.pop("schema", SCHEMA),
        max_retries=2,
    )
    fields.setdefault("training", TrainingConfig(ds_config=TRAINABLE_DS_CONFIG))
    fields.setdefault("model_name", MODEL)
    fields.setdefault("training_gpus", 1)
    fields.setdefault("sampling_gpus", 1)
    fields.setdefault("job_ready_timeout", CLIENT_TIMEOUT_S)
    fields.setdefault("request_timeout", CLIENT_TIMEOUT_S)
    return ArcticClientConfig(backend=backend, **fields)


PublishedFactory = Callable[..., Awaitable[AsyncArcticRLClient]]


@contextlib.asynccontextmanager
async def _published_clients(proxy: CountingProxy) -> AsyncIterator[PublishedFactory]:
    """Build published clients through ``proxy``; each is shut down (job cancelled) after."""
    clients: list[AsyncArcticRLClient] = []

    async def build(**fields: Any) -> AsyncArcticRLClient:
        config = client_config(proxy.port, **fields)
        # The constructor creates (or reattaches to) the job and waits for it, blocking.
        client = await asyncio.to_thread(AsyncArcticRLClient, config)
        clients.append(client)
        return client

    try:
        yield build
    finally:
        for client in clients:
            await client.transport.aclose()
            await asyncio.to_thread(client.transport.shutdown)
            client.transport.session.close()


@pytest.fixture
async def published(proxy: CountingProxy) -> AsyncIterator[PublishedFactory]:
    async with _published_clients(proxy) as build:
        yield build


@pytest.fixture
async def slow_published(slow_proxy: CountingProxy) -> AsyncIterator[PublishedFactory]:
    async with _published_clients(slow_proxy) as build:
        yield build


__all__ = [
    "DATABASE",
    "MODEL",
    "REQUEST_LATENCY_S",
    "SCHEMA",
    "CountingProxy",
    "MockProcess",
    "PublishedFactory",
    "client_config",
]
