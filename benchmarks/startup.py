"""Start-up: ``import arctic_rl`` plus the first client, in fresh interpreters.

The probe imports the package and builds an ``ArcticRLClient`` (config checked, token
read, HTTP stack and service ready) without contacting a server, so what it measures
is ours alone: module loading and construction. Each sample is a new process (a warm
module cache in this one would measure nothing). With a baseline checkout on the
machine (see ``benchmarks._mock.baseline_tree``), the same probe runs there, interleaved,
so the ratio compares both trees under the same load. Goal (#13): at most 150 ms.

``floor_ms`` is the same kind of cold start with nothing of ours: pydantic (imported, its
plugin entry points scanned, one model built and validated) and asyncio. The config is a
pydantic model because the frameworks and the published client's own code treat it as one
(``model_copy``, ``model_dump``), so no start-up of ours can be below that floor;
``above_floor_ms`` is what our code adds to it.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks._goals import judge, load1
from benchmarks._mock import PREFIX, REPO, baseline_tree, tree_commit

RUNS = 9
GOAL_MS = 150.0
_TOKEN_ENV = "ARCTIC_RL_BENCH_STARTUP_PAT"
_BASE_URL = "http://127.0.0.1:9" + PREFIX  # never contacted: start=False
_HEAVY = ("torch", "numpy", "httpx", "fastapi", "yaml", "attrs", "cortex_gs_models")
"""Modules whose presence after the probe is reported (none of them is needed to start)."""
_PROBE = f"""
import json, sys, time
t0 = time.perf_counter()
import arctic_rl
t1 = time.perf_counter()
config = arctic_rl.ArcticRLClientConfig(
    backend="cortex", model_name="bench", training_gpus=1,
    cortex={{"base_url": "{_BASE_URL}", "pat_env": "{_TOKEN_ENV}", "progress": False}},
)
client = arctic_rl.ArcticRLClient(config, start=False)
t2 = time.perf_counter()
heavy = sorted(m for m in {_HEAVY!r} if m in sys.modules)
print(json.dumps({{"import_s": t1 - t0, "client_s": t2 - t1, "heavy": heavy}}))
client.shutdown()
"""
_FLOOR_PROBE = """
import json, time
t0 = time.perf_counter()
import asyncio
from pydantic import BaseModel
class Probe(BaseModel):
    name: str = "probe"
Probe(name="floor")
print(json.dumps({"import_s": time.perf_counter() - t0, "client_s": 0.0, "heavy": []}))
"""


def probe(tree: Path, code: str = _PROBE) -> dict[str, Any]:
    """One fresh interpreter whose ``arctic_rl`` and generated packages are ``tree``'s."""
    paths = os.pathsep.join((str(tree), str(tree / "generated")))
    env = {**os.environ, _TOKEN_ENV: "startup-probe-token", "PYTHONPATH": paths}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"start-up probe failed in {tree}:\n{done.stderr[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def run(runs: int = RUNS) -> list[dict[str, Any]]:
    """One row: the median of ``runs`` cold starts, beside the baseline tree's when present."""
    baseline = baseline_tree()
    ours: list[dict[str, Any]] = []
    ref: list[dict[str, Any]] = []
    floor: list[dict[str, Any]] = []
    for _ in range(runs):
        ours.append(probe(REPO))
        floor.append(probe(REPO, _FLOOR_PROBE))
        if baseline is not None:
            ref.append(probe(baseline))

    def total_ms(samples: list[dict[str, Any]]) -> float:
        return statistics.median(s["import_s"] + s["client_s"] for s in samples) * 1000

    median, floor_ms = total_ms(ours), total_ms(floor)
    row: dict[str, Any] = {
        "case": "import arctic_rl + first ArcticRLClient (no server)",
        "n": runs,
        "median_ms": median,
        "best_ms": min(s["import_s"] + s["client_s"] for s in ours) * 1000,
        "import_ms": statistics.median(s["import_s"] for s in ours) * 1000,
        "floor_ms": floor_ms,
        "above_floor_ms": median - floor_ms,
        "heavy_modules": ",".join(ours[-1]["heavy"]) or "none",
        "load1": load1(),
    }
    if ref:
        row["ref_median_ms"] = total_ms(ref)
        row["ref"] = f"baseline {tree_commit(baseline) or baseline}" if baseline else ""
        row["ratio"] = median / row["ref_median_ms"]
    return [judge(row, f"<= {GOAL_MS:.0f} ms", (median, "<=", GOAL_MS))]


if __name__ == "__main__":
    for r in run():
        print(r)
