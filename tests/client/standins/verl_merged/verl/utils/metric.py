"""Replay of `verl.utils.metric`: a value and how verl aggregates it across ranks."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class AggregationType(Enum):
    MEAN = "mean"


@dataclass
class Metric:
    value: Any
    aggregation: AggregationType
