"""Benchmarks run by ``python -m benchmarks`` (``make bench``); none are timed tests.

One module per goal of issue #13, each exposing ``run() -> list[dict]``: rows that carry
their goal, a ratio against a reference measured in the same run, and a verdict.
"""

from __future__ import annotations

MODULES: tuple[str, ...] = (
    "hotpath",
    "wan",
    "ingest",
    "codec",
    "throughput",
    "startup",
    "lowering",
)
"""Run in this order by ``python -m benchmarks``; ``--only NAME`` runs one."""
