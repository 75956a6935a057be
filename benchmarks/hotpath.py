"""Hot path: the published client and ours, one training iteration each, interleaved.

An iteration is what SkyRL's trainer awaits every step: ``fwd_bwd`` of an 8 x 128
SkyRL-shaped batch, then ``step``. Both clients are the async ones the frameworks await
(the published ``arctic_platform.client.AsyncArcticRLClient``, installed for the
conformance tests, and ours), in one event loop, against the same canned mock process
(``--no-auth``: the published client's ``base_url`` path sends no token). Iterations
alternate between the two, and which goes first alternates too, so load on the shared
machine falls on both alike. Goal (#13): our median at most half the published one's.

The published client polls a request right after submitting it and, when that first
poll finds it unfinished, sleeps its fixed 0.5 s poll interval. Against the canned mock
that is a race with the mock's worker, lost in a varying share of calls, so as shipped
its median is about 500 ms or about 15 ms from one run to the next. The judged rows
therefore set its transport's poll interval to 1 ms (a config value, not its code): its
own cost per iteration without the sleep, the stricter comparison for us. One more row
compares it as shipped, for the record, and one sets our legacy client (what SkyRL and
verl hold: ``create_arctic_rl_client``, its calls run on a private event loop thread)
beside our async client. A last row breaks our ``fwd_bwd`` of the judged runs (warm-ups
included) down by its ``timing/*`` figures (docs/timing.md), the median of each phase:
read from the answers the iterations already got, so it adds nothing to the rows above.
"""

from __future__ import annotations

import asyncio
import math
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from benchmarks._goals import judge, load1
from benchmarks._mock import DATABASE, SCHEMA, Mock, running

SHAPE = (8, 128)
ITERATIONS = 40
WARMUP = 5
REPEATS = 3
SHIPPED_ITERATIONS = 20
GOAL_RATIO = 0.5
FAST_POLL_S = 0.001
"""The published client's poll interval in the judged rows (it ships with 0.5 s)."""
MODEL = "tiny-byte-lm"
PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
# What a training job is created with on both sides (the conformance suite's setup).
DS_CONFIG = {"optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}, "train_batch_size": 8}

Iteration = Callable[[], Awaitable[None]]


def train_batch(rows: int, width: int, response: int | None = None) -> dict[str, Any]:
    """A SkyRL-shaped TrainBatch: [B, P+R] ids and masks, [B, R] per-token floats."""
    import torch

    response = response or width // 2
    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 256, (rows, width), generator=gen)
    mask = torch.zeros(rows, width, dtype=torch.long)
    mask[:, width - response :] = 1
    return {
        "input_ids": ids,
        "attention_mask": torch.ones(rows, width, dtype=torch.long),
        "position_ids": torch.arange(width).repeat(rows, 1),
        "prompts": ids[:, : width - response].clone(),
        "responses": ids[:, width - response :].clone(),
        "response_mask": mask[:, width - response :].clone(),
        "loss_mask": mask,
        "advantages": torch.randn(rows, response, generator=gen),
        "old_log_probs": -torch.rand(rows, response, generator=gen) * 5,
    }


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (with few samples p99 is close to the maximum, honestly)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def our_config(base_url: str, token_env: str) -> Any:
    """Our client's config for a mock at ``base_url`` (the token is in ``token_env``)."""
    from arctic_rl import ArcticRLClientConfig

    return ArcticRLClientConfig(
        backend="cortex",
        model_name=MODEL,
        training_gpus=1,
        ds_config=DS_CONFIG,
        cortex={"base_url": base_url, "pat_env": token_env, "progress": False},
    )


def published_config(root: str) -> Any:
    """The published client's config, as its users write it for a host of their own."""
    from arctic_platform.client import ArcticClientConfig, CortexConfig, TrainingConfig

    backend = CortexConfig(base_url=root, database=DATABASE, schema=SCHEMA, max_retries=2)
    return ArcticClientConfig(
        backend=backend,
        model_name=MODEL,
        training_gpus=1,
        training=TrainingConfig(ds_config=DS_CONFIG),
    )


async def _timed(iteration: Iteration, into: list[float]) -> None:
    t0 = time.perf_counter()
    await iteration()
    into.append(time.perf_counter() - t0)


async def interleaved(
    ours: Iteration, published: Iteration, iterations: int, warmup: int = WARMUP
) -> tuple[list[float], list[float]]:
    """Seconds per iteration for each client, alternating which one goes first."""
    for _ in range(warmup):
        await published()
        await ours()
    ours_s: list[float] = []
    published_s: list[float] = []
    for i in range(iterations):
        pair = [(ours, ours_s), (published, published_s)]
        for iteration, into in pair if i % 2 else reversed(pair):
            await _timed(iteration, into)
    return ours_s, published_s


def _row(case: str, ours_s: list[float], published_s: list[float], ref: str) -> dict[str, Any]:
    median = statistics.median(ours_s) * 1000
    ref_median = statistics.median(published_s) * 1000
    return {
        "case": case,
        "n": len(ours_s),
        "median_ms": median,
        "p99_ms": percentile(ours_s, 99) * 1000,
        "ref_median_ms": ref_median,
        "ref_p99_ms": percentile(published_s, 99) * 1000,
        "ref": ref,
        "ratio": median / ref_median,
        "load1": load1(),
    }


async def _measure(mock: Mock, repeats: int, iterations: int) -> list[dict[str, Any]]:
    from arctic_platform.client import AsyncArcticRLClient as PublishedClient

    from arctic_rl import AsyncArcticRLClient

    batch = train_batch(*SHAPE)
    timings: list[dict[str, float]] = []
    ours = await AsyncArcticRLClient.connect(our_config(mock.base_url, mock.token_env))
    # The published constructor creates the job and waits for it, blocking.
    published = await asyncio.to_thread(PublishedClient, published_config(mock.root))

    async def our_iteration() -> None:
        answer = await ours.fwd_bwd(batch, processing=PROCESSING)
        timings.append(answer["timing"])
        await ours.step()

    async def published_iteration() -> None:
        await published.fwd_bwd(batch, processing=PROCESSING)
        await published.step()

    shape = f"fwd_bwd {SHAPE[0]}x{SHAPE[1]} + step"
    goal = f"ratio <= {GOAL_RATIO}"
    rows: list[dict[str, Any]] = []
    try:
        shipped_interval = published.transport.poll_interval
        published.transport.poll_interval = FAST_POLL_S
        ref = f"published client, poll interval {FAST_POLL_S * 1000:g} ms"
        for k in range(repeats):
            times = await interleaved(our_iteration, published_iteration, iterations)
            row = _row(f"{shape}, run {k + 1}/{repeats}", *times, ref)
            rows.append(judge(row, goal, (row["ratio"], "<=", GOAL_RATIO)))
        breakdown = breakdown_row(f"fwd_bwd {SHAPE[0]}x{SHAPE[1]}, where its time went", timings)
        published.transport.poll_interval = shipped_interval
        times = await interleaved(our_iteration, published_iteration, SHIPPED_ITERATIONS, 1)
        ref = f"published client as shipped (poll interval {shipped_interval:g} s)"
        rows.append({**_row(f"{shape}, for the record", *times, ref), "goal": "(not judged)"})
        rows.append(await _legacy_row(mock, batch, our_iteration, shape, iterations))
        rows.append(breakdown)
    finally:
        await ours.shutdown()
        await published.shutdown()
    return rows


def breakdown_row(case: str, timings: list[dict[str, float]]) -> dict[str, Any]:
    """The median of each ``timing/*`` phase over calls' figures, in milliseconds."""
    from arctic_rl.shared import TIMING_PHASES as PHASES

    def median(key: str) -> float:
        return statistics.median(t[f"timing/{key}"] for t in timings)

    phases = {f"{name.removesuffix('_s')}_ms": median(name) * 1000 for name in PHASES}
    return {
        "case": case,
        "n": len(timings),
        "median_ms": median("total_s") * 1000,
        **phases,
        "polls/call": statistics.fmean(t["timing/polls"] for t in timings),
        "retries": sum(t["timing/retries"] for t in timings),
        "goal": "(not judged)",
        "load1": load1(),
    }


async def _legacy_row(
    mock: Mock, batch: dict[str, Any], async_iteration: Iteration, shape: str, iterations: int
) -> dict[str, Any]:
    """Our legacy client (the frameworks' path) beside our async client."""
    from arctic_rl import create_arctic_rl_client

    config = our_config(mock.base_url, mock.token_env)
    legacy = await asyncio.to_thread(create_arctic_rl_client, config)

    async def legacy_iteration() -> None:
        await legacy.fwd_bwd(batch, processing=PROCESSING)
        await legacy.step()

    try:
        times = await interleaved(legacy_iteration, async_iteration, iterations)
    finally:
        await asyncio.to_thread(legacy.shutdown)
    row = _row(f"{shape}, legacy client", *times, "our async client")
    return {**row, "goal": "(not judged)"}


def run(repeats: int = REPEATS, iterations: int = ITERATIONS) -> list[dict[str, Any]]:
    """``repeats`` rows, each ``iterations`` interleaved iterations per client."""
    with running(no_auth=True) as mock:
        return asyncio.run(_measure(mock, repeats, iterations))


if __name__ == "__main__":
    for r in run():
        print(r)
