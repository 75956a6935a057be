"""Each #13 goal as a verdict on its row: the goal in words, the ratio, "met" or "MISSED"."""

from __future__ import annotations

import operator
import os
from collections.abc import Callable
from typing import Any

MET, MISSED = "met", "MISSED"
_OPS: dict[str, Callable[[float, float], bool]] = {"<=": operator.le, ">=": operator.ge}


def check(value: float, op: str, target: float) -> bool:
    """``value op target`` for op in ``<=`` / ``>=``."""
    return _OPS[op](value, target)


def judge(row: dict[str, Any], goal: str, *checks: tuple[float, str, float]) -> dict[str, Any]:
    """The row with its goal and verdict: met only when every check holds."""
    met = all(check(value, op, target) for value, op, target in checks)
    return {**row, "goal": goal, "verdict": MET if met else MISSED}


def load1() -> float:
    """The 1-minute load average now (the machine is shared; numbers mean little without it)."""
    return round(os.getloadavg()[0], 2)
