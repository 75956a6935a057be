"""The poll schedule: how many polls a request costs, counted, never timed.

The schedule itself is driven with simulated offsets (a request of a given duration is
"found" by the first poll time at or after it). Against the live mock, whose requests
each take a known time (``request_latency_s``), the polls that reached it are counted by
a recording transport under the HTTP seam.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient
from arctic_rl._cortex import CortexService
from arctic_rl._options import PollSettings, ServiceOptions
from arctic_rl._polling import (
    REPROBE_AFTER_S,
    PollPlanner,
    Schedule,
    fallback_polls,
)
from devtools.batches import train_tensors
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV

SETTINGS = PollSettings()
PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
LEARNED = 4  # requests of one kind before the estimate is judged


def found_by(schedule: Schedule, duration: float) -> tuple[int, float]:
    """(polls made, offset of the poll that found it) for a request lasting ``duration``."""
    for polls in itertools.count(1):
        offset = schedule.next_offset()
        if offset >= duration:
            return polls, offset
    raise AssertionError("unreachable")


def fallback_step_after(offset: float) -> float:
    """The documented schedule's pause after its poll at ``offset``."""
    schedule = Schedule(SETTINGS, None, 0.0)
    previous = schedule.next_offset()
    while True:
        current = schedule.next_offset()
        if previous >= offset:
            return current - previous
        previous = current


@pytest.mark.parametrize("expected", [0.05, 0.2, 2.0, 10.0, 60.0])
@pytest.mark.parametrize("ratio", [0.1, 0.5, 0.95, 1.0, 1.3, 3.0, 10.0])
@pytest.mark.parametrize("rtt", [0.0, 0.04, 0.1])
def test_polls_stay_within_the_documented_schedule_plus_the_probes(
    expected: float, ratio: float, rtt: float
) -> None:
    duration = expected * ratio
    polls, _ = found_by(Schedule(SETTINGS, expected, rtt), duration)
    assert polls <= fallback_polls(duration, SETTINGS) + SETTINGS.probes


@pytest.mark.parametrize("expected", [0.05, 0.2, 2.0, 10.0, 60.0])
@pytest.mark.parametrize("rtt", [0.0, 0.04, 0.1])
def test_a_request_ten_times_longer_is_found_within_one_fallback_step(
    expected: float, rtt: float
) -> None:
    duration = 10 * expected
    _, offset = found_by(Schedule(SETTINGS, expected, rtt), duration)
    _, fallback_offset = found_by(Schedule(SETTINGS, None, 0.0), duration)
    assert offset <= fallback_offset + fallback_step_after(fallback_offset)


@pytest.mark.parametrize("duration", [0.0, 0.3, 0.5, 2.0, 30.0])
def test_without_an_estimate_the_schedule_is_the_documented_one(duration: float) -> None:
    polls, _ = found_by(Schedule(SETTINGS, None, 0.04), duration)
    assert polls == fallback_polls(duration, SETTINGS)


def test_the_documented_schedule_grows_by_a_quarter_up_to_six_seconds() -> None:
    schedule = Schedule(SETTINGS, None, 0.0)
    offsets = [schedule.next_offset() for _ in range(16)]
    steps = [b - a for a, b in itertools.pairwise(offsets)]
    assert offsets[:3] == [0.0, 0.5, 1.125]
    assert steps[-1] == pytest.approx(6.0) and max(steps) == pytest.approx(6.0)


class Recorder(httpx.AsyncBaseTransport):
    """Real HTTP; keeps (method, path, wait_s sent). ``strip_wait_s``: a service that
    ignores the proposed parameter (it never reaches the mock); ``shed_polls``: one that
    sheds that many long polls (answered at once, as a busy server may), then holds them
    again; ``refuse_wait_s``: one that refuses it (the mock is sent a ``wait_s`` it cannot
    read, and answers its own 422 naming the parameter)."""

    def __init__(
        self, *, strip_wait_s: bool = False, shed_polls: int = 0, refuse_wait_s: bool = False
    ) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.strip_wait_s = strip_wait_s
        self.shed_polls = shed_polls
        self.refuse_wait_s = refuse_wait_s
        self.sent: list[tuple[str, str, str | None]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        wait_s = request.url.params.get("wait_s")
        self.sent.append((request.method, request.url.path.rsplit("/", 1)[-1], wait_s))
        shed = self.shed_polls > 0 and request.method == "GET" and wait_s is not None
        if shed:
            self.shed_polls -= 1
        if (self.strip_wait_s or shed) and wait_s is not None:
            request.url = request.url.copy_remove_param("wait_s")
        if self.refuse_wait_s and wait_s is not None:
            request.url = request.url.copy_set_param("wait_s", "not-served")
        return await self.inner.handle_async_request(request)

    def polls(self) -> int:
        return sum(1 for method, _, _ in self.sent if method == "GET")


@asynccontextmanager
async def connected(
    live_mock: LiveMock, recorder: Recorder, *, long_poll_s: float, hold_submits: bool = True
) -> AsyncIterator[AsyncArcticRLClient]:
    service = CortexService(
        live_mock.base_url,
        live_mock.token,
        ServiceOptions(long_poll_s=long_poll_s, max_retries=3),
        httpx_transport=recorder,
        hold_submits=hold_submits,
    )
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        cortex={"base_url": live_mock.base_url, "pat_env": PAT_ENV},
    )
    client = await AsyncArcticRLClient.connect(config, service=service)
    try:
        yield client
    finally:
        await client.shutdown(cancel=True)


async def _polls_of_a_step(client: AsyncArcticRLClient, recorder: Recorder) -> int:
    before = recorder.polls()
    await client.step()
    return recorder.polls() - before


async def test_learned_requests_take_at_most_three_polls(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1.5 s requests: the documented schedule finds each with its 4th poll (at 1.906 s)."""
    latency = 1.5
    live_mock.restart(request_latency_s=latency)
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    recorder = Recorder()
    async with connected(live_mock, recorder, long_poll_s=0.0) as client:
        first = await _polls_of_a_step(client, recorder)
        learned = [await _polls_of_a_step(client, recorder) for _ in range(2)]
    assert first <= fallback_polls(latency, SETTINGS) == 4
    assert all(polls <= 3 for polls in learned), learned


async def test_a_request_ten_times_longer_than_learned_keeps_the_bound(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    short, long = 0.2, 2.0
    live_mock.restart(request_latency_s=short)
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    recorder = Recorder()
    async with connected(live_mock, recorder, long_poll_s=0.0) as client:
        for _ in range(LEARNED):
            assert await _polls_of_a_step(client, recorder) <= (
                fallback_polls(short, SETTINGS) + SETTINGS.probes
            )
        live_mock.restart(request_latency_s=long)
        polls = await _polls_of_a_step(client, recorder)
    assert polls <= fallback_polls(long, SETTINGS) + SETTINGS.probes


Calls = Callable[[AsyncArcticRLClient], Awaitable[list[Any]]]


async def _steps(client: AsyncArcticRLClient) -> list[Any]:
    return [(await client.step())["global_steps"] for _ in range(3)]


async def _train_then_steps(client: AsyncArcticRLClient) -> list[Any]:
    trained = await client.fwd_bwd(train_tensors(), processing=PROCESSING)
    return [
        trained["avg_loss"] is not None,
        *[(await client.step())["global_steps"] for _ in range(2)],
    ]


async def _sent_over(
    live_mock: LiveMock, recorder: Recorder, latency: float, calls: Calls
) -> tuple[list[Any], list[tuple[str, str]], list[str]]:
    """What ``calls`` returned, the requests that carried wait_s, and the submits' paths."""
    live_mock.restart(request_latency_s=latency)
    async with connected(live_mock, recorder, long_poll_s=5.0) as client:
        recorder.sent.clear()
        results = await calls(client)
        sent = list(recorder.sent)  # before shutdown's cancel
    held = [(method, path) for method, path, wait_s in sent if wait_s is not None]
    return results, held, [path for method, path, _ in sent if method == "POST"]


async def test_a_service_ignoring_wait_s_is_sent_it_twice(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first submit's quick 202 and its first poll's quick answer, two misses in a
    row, show wait_s is not served: no later request sends it."""
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    recorder = Recorder(strip_wait_s=True)
    results, held, posts = await _sent_over(live_mock, recorder, 0.3, _steps)
    assert results == [1, 2, 3]
    assert [method for method, _ in held] == ["POST", "GET"]
    assert posts == ["step"] * 3


async def test_one_shed_long_poll_leaves_long_polling_on(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long poll answered at once without news (a busy server shedding it) is one miss:
    that request's next poll and the next request's polls are long polls still."""
    live_mock.restart(request_latency_s=0.5)
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    recorder = Recorder(shed_polls=1)
    async with connected(live_mock, recorder, long_poll_s=5.0, hold_submits=False) as client:
        recorder.sent.clear()
        await client.step()
        first = list(recorder.sent)
        await client.step()
        second = recorder.sent[len(first) :]
    polls = [wait_s for method, _, wait_s in first if method == "GET"]
    assert len(polls) >= 2 and all(wait_s is not None for wait_s in polls)  # shed, then held
    assert [wait_s is not None for method, _, wait_s in second if method == "GET"] == [True]


def test_long_polls_off_after_two_misses_in_a_row_are_tried_again_later() -> None:
    now = [0.0]
    planner = PollPlanner(clock=lambda: now[0])
    planner.missed("job-1")
    planner.held("job-1")
    planner.missed("job-1")
    assert planner.long_poll_s("job-1", 5.0) == 5.0  # misses, but not in a row
    planner.missed("job-1")
    assert planner.long_poll_s("job-1", 5.0) == 0.0
    assert planner.long_poll_s("job-2", 5.0) == 5.0
    now[0] += REPROBE_AFTER_S
    assert planner.long_poll_s("job-1", 5.0) == 5.0
    planner.missed("job-1")
    assert planner.long_poll_s("job-1", 5.0) == 5.0  # the count started over


@pytest.mark.parametrize(
    ("calls", "results", "posts"),
    [
        (_steps, [1, 2, 3], ["step"] * 4),
        (_train_then_steps, [True, 1, 2], ["forward-backward"] * 2 + ["step"] * 2),
    ],
    ids=["json submits", "chunked then json"],
)
async def test_a_submit_refused_for_wait_s_is_resent_without_it_once_per_job(
    live_mock: LiveMock,
    monkeypatch: pytest.MonkeyPatch,
    calls: Calls,
    results: list[Any],
    posts: list[str],
) -> None:
    """The first submit's 422 names wait_s: it is sent once more without it, and none of
    that job's later submits (chunked or JSON) or polls send it again."""
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    recorder = Recorder(refuse_wait_s=True)
    got, held, sent_posts = await _sent_over(live_mock, recorder, 0.1, calls)
    assert got == results
    assert held == [("POST", posts[0])]
    assert sent_posts == posts
