"""Mock throughput: 16 concurrent clients x 100 small operations, operations per second.

The workload is ``benchmarks.load``'s (a seeded mix of the SDK's calls, every answer
checked against what only its caller could expect). It runs against this tree's mock
and, with a baseline checkout on the machine (``benchmarks._mock.baseline_tree``), against
the baseline's mock too, in the same run with the same client, so the ratio is the
mock's alone: baseline, ours, baseline, ours, so a change of load falls on both alike,
and each side's operations per second is the mean of its two runs. Without a checkout
the ratio is against ``RECORDED_BASELINE``. Goal (#13): 2x the baseline's operations per
second, 0 errors.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from pathlib import Path
from typing import Any

from benchmarks._goals import judge, load1
from benchmarks._mock import REPO, baseline_tree, running, tree_commit
from benchmarks.load import CLIENTS, OPS_PER_CLIENT, run_load, summarize

GOAL_RATIO = 2.0
ROUNDS = 2
RECORDED_BASELINE = {"commit": "c01c206", "ops_per_s": 169.5}
"""Main before #13 on this 2-core machine, load average 3.4 (used only without a checkout)."""


def measure(tree: Path, clients: int, ops: int) -> dict[str, Any]:
    """Operations per second and errors of the load against ``tree``'s mock."""
    with running(tree=tree) as mock:
        samples, wall_s = asyncio.run(
            run_load(mock.base_url, token_env=mock.token_env, clients=clients, ops_per_client=ops)
        )
    total = summarize(samples, wall_s)[-1]
    for s in [s for s in samples if s.error][:3]:
        print(f"throughput error ({tree.name}, {s.operation}): {s.error}", file=sys.stderr)
    return {"ops_per_s": total["ops_per_s"], "errors": total["errors"], "p99_ms": total["p99_ms"]}


def _mean(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean operations per second and p99, total errors, over a tree's runs."""
    return {
        "ops_per_s": statistics.fmean(r["ops_per_s"] for r in runs),
        "p99_ms": statistics.fmean(r["p99_ms"] for r in runs),
        "errors": sum(r["errors"] for r in runs),
    }


def run(clients: int = CLIENTS, ops: int = OPS_PER_CLIENT) -> list[dict[str, Any]]:
    """One judged row: this tree's mock beside the baseline's (measured, or recorded)."""
    baseline = baseline_tree()
    ref_runs: list[dict[str, Any]] = []
    our_runs: list[dict[str, Any]] = []
    for _ in range(ROUNDS):
        if baseline is not None:
            ref_runs.append(measure(baseline, clients, ops))
        our_runs.append(measure(REPO, clients, ops))
    ours = _mean(our_runs)
    ref = _mean(ref_runs) if ref_runs else None
    if ref is not None and baseline is not None:
        ref_ops, ref_name = ref["ops_per_s"], f"baseline {tree_commit(baseline)} mock, measured"
    else:
        ref_ops = RECORDED_BASELINE["ops_per_s"]
        ref_name = f"baseline {RECORDED_BASELINE['commit']} mock, recorded"
    row: dict[str, Any] = {
        "case": f"{clients} clients x {ops} small ops, mean of {ROUNDS} runs",
        "n": clients * ops * ROUNDS,
        "runs_ops_s": [r["ops_per_s"] for r in our_runs],
        "ops/s": ours["ops_per_s"],
        "p99_ms": ours["p99_ms"],
        "errors": ours["errors"],
        "ref_ops/s": ref_ops,
        "ref": ref_name,
        "ratio": ours["ops_per_s"] / ref_ops,
        "load1": load1(),
    }
    if ref is not None:
        row.update(ref_errors=ref["errors"], ref_runs_ops_s=[r["ops_per_s"] for r in ref_runs])
    goal = f"ratio >= {GOAL_RATIO:g}, 0 errors"
    return [judge(row, goal, (row["ratio"], ">=", GOAL_RATIO), (ours["errors"], "<=", 0))]


if __name__ == "__main__":
    for r in run():
        print(r)
