"""Load: 16 concurrent clients x 100 mixed operations against one mock.

Each client owns a job and runs a seeded random mix of the SDK's calls; every answer is
checked against what only that caller could expect (its own step count, weight version,
checkpoint names, echoed prompt, batch shape), so a result delivered to the wrong caller
counts as an error just like an exception. Prints p50/p90/p99 latency per operation.
The mock runs in its own process (the demo's ``running_mock``) so it does not share the
clients' GIL. tests/hardening/test_load.py runs the same workload at a smaller count.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLIENTS = 16
OPS_PER_CLIENT = 100
SEED = 20261129
MIX = (
    "fwd_bwd",
    "fwd_no_grad",
    "step",
    "generate",
    "log_probs",
    "sync_weights",
    "save_checkpoint",
    "list_checkpoints",
    "get_job",
)
PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
LOAD_COLUMNS = (
    "operation",
    "count",
    "errors",
    "p50_ms",
    "p90_ms",
    "p99_ms",
    "mean_ms",
    "ops_per_s",
)


@dataclass
class Sample:
    """One operation as its caller saw it."""

    client: int
    operation: str
    seconds: float
    error: str | None = None


@dataclass
class Caller:
    """What one client has done so far: the only truth its answers may be checked against."""

    index: int
    steps: int = 0
    version: int = 0
    checkpoints: list[str] = field(default_factory=list)


def _batch(caller: Caller) -> tuple[dict[str, Any], tuple[int, int]]:
    """A training batch whose shape is particular to this caller; returns the output shape."""
    import torch

    rows, prompt, response = 1 + caller.index % 3, 4, 2 + caller.index % 5
    total = prompt + response
    mask = torch.zeros(rows, total, dtype=torch.long)
    mask[:, prompt:] = 1
    ids = torch.full((rows, total), 97 + caller.index % 26, dtype=torch.long)
    batch = {
        "input_ids": ids,
        "attention_mask": torch.ones(rows, total, dtype=torch.long),
        "position_ids": torch.arange(total).repeat(rows, 1),
        "prompts": ids[:, :prompt],
        "responses": ids[:, prompt:],
        "response_mask": mask,
        "advantages": torch.ones(rows, total),
        "old_log_probs": torch.full((rows, total), -3.0),
    }
    return batch, (rows, total)  # log-probs come back shaped like input_ids


def _check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


async def _operation(client: Any, caller: Caller, name: str, i: int) -> None:
    """Run one operation and check its answer belongs to this caller."""
    tag = f"c{caller.index}-{i}"
    if name in ("fwd_bwd", "fwd_no_grad"):
        batch, shape = _batch(caller)
        if name == "fwd_bwd":
            out = await client.fwd_bwd(batch, processing=PROCESSING)
            _check(out.get("job_id") in (None, client.job_id), "another job's result")
            logprobs = out["post_process_outputs"]["logprobs"]
        else:
            out = await client.fwd_no_grad(batch, processing=PROCESSING)
            logprobs = out["model_outputs"]["logprobs"]
        _check(tuple(logprobs.shape) == shape, f"logprobs {tuple(logprobs.shape)} != {shape}")
    elif name == "step":
        out = await client.step()
        caller.steps += 1
        _check(out["global_steps"] == caller.steps, f"step {out['global_steps']}")
    elif name == "generate":
        out = await client.generate([tag], {"max_tokens": len(tag)})
        _check(out["results"][0]["text"] == tag, f"generated {out['results'][0]['text']!r}")
    elif name == "log_probs":
        out = await client.log_probs([tag], top_k=1)
        _check(len(out["logprobs"][0]) == len(tag) - 1, "log-probs of another prompt")
    elif name == "sync_weights":
        out = await client.sync_weights()
        caller.version += 1
        _check(out["version"] == caller.version, f"weight version {out['version']}")
    elif name == "save_checkpoint":
        out = await client.save_checkpoint(tag)  # the service names it after the step
        _check(
            out["checkpoint_id"] == f"global_step{caller.steps}", f"saved {out['checkpoint_id']}"
        )
        if out["checkpoint_id"] in caller.checkpoints:  # a save at the same step replaces it
            caller.checkpoints.remove(out["checkpoint_id"])
        caller.checkpoints.append(out["checkpoint_id"])
    elif name == "list_checkpoints":
        listed = [c["checkpoint_id"] for c in await client.list_checkpoints()]
        _check(listed == caller.checkpoints, "someone else's checkpoints")
    elif name == "get_job":
        _check((await client.get_job())["job_id"] == client.job_id, "another job")


async def _client_run(client: Any, index: int, ops: int, seed: int) -> list[Sample]:
    """One connected client: ``ops`` seeded random operations, each timed and checked."""
    rng = random.Random(seed * 1000 + index)
    caller = Caller(index)
    samples = []
    for i in range(ops):
        name = rng.choice(MIX)
        start = time.perf_counter()
        error = None
        try:
            await _operation(client, caller, name, i)
        except Exception as exc:  # every failure is data here, reported per operation
            error = f"{type(exc).__name__}: {exc}"
        samples.append(Sample(index, name, time.perf_counter() - start, error))
    return samples


def _config(base_url: str, token_env: str) -> Any:
    from arctic_rl import ArcticRLClientConfig

    cortex = {"base_url": base_url, "pat_env": token_env, "long_poll_s": 5, "progress": False}
    return ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        sampling_gpus=1,
        cortex=cortex,
    )


async def run_load(
    base_url: str,
    *,
    token_env: str,
    clients: int = CLIENTS,
    ops_per_client: int = OPS_PER_CLIENT,
    seed: int = SEED,
) -> tuple[list[Sample], float]:
    """All clients at once against ``base_url``: (every sample, wall seconds of the run).

    Connecting (one job per client) and a warm-up call that loads torch on both sides
    happen before the clock starts, so the table shows steady-state latencies.
    """
    from arctic_rl import AsyncArcticRLClient

    config = _config(base_url, token_env)
    connected = await asyncio.gather(*(AsyncArcticRLClient.connect(config) for _ in range(clients)))
    try:
        warm = connected[0]
        await warm.fwd_no_grad(_batch(Caller(0))[0], processing=PROCESSING)
        start = time.perf_counter()
        runs = [_client_run(c, i, ops_per_client, seed) for i, c in enumerate(connected)]
        samples = [s for batch in await asyncio.gather(*runs) for s in batch]
        return samples, time.perf_counter() - start
    finally:
        await asyncio.gather(*(c.shutdown() for c in connected), return_exceptions=True)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))]


def summarize(samples: list[Sample], wall_s: float) -> list[dict[str, Any]]:
    """One row per operation plus a total: count, errors, p50/p90/p99 in milliseconds."""
    rows = []
    groups: dict[str, list[Sample]] = {}
    for s in samples:
        groups.setdefault(s.operation, []).append(s)
    for name in [*sorted(groups), "all"]:
        group = samples if name == "all" else groups[name]
        ms = [s.seconds * 1000 for s in group]
        row: dict[str, Any] = {
            "operation": name,
            "count": len(group),
            "errors": sum(s.error is not None for s in group),
            "p50_ms": percentile(ms, 50),
            "p90_ms": percentile(ms, 90),
            "p99_ms": percentile(ms, 99),
            "mean_ms": statistics.fmean(ms),
        }
        if name == "all":
            row["ops_per_s"] = len(group) / wall_s
        rows.append(row)
    return rows


def run(
    clients: int = CLIENTS, ops_per_client: int = OPS_PER_CLIENT, seed: int = SEED
) -> list[dict[str, Any]]:
    """Run the load, print its latency table, and return rows for ``python -m benchmarks``."""
    from benchmarks.__main__ import render
    from devtools.mock_process import PAT_ENV, running_mock

    with (
        tempfile.TemporaryDirectory(prefix="arctic-rl-load-") as tmp,
        running_mock(Path(tmp) / "state", Path(tmp) / "mock.log", backend="canned") as base_url,
    ):
        samples, wall = asyncio.run(
            run_load(
                base_url,
                token_env=PAT_ENV,
                clients=clients,
                ops_per_client=ops_per_client,
                seed=seed,
            )
        )
    for s in [s for s in samples if s.error][:5]:
        print(f"load error (client {s.client}, {s.operation}): {s.error}", file=sys.stderr)
    rows = summarize(samples, wall)
    print(f"load: {clients} clients x {ops_per_client} mixed operations against one mock")
    print(render(rows, LOAD_COLUMNS), flush=True)
    label = f"load {clients}x{ops_per_client}"
    return [
        {"case": f"{label} {r.pop('operation')}", "n": r["count"], "median_ms": r["p50_ms"], **r}
        for r in rows
    ]


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.load [--clients N --ops M]``: just this table; 1 on errors."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__)
    parser.add_argument("--clients", type=int, default=CLIENTS)
    parser.add_argument("--ops", type=int, default=OPS_PER_CLIENT)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    rows = run(args.clients, args.ops, args.seed)
    return 1 if any(r["errors"] for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
