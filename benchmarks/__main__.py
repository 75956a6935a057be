"""Run every benchmark module, print one aligned table, write the results as JSON.

bench-results/latest.json is overwritten each run; a copy named after the UTC time and
the commit (bench-results/<time>-<commit>.json) is kept so runs can be compared. The
table shows the headline columns; every row's full detail is in the JSON. A full run (no
``--only``) also writes the table to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import MODULES, _report
from benchmarks._goals import MET, MISSED, load1
from benchmarks._mock import baseline_tree, tree_commit

TABLE_COLUMNS = (
    "module",
    "case",
    "data_MiB",
    "n",
    "median_ms",
    "p99_ms",
    "encode_ms",
    "upload_ms",
    "queue_ms",
    "compute_ms",
    "latency_ms",
    "download_ms",
    "overhead_ms",
    "overhead_RTTs",
    "polls/call",
    "requests/call",
    "connections/call",
    "ref_median_ms",
    "floor_ms",
    "above_floor_ms",
    "lowering_ms",
    "seconds",
    "total_s",
    "ref_seconds",
    "GiB/s",
    "ops/s",
    "ref_ops/s",
    "peak_chunks",
    "errors",
    "ratio",
    "goal",
    "verdict",
    "load1",
)
"""Columns of the printed table, in order (a column no row has is left out)."""


_TEXT_COLUMNS = ("module", "case", "goal", "verdict")


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 100 else f"{v:.1f}"
    return str(v)


def render(rows: list[dict[str, Any]], columns: tuple[str, ...] = TABLE_COLUMNS) -> str:
    """One aligned table over ``columns`` that at least one row has."""
    cols = [c for c in columns if any(c in r for r in rows)]
    cells = [[_fmt(r.get(c, "")) for c in cols] for r in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    for r in cells:
        line = [v.ljust(w) if c in _TEXT_COLUMNS else v.rjust(w)
                for c, v, w in zip(cols, r, widths, strict=True)]  # fmt: skip
        lines.append("  ".join(line).rstrip())
    return "\n".join(lines)


def verdicts(rows: list[dict[str, Any]]) -> str:
    """One line: how many judged rows met their goal, and which missed."""
    judged = [r for r in rows if r.get("verdict") in (MET, MISSED)]
    missed = [f"{r['module']}: {r['case']}" for r in judged if r["verdict"] == MISSED]
    line = f"goals: {len(judged) - len(missed)} of {len(judged)} judged rows met"
    return line + (f"; MISSED: {'; '.join(missed)}" if missed else "")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, check=False)
    except OSError:
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def machine() -> dict[str, Any]:
    """What the numbers were measured on; they mean little without it."""
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    try:
        import torch

        torch_version = torch.__version__
    except ImportError:
        torch_version = None
    return {
        "cpu": _cpu_model(),
        "cores": len(os.sched_getaffinity(0)),
        "memory_GiB": round(mem_gib, 1),
        "os": f"{platform.system()} {platform.release()}",
        "python": sys.version.split()[0],
        "torch": torch_version,
        "loadavg_1m_at_start": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "--only",
        action="append",
        choices=MODULES,
        help="run just this module's rows, e.g. --only wan (repeatable)",
    )
    parser.add_argument("--out", default="bench-results/latest.json", help="JSON results path")
    parser.add_argument(
        "--doc", default=str(_report.DOC), help="Markdown table of a full run (no --only)"
    )
    args = parser.parse_args(argv)
    started = time.time()
    host = machine()
    print(
        f"machine: {host['cpu']}, {host['cores']} cores, {host['memory_GiB']} GiB, "
        f"Python {host['python']}, torch {host['torch']}, "
        f"load average {host['loadavg_1m_at_start']:.2f}",
        flush=True,
    )
    baseline = baseline_tree()
    host["baseline"] = f"{baseline} at {tree_commit(baseline)}" if baseline else None
    print(f"baseline checkout: {host['baseline'] or 'none (recorded constants)'}", flush=True)
    rows: list[dict[str, Any]] = []
    for name in args.only or MODULES:
        print(f"running benchmarks.{name} ...", flush=True)
        module = importlib.import_module(f"benchmarks.{name}")
        for row in module.run():
            rows.append({"module": name, **row})
    load_end = load1()
    print()
    print(render(rows))
    print(
        f"load average (1 min): {host['loadavg_1m_at_start']:.2f} at the start, "
        f"{load_end:.2f} at the end (each row's load1 is at its end)"
    )
    verdict_line = verdicts(rows)
    print(verdict_line)
    commit = _git("rev-parse", "--short", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
    doc = {
        "created_unix": started,
        "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "seconds": time.time() - started,
        "commit": commit,
        "dirty": dirty,
        "machine": host,
        "python": host["python"],
        "loadavg_1m_at_end": load_end,
        "rows": rows,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(started))
    copy = out.with_name(f"{stamp}-{commit or 'nogit'}{'-dirty' if dirty else ''}.json")
    shutil.copyfile(out, copy)
    print(f"\nwrote {out} and {copy} ({doc['seconds']:.0f} s)")
    if not args.only:
        print(f"wrote {_report.write(Path(args.doc), doc, TABLE_COLUMNS, verdict_line)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
