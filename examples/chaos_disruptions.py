"""What a chaos run does to the training loop (``examples/chaos.py``): a mock it SIGKILLs
and restarts mid-request, the fault proxy on the loop's routes, and where both land
(seeded); and the run's knobs."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from devtools.faults import Fault, FaultProxy
from devtools.mock_process import MockProcess, stable_port
from examples.grpo_demo import DemoSettings

REPO = Path(__file__).resolve().parent.parent
# What the demo's loop sends per iteration: generate, the policy's forward,
# forward-backward, step, sync-weights.
REQUESTS_PER_ITERATION = 5
# Where random faults land: the loop's routes and its polls.
FAULT_MARKERS = (
    b"/generate",
    b"/forward-no-grad",
    b"/forward-backward",
    b"/step",
    b"/sync-weights",
    b"/requests/",
)


@dataclass(frozen=True)
class ChaosSettings:
    """One chaos run's knobs; the defaults take well under a minute on two cores."""

    seed: int = 1
    iterations: int = 6
    kills: int = 3
    faults: int = 12
    driver_kills: int = 2
    # How long each request stays ``running`` on the mock: a wide window for the kills.
    request_latency_s: float = 0.05
    backend: str = "reference"

    @property
    def demo(self) -> DemoSettings:
        return DemoSettings(iterations=self.iterations, group_size=2, max_tokens=4, seed=7)


def restartable_mock(state_dir: Path, settings: ChaosSettings) -> MockProcess:
    """The proposed service's mock on a port that stays free while it is down (killed and
    restarted at will on the same state dir), each request running a while."""
    return MockProcess(
        state_dir,
        port=stable_port(),
        service="proposed",
        backend=settings.backend,
        args=("--request-latency", str(settings.request_latency_s)),
    )


def stored_requests(mock: MockProcess) -> tuple[int, int]:
    """(requests stored, requests running now), read from the store read-only."""
    query = "SELECT COUNT(*), COALESCE(SUM(status = 'running'), 0) FROM requests"
    try:
        ((total, running),) = mock.rows(query, timeout=1)
    except sqlite3.Error:  # not created yet, or busy: ask again
        return 0, 0
    return int(total), int(running)


class Killer(threading.Thread):
    """SIGKILLs the mock once it has stored each target count of requests and one of
    them is running; restarts it on the same state dir and port each time."""

    def __init__(self, mock: MockProcess, targets: list[int]) -> None:
        super().__init__(name="chaos-killer", daemon=True)
        self.mock = mock
        self.targets = targets
        self.kills = 0
        self.while_running = 0
        self.failure: BaseException | None = None
        self._done = threading.Event()

    def run(self) -> None:
        try:
            for target in self.targets:
                if not self._wait_for(target):
                    return
                self.mock.kill()
                self.kills += 1
                self.mock.start()
        except BaseException as exc:  # reported by finish(): a thread cannot raise
            self.failure = exc

    def _wait_for(self, target: int) -> bool:
        while not self._done.is_set():
            total, running = stored_requests(self.mock)
            if total >= target and running:
                self.while_running += 1
                return True
            time.sleep(0.005)
        return False

    def finish(self) -> None:
        self._done.set()
        self.join()
        if self.failure is not None:
            raise RuntimeError("restarting the mock failed") from self.failure


class ProxyThread:
    """A :class:`FaultProxy` serving from its own thread and event loop."""

    def __init__(self, target_port: int, faults: list[Fault]) -> None:
        self.proxy = FaultProxy(target_port, *faults)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.proxy.__aenter__(), self._loop).result(10)
        return self.proxy

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.proxy.__aexit__(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


def random_faults(rng: random.Random, count: int, iterations: int) -> list[Fault]:
    """``count`` one-shot faults on random routes, spread over the iterations."""
    faults = []
    for _ in range(count):
        marker = rng.choice(FAULT_MARKERS)
        action = rng.choice(("cut_request", "cut_response", "status"))
        faults.append(
            Fault(
                marker,
                action,
                at=rng.choice((0, 40, 1500)),
                status=rng.choice((503, 429)),
                retry_after=0,
                skip=rng.randrange(iterations * (4 if marker == b"/requests/" else 1)),
            )
        )
    return faults


def kill_targets(rng: random.Random, settings: ChaosSettings) -> list[int]:
    """Sorted request counts at which to kill, inside the loop's requests."""
    last = settings.iterations * REQUESTS_PER_ITERATION - 1
    return sorted(rng.sample(range(2, last), settings.kills))
