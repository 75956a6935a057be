"""Latency where users live: one SkyRL-shaped iteration across a wide-area link.

A delay proxy (``benchmarks._delay``, its own process) sits between the clients and the
canned mock, adding a round-trip time (RTT) of 10, 40 or 100 ms and charging each new
connection 2 RTT (TCP and TLS handshakes) before its first byte; the mock computes each
data-plane request for 0.2 s or 2 s (``--request-latency``). One iteration is what a
SkyRL step awaits: ``generate`` of 32 completions, ``fwd_no_grad`` twice (policy and
reference), ``fwd_bwd`` of an 8 x 128 batch, ``step``, ``sync_weights``: six requests,
so ``6 x compute`` of the iteration is the server's and the rest is overhead.

Clients, each with a fresh job per case (so what it learns comes from that case's link):

- ours, the legacy client SkyRL and verl hold (``create_arctic_rl_client``), against
  *today's view*: the proxy removes the proposed ``wait_s`` from every request, as
  today's service ignores it; once on one event loop, and once in SkyRL's pattern
  (``benchmarks._patterns``: each call on a fresh event loop in a fresh worker thread,
  as SkyRL's trainer makes it);
- ours against the *full view*, on one loop: ``wait_s`` is served (one request per call);
- the published client (arctic-platform 0.1.4) as shipped. It has no ``fwd_no_grad`` on
  Cortex (its transport raises for it), so its iteration sends ``fwd_bwd`` in those two
  places: the same chunked submit and polls.

Per row: the median iteration, its overhead above compute in ms and in RTTs, the polls,
requests and new connections per call counted by the proxy, and (ours) the overhead's ratio to the
published client's in the same case. No client can do better than one RTT per call (the
submit goes up, the result comes down), six an iteration; the proxy and the mock's own
handling of each exchange add a few ms to each. The default cases are every RTT at 0.2 s
compute and 40 ms at 2 s (about 5 minutes); ``ARCTIC_RL_BENCH_WAN=full`` adds 10 and
100 ms at 2 s and a 1 Gbit/s cap at 40 ms (about 12 minutes).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from benchmarks._goals import judge, load1
from benchmarks._mock import DATABASE, PREFIX, REPO, SCHEMA, Mock, running
from benchmarks._patterns import SkyRLPattern
from benchmarks.hotpath import DS_CONFIG, MODEL, PROCESSING, train_batch
from devtools.mock_process import stop_process

RTTS_MS = (10, 40, 100)
COMPUTES_S = (0.2, 2.0)
GIGABIT = 1e9
FULL_ENV = "ARCTIC_RL_BENCH_WAN"
CALLS = 6  # data-plane calls an iteration makes
PROMPTS = [f"prompt {i}: count to ten" for i in range(32)]
SAMPLING = {"max_tokens": 16, "temperature": 1.0}
GOAL_RATIO = 0.3
GOAL_POLLS = 3.0
GOAL_HELD_RTTS = 1.5
JUDGED_RTT_MS = 40
VIEWS = {"today": "today's view", "full": "full view"}


@dataclass(frozen=True)
class Case:
    rtt_ms: int
    compute_s: float
    bits_per_s: float = 0.0

    @property
    def label(self) -> str:
        cap = f", {self.bits_per_s / 1e9:g} Gbit/s" if self.bits_per_s else ""
        return f"{self.rtt_ms} ms RTT{cap}, {self.compute_s:g} s compute"


def cases(full: bool) -> list[Case]:
    """The default subset, or (``full``) every RTT at both computes and a capped link."""
    chosen = [
        Case(rtt, compute)
        for compute in COMPUTES_S
        for rtt in RTTS_MS
        if full or compute == COMPUTES_S[0] or rtt == JUDGED_RTT_MS
    ]
    return chosen + ([Case(JUDGED_RTT_MS, COMPUTES_S[0], GIGABIT)] if full else [])


def iterations_for(compute_s: float) -> int:
    """Timed iterations per row: a median of three at least, even for 12 s iterations."""
    return 4 if compute_s < 1 else 3


class DelayProxy:
    """The delay proxy process: ``configure`` the link, read and reset its counters."""

    def __init__(self, target_port: int) -> None:
        cmd = [sys.executable, "-m", "benchmarks._delay", "--target-port", str(target_port)]
        self.proc = subprocess.Popen(
            cmd, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.port = int(self._line())

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the delay proxy exited")
        return line.strip()

    def command(self, *words: object) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write(" ".join(map(str, words)) + "\n")
        self.proc.stdin.flush()
        return self._line()

    def configure(self, case: Case, mode: str) -> None:
        self.command("set", case.rtt_ms / 1000, mode, case.bits_per_s)

    def counts(self) -> dict[str, int]:
        return dict(json.loads(self.command("counts")))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        stop_process(self.proc)


@contextlib.contextmanager
def delay_proxy(mock: Mock) -> Iterator[DelayProxy]:
    proxy = DelayProxy(int(mock.root.rsplit(":", 1)[1]))
    try:
        yield proxy
    finally:
        proxy.close()


def legacy_client(root: str, token_env: str) -> Any:
    """Our legacy client, as the frameworks build it (a job with a sampling sub-job)."""
    from arctic_rl import ArcticRLClientConfig, create_arctic_rl_client

    config = ArcticRLClientConfig(
        backend="cortex",
        model_name=MODEL,
        training_gpus=1,
        sampling_gpus=1,
        ds_config=DS_CONFIG,
        cortex={"base_url": root + PREFIX, "pat_env": token_env, "progress": False},
    )
    return create_arctic_rl_client(config)


def legacy_client_skyrl(root: str, token_env: str) -> Any:
    """The legacy client with each call made as SkyRL's trainer makes it."""
    return SkyRLPattern(legacy_client(root, token_env))


def published_client(root: str) -> Any:
    from arctic_platform.client import ArcticClientConfig, CortexConfig, TrainingConfig
    from arctic_platform.client import AsyncArcticRLClient as PublishedClient

    backend = CortexConfig(base_url=root, database=DATABASE, schema=SCHEMA, max_retries=2)
    config = ArcticClientConfig(
        backend=backend,
        model_name=MODEL,
        training_gpus=1,
        sampling_gpus=1,
        training=TrainingConfig(ds_config=DS_CONFIG),
    )
    return PublishedClient(config)


async def our_iteration(client: Any, batch: dict[str, Any]) -> None:
    await client.generate(PROMPTS, SAMPLING)
    await client.fwd_no_grad(batch)
    await client.fwd_no_grad(batch, reference_model=True)
    await client.fwd_bwd(batch, processing=PROCESSING)
    await client.step()
    await client.sync_weights()


async def published_iteration(client: Any, batch: dict[str, Any]) -> None:
    await client.generate(PROMPTS, SAMPLING)
    for _ in range(3):  # its Cortex transport has no fwd_no_grad: fwd_bwd stands in
        await client.fwd_bwd(batch, processing=PROCESSING)
    await client.step()
    await client.sync_weights()


Iteration = Callable[[Any, dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Contender:
    name: str
    view: str  # the proxy's mode while it runs
    build: Callable[[str, str], Any]
    iteration: Iteration
    close: Callable[[Any], Awaitable[Any]]


async def _close_published(client: Any) -> None:
    await client.shutdown()


async def _close_legacy(client: Any) -> None:
    await asyncio.to_thread(client.shutdown)


CONTENDERS = (
    Contender(
        "published 0.1.4", "today", lambda root, _: published_client(root),
        published_iteration, _close_published,
    ),
    Contender("ours (legacy), one loop", "today", legacy_client, our_iteration, _close_legacy),
    Contender(
        "ours (legacy), SkyRL's pattern", "today", legacy_client_skyrl,
        our_iteration, _close_legacy,
    ),
    Contender("ours (legacy), one loop", "full", legacy_client, our_iteration, _close_legacy),
)  # fmt: skip


async def _one(
    contender: Contender, case: Case, proxy: DelayProxy, root: str, token_env: str
) -> dict[str, Any]:
    """A fresh client's warm-up iteration, then the timed ones, counted by the proxy."""
    batch = train_batch(8, 128)
    proxy.configure(case, contender.view)
    client = await asyncio.to_thread(contender.build, root, token_env)
    times: list[float] = []
    try:
        await contender.iteration(client, batch)
        proxy.command("reset")
        for _ in range(iterations_for(case.compute_s)):
            t0 = time.perf_counter()
            await contender.iteration(client, batch)
            times.append(time.perf_counter() - t0)
        counts = proxy.counts()
    finally:
        await contender.close(client)
    calls = CALLS * len(times)
    median_ms = statistics.median(times) * 1000
    overhead_ms = median_ms - CALLS * case.compute_s * 1000
    return {
        "case": f"{case.label}, {VIEWS[contender.view]}: {contender.name}",
        "n": len(times),
        "median_ms": median_ms,
        "overhead_ms": overhead_ms,
        "overhead_RTTs": overhead_ms / case.rtt_ms,
        "polls/call": counts.get("polls", 0) / calls,
        "requests/call": counts.get("requests", 0) / calls,
        "connections/call": counts.get("connections", 0) / calls,
        "load1": load1(),
    }


def _judged(row: dict[str, Any], reference: dict[str, Any], case: Case, view: str) -> dict:
    row = {**row, "ratio": row["overhead_ms"] / reference["overhead_ms"]}
    if case.rtt_ms != JUDGED_RTT_MS or case.bits_per_s:
        return {**row, "goal": "(not judged)"}
    if view == "full":
        per_call = row["overhead_RTTs"] / CALLS
        return judge(row, f"<= {GOAL_HELD_RTTS} RTT a call", (per_call, "<=", GOAL_HELD_RTTS))
    checks = [(row["ratio"], "<=", GOAL_RATIO)]
    goal = f"overhead ratio <= {GOAL_RATIO}"
    if case.compute_s == COMPUTES_S[0]:
        checks.append((row["polls/call"], "<=", GOAL_POLLS))
        goal += f", <= {GOAL_POLLS:g} polls a call"
    return judge(row, goal, *checks)


async def _measure(case: Case, proxy: DelayProxy, mock: Mock) -> list[dict[str, Any]]:
    root = f"http://127.0.0.1:{proxy.port}"
    rows = [await _one(c, case, proxy, root, mock.token_env) for c in CONTENDERS]
    reference = {**rows[0], "goal": "(reference)"}
    pairs = zip(rows[1:], CONTENDERS[1:], strict=True)
    ours = [_judged(row, rows[0], case, c.view) for row, c in pairs]
    return [reference, *ours]


def run(full: bool | None = None) -> list[dict[str, Any]]:
    """Every case's four rows; one mock per compute time, one proxy in front of it."""
    full = os.environ.get(FULL_ENV, "") == "full" if full is None else full
    rows: list[dict[str, Any]] = []
    for compute in COMPUTES_S:
        chosen = [c for c in cases(full) if c.compute_s == compute]
        if not chosen:
            continue
        with running(no_auth=True, request_latency_s=compute) as mock, delay_proxy(mock) as proxy:
            for case in chosen:
                rows.extend(asyncio.run(_measure(case, proxy, mock)))
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
