"""Run every benchmark module, print one aligned table, write bench-results/latest.json."""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import MODULES


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def render(rows: list[dict[str, Any]]) -> str:
    """One table over the union of the rows' keys, in first-seen order."""
    cols: list[str] = []
    for row in rows:
        cols.extend(k for k in row if k not in cols)
    cells = [[_fmt(r.get(c, "")) for c in cols] for r in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    for r in cells:
        lines.append("  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--only", choices=MODULES, help="run just this benchmark module")
    parser.add_argument("--out", default="bench-results/latest.json", help="JSON results path")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for name in (args.only,) if args.only else MODULES:
        module = importlib.import_module(f"benchmarks.{name}")
        for row in module.run():
            rows.append({"module": name, **row})
    print(render(rows))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "created_unix": time.time(),
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "rows": rows,
    }
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
