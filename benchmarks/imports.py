"""What ``import arctic_rl`` costs a training script, measured in fresh interpreters.

The package resolves its public names lazily, so importing it must not pull in torch,
the HTTP stack or the generated client; first use of the factory does. Best of N runs,
each in a new process (a warm module cache in this one would measure nothing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

RUNS = 7
_PROBE = """
import json, sys, time
t0 = time.perf_counter()
import arctic_rl
t1 = time.perf_counter()
{extra}
t2 = time.perf_counter()
heavy = sorted(m for m in ("torch", "httpx", "fastapi", "uvicorn") if m in sys.modules)
print(json.dumps({{"import_s": t1 - t0, "extra_s": t2 - t1, "heavy": heavy}}))
"""
CASES = {
    "import arctic_rl": "",
    "import arctic_rl + create_arctic_rl_client": "arctic_rl.create_arctic_rl_client",
}


def _probe(extra: str) -> dict[str, Any]:
    code = _PROBE.format(extra=extra)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def run(runs: int = RUNS) -> list[dict[str, Any]]:
    """One row per case: best and median of ``runs`` cold imports, and what got imported."""
    rows: list[dict[str, Any]] = []
    for case, extra in CASES.items():
        samples = [_probe(extra) for _ in range(runs)]
        totals = sorted(s["import_s"] + s["extra_s"] for s in samples)
        rows.append(
            {
                "case": case,
                "n": runs,
                "best_ms": totals[0] * 1000,
                "median_ms": totals[len(totals) // 2] * 1000,
                "heavy_modules": ",".join(samples[-1]["heavy"]) or "none",
            }
        )
    load = os.getloadavg()[0]
    return [{**row, "loadavg": load} for row in rows]


if __name__ == "__main__":
    for row in run():
        print(row)
