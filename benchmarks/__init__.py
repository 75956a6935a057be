"""Benchmarks run by ``python -m benchmarks`` (``make bench``); none are timed tests."""

from __future__ import annotations

from pathlib import Path

_OPTIONAL = ("load",)  # written by the fuzz/faults work; run when present
MODULES: tuple[str, ...] = (
    "codec",
    "client",
    "imports",
    *(m for m in _OPTIONAL if (Path(__file__).parent / f"{m}.py").is_file()),
)
"""Benchmark modules; each exposes ``run() -> list[dict]``."""
