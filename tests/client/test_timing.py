"""The ``timing/*`` figures of every training and sampling answer, against the live mock.

The mock runs each request for ``request_latency_s`` (its ``--request-latency``); what
crossed the wire is tallied by a transport under the client's seam, so the counts are
checked against what really went out and came back, not against the figures themselves.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from cortex_gs_client.models import RequestStatus

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient, create_arctic_rl_client
from arctic_rl._cortex import CortexService
from arctic_rl._options import ServiceOptions
from arctic_rl._timing import TIMING_KEYS, CallTiming
from devtools.batches import CHUNK_BYTES, PROMPTS, big_batch
from devtools.faults import Fault, FaultProxy
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV

LATENCY_S = 1.0  # long enough that 10% of a call outlasts a stall of the shared machine
PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
PHASES = [f"timing/{p}" for p in ("encode_s", "upload_s", "queue_s", "compute_s", "latency_s")]
PHASES.append("timing/download_s")
# Small result chunks: the results travel as result_chunk events, not inline.
RESULT_BYTES = 128


class _Counted(httpx.AsyncByteStream):
    """An answer's stream, its bytes added to the tally as they pass."""

    def __init__(self, stream: httpx.AsyncByteStream, tally: Tally) -> None:
        self._stream = stream
        self._tally = tally

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in self._stream:
            self._tally.down += len(part)
            yield part

    async def aclose(self) -> None:
        await self._stream.aclose()


class Tally(httpx.AsyncBaseTransport):
    """Real HTTP; counts each exchange, the request bodies sent and the answer bytes read."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.sent: list[tuple[str, str]] = []
        self.up = 0
        self.down = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.up += sum([len(part) async for part in request.stream])  # type: ignore[union-attr]
        self.sent.append((request.method, request.url.path))
        answer = await self.inner.handle_async_request(request)
        stream = _Counted(answer.stream, self)  # type: ignore[arg-type]
        return httpx.Response(
            answer.status_code, headers=answer.headers, stream=stream, extensions=answer.extensions
        )

    def snapshot(self) -> tuple[int, int, int, int]:
        """(exchanges, status reads, bytes up, bytes down) so far."""
        polls = sum(1 for method, path in self.sent if method == "GET" and "/requests/" in path)
        return len(self.sent), polls, self.up, self.down

    def since(self, before: tuple[int, int, int, int]) -> tuple[int, ...]:
        """What went by since ``before`` (a `snapshot`)."""
        return tuple(b - a for a, b in zip(before, self.snapshot(), strict=True))

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture
def slow_mock(live_mock_factory: Callable[..., LiveMock]) -> LiveMock:
    return live_mock_factory(
        "canned",
        service="proposed",
        request_latency_s=LATENCY_S,
        inline_result_bytes=RESULT_BYTES,
        result_chunk_bytes=RESULT_BYTES,
    )


def _config(base_url: str, **cortex: Any) -> ArcticRLClientConfig:
    return ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        sampling_gpus=1,
        cortex={"base_url": base_url, "pat_env": PAT_ENV, **cortex},
    )


@asynccontextmanager
async def connected(
    mock: LiveMock, base_url: str, tally: Tally, *, long_poll_s: float
) -> AsyncIterator[AsyncArcticRLClient]:
    service = CortexService(
        base_url,
        mock.token,
        ServiceOptions(chunk_bytes=CHUNK_BYTES, long_poll_s=long_poll_s, max_retries=4),
        httpx_transport=tally,
    )
    client = await AsyncArcticRLClient.connect(_config(mock.base_url), service=service)
    try:
        yield client
    finally:
        await client.shutdown(cancel=True)


def _calls(client: AsyncArcticRLClient) -> dict[str, Callable[[], Awaitable[dict[str, Any]]]]:
    """One of each training and sampling call, in an order the mock accepts."""
    saved: dict[str, Any] = {}

    async def save() -> dict[str, Any]:
        saved.update(await client.save_checkpoint())
        return saved

    return {
        "fwd_bwd": lambda: client.fwd_bwd(big_batch(), processing=PROCESSING),
        "fwd_no_grad": lambda: client.fwd_no_grad(big_batch(), processing=PROCESSING),
        "step": lambda: client.step(),
        "generate": lambda: client.generate(PROMPTS, {"max_tokens": 4}),
        "log_probs": lambda: client.log_probs(PROMPTS),
        "sync_weights": lambda: client.sync_weights(),
        "save_checkpoint": save,
        "load_checkpoint": lambda: client.load_checkpoint(saved["checkpoint_id"]),
    }


def _check_adds_up(name: str, timing: dict[str, float], wall_s: float) -> None:
    assert list(timing) == list(TIMING_KEYS), name
    assert all(type(v) is float and v >= 0 for v in timing.values()), (name, timing)
    parts = sum(timing[key] for key in PHASES)
    assert abs(parts - wall_s) <= 0.1 * wall_s, (name, parts, wall_s, timing)
    assert timing["timing/total_s"] <= wall_s, (name, timing)
    # The service's own stamps: it held each request running for LATENCY_S.
    assert LATENCY_S <= timing["timing/compute_s"] < wall_s, (name, timing)
    # started_at came with it (without, queue_s is exactly 0): a moment in the mock's queue.
    assert 0 < timing["timing/queue_s"] < LATENCY_S, (name, timing)


@pytest.mark.parametrize("long_poll_s", [2.0, 0.0], ids=["held-submits", "polled"])
async def test_every_call_says_where_its_time_went(
    slow_mock: LiveMock, monkeypatch: pytest.MonkeyPatch, long_poll_s: float
) -> None:
    monkeypatch.setenv(PAT_ENV, slow_mock.token)
    tally = Tally()
    async with connected(slow_mock, slow_mock.base_url, tally, long_poll_s=long_poll_s) as client:
        for name, call in _calls(client).items():
            before = tally.snapshot()
            started = time.perf_counter()
            answer = await call()
            wall_s = time.perf_counter() - started
            exchanges, polls, up, down = tally.since(before)
            timing = answer["timing"]
            _check_adds_up(name, timing, wall_s)
            assert timing["timing/polls"] == polls, (name, timing)
            assert timing["timing/bytes_up"] == up, (name, timing)
            assert timing["timing/bytes_down"] == down, (name, timing)
            assert timing["timing/retries"] == 0 and exchanges >= 1, (name, timing)
            assert client.last_timing == timing, name
            if not long_poll_s:  # no submit held: each request was polled to its end
                assert polls >= 1, name


async def test_retries_are_counted_and_their_time_stays_in_the_call(
    slow_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PAT_ENV, slow_mock.token)
    tally = Tally()
    refused = Fault(b"/step", "status", status=503, retry_after=0.2, times=2)
    async with FaultProxy(slow_mock.port, refused) as proxy:
        base_url = proxy.url(slow_mock.base_url, slow_mock.port)
        async with connected(slow_mock, base_url, tally, long_poll_s=2.0) as client:
            before = tally.snapshot()
            started = time.perf_counter()
            answer = await client.step()
            wall_s = time.perf_counter() - started
            exchanges, polls, up, down = tally.since(before)
    timing = answer["timing"]
    _check_adds_up("step", timing, wall_s)
    assert refused.hits == 2 and exchanges == 3 + polls
    assert timing["timing/retries"] == 2
    assert (timing["timing/bytes_up"], timing["timing/bytes_down"]) == (up, down)


async def test_the_legacy_client_hands_the_figures_over_as_metrics(
    slow_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PAT_ENV, slow_mock.token)
    legacy = create_arctic_rl_client(_config(slow_mock.base_url, long_poll_s=2.0))
    try:
        batch = {"batch": big_batch(), "processing": PROCESSING}
        for answer in (await legacy.fwd_bwd(batch), await legacy.step()):
            metrics = answer["metrics"]
            assert "timing" not in answer
            assert set(TIMING_KEYS) <= set(metrics)
            assert all(type(metrics[key]) is float for key in TIMING_KEYS)
            assert metrics["timing/compute_s"] >= LATENCY_S
        assert legacy.last_timing == metrics_of(answer)
        outputs = await legacy.generate(PROMPTS, {"max_tokens": 4})
        assert len(outputs) == len(PROMPTS)
        assert legacy.last_timing["timing/compute_s"] >= LATENCY_S
    finally:
        legacy.shutdown()


def metrics_of(answer: dict[str, Any]) -> dict[str, float]:
    return {key: answer["metrics"][key] for key in TIMING_KEYS}


def _finished(created: str, updated: str, started: str | None = None) -> RequestStatus:
    stamps = {"created_at": created, "updated_at": updated}
    if started is not None:
        stamps["started_at"] = started
    return RequestStatus.from_dict({"request_id": "req-1", "status": "done", **stamps})


@pytest.mark.parametrize(
    ("status", "queue_s", "compute_s"),
    [
        (_finished("2026-01-01T00:00:00.25Z", "2026-01-01T00:00:01Z", "2026-01-01T00:00:00.5Z"),
         0.25, 0.5),
        # today's service: no started_at, so no queue apart from compute
        (_finished("2026-01-01T00:00:00.25Z", "2026-01-01T00:00:01Z"), 0.0, 0.75),
    ],
    ids=["started_at", "no started_at"],
)  # fmt: skip
def test_queue_and_compute_come_from_the_services_stamps(
    status: RequestStatus, queue_s: float, compute_s: float
) -> None:
    timing = CallTiming()
    timing.read_status(status, "completed")
    timing.answer_at = timing.result_at = timing.sent_at + 2.0  # two seconds on our clock
    figures = timing.figures()
    assert figures["timing/queue_s"] == pytest.approx(queue_s)
    assert figures["timing/compute_s"] == pytest.approx(compute_s)
    assert figures["timing/latency_s"] == pytest.approx(2.0 - queue_s - compute_s)


def test_whole_second_stamps_leave_the_window_to_the_clients_clock() -> None:
    timing = CallTiming()
    timing.read_status(_finished("2026-01-01T00:00:00Z", "2026-01-01T00:00:03Z"), "completed")
    timing.answer_at = timing.result_at = timing.sent_at + 0.4  # 0.4 s, not the stamps' 3
    figures = timing.figures()
    assert (figures["timing/queue_s"], figures["timing/latency_s"]) == (0.0, 0.0)
    assert figures["timing/compute_s"] == pytest.approx(0.4)
