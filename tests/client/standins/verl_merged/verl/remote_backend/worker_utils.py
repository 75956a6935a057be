"""Replay of `verl.remote_backend.worker_utils.normalize_backend_metrics` (release/v0.7.1):
a `Metric` or a list passes through, a bare scalar becomes a MEAN `Metric`."""

from __future__ import annotations

from typing import Any

from verl.utils.metric import AggregationType, Metric


def normalize_backend_metrics(metrics: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in metrics.items():
        if isinstance(value, Metric | list):
            out[key] = value
        else:
            out[key] = Metric(value=value, aggregation=AggregationType.MEAN)
    return out
