"""``docs/benchmarks.md``: the table of one ``make bench`` run, as Markdown.

Written by ``python -m benchmarks`` after every full run (a run narrowed with ``--only``
leaves it alone, so the page always shows every row of one run). Sections other targets
write (``make soak``'s) are kept when the bench rewrites the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks._mock import REPO

DOC = REPO / "docs" / "benchmarks.md"
KEPT_SECTIONS = ("## soak",)
"""Headings of sections written by other targets, carried over when a bench run rewrites."""
_NUMBER_FORMATS = {
    "n": "{:d}",
    "polls/call": "{:.2f}",
    "requests/call": "{:.2f}",
    "connections/call": "{:.2f}",
}


def _cell(column: str, value: Any) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, float):
        fmt = _NUMBER_FORMATS.get(column) or ("{:.3f}" if abs(value) < 10 else "{:.1f}")
        return fmt.format(value)
    return str(value).replace("|", "\\|")


def table(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    cols = [c for c in columns if any(c in r for r in rows)]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_cell(c, r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def markdown(doc: dict[str, Any], columns: tuple[str, ...], verdict_line: str) -> str:
    host = doc["machine"]
    dirty = " (with uncommitted changes)" if doc["dirty"] else ""
    head = [
        "# Benchmarks",
        "",
        f"One `make bench` run, {doc['created_utc']}, commit `{doc['commit']}`{dirty}, "
        f"{doc['seconds']:.0f} s in all.",
        "",
        f"Machine: {host['cpu']}, {host['cores']} cores, {host['memory_GiB']} GiB, "
        f"{host['os']}, Python {host['python']}, torch {host['torch']}; load average "
        f"{host['loadavg_1m_at_start']:.2f} at the start, {doc['loadavg_1m_at_end']:.2f} at "
        "the end (each row's `load1` is at its end).",
        "",
        f"{verdict_line}.",
        "",
        "Each module's docstring (`benchmarks/<module>.py`) says what its rows measure. "
        "The `wan` rows: `median_ms` is one SkyRL-shaped iteration (six calls), "
        "`overhead_ms` what it took above the server's compute (six times the mock's "
        "per-request compute), `overhead_RTTs` the same in round trips, `ratio` our "
        "overhead over the published client's in the same case, `connections/call` the new "
        "connections the proxy saw, each charged 2 RTT (TCP and TLS handshakes) before its "
        "first byte. Ours runs on one event loop, and in SkyRL's pattern: each call on a "
        "fresh event loop in a fresh worker thread, as SkyRL's trainer makes it. The "
        "published client has "
        "no `fwd_no_grad` on Cortex, so its iteration sends `fwd_bwd` there. Today's view "
        "is the mock behind a proxy that drops the proposed `wait_s`; the full view serves "
        "it, answering each call in one exchange the moment its result exists: the least "
        "any client can wait (one RTT a call plus the proxy's and the mock's handling of "
        "that exchange), so its ratio is also the lowest today's view can reach. "
        "`ARCTIC_RL_BENCH_WAN=full make bench` adds 10 and 100 ms at 2 s compute and "
        "a 1 Gbit/s link (the default `wan` cases take about 5 minutes, the full set about "
        "12). `make soak` writes the `soak` section: the demo's loop for 2,000 calls in "
        "SkyRL's pattern. `ingest`: `seconds` is the upload, `total_s` runs on to the "
        "decoded result. "
        "`startup`: `floor_ms` is the same cold start with nothing of ours (pydantic, whose "
        "model the config must stay, and asyncio), `above_floor_ms` what our code adds.",
        "",
    ]
    by_module: dict[str, list[dict[str, Any]]] = {}
    for row in doc["rows"]:
        by_module.setdefault(row["module"], []).append(row)
    body = []
    for module, rows in by_module.items():
        body += [f"## {module}", "", table(rows, tuple(c for c in columns if c != "module")), ""]
    return "\n".join(head + body)


def section(text: str, heading: str) -> str:
    """The ``heading`` line and everything up to the next ``## `` heading ("" if absent)."""
    start = text.find(f"\n{heading}\n")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start + 1 : end + 1 if end >= 0 else len(text)]


def replace_section(path: Path, heading: str, body: str) -> Path:
    """Put ``body`` under ``heading`` on the page, in place of that section or at its end."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    new = f"{heading}\n\n{body.strip()}\n"
    old = section(text, heading)
    text = text.replace(old, new) if old else f"{text.rstrip()}\n\n{new}"
    path.write_text(text, encoding="utf-8")
    return path


def write(path: Path, doc: dict[str, Any], columns: tuple[str, ...], verdict_line: str) -> Path:
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    kept = [part for heading in KEPT_SECTIONS if (part := section(old, heading))]
    path.write_text("\n".join([markdown(doc, columns, verdict_line), *kept]), encoding="utf-8")
    return path
