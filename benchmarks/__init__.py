"""Benchmarks run by ``python -m benchmarks`` (``make bench``); none are timed tests."""

from __future__ import annotations

MODULES: tuple[str, ...] = ("codec",)
"""Benchmark modules; each exposes ``run() -> list[dict]``."""
