"""The forward-backward objects today's clients send, shared by the conformance tests."""

from __future__ import annotations

from typing import Any

import torch

# What the published verl adapter asks of forward-backward (a backend contract, open).
ADAPTER_PROCESSING: dict[str, Any] = {"post": ["compute_logprobs"], "loss_fn": "grpo", "config": {}}


def token_ids(rows: int = 2, cols: int = 8) -> torch.Tensor:
    """Distinct byte-range token ids, [rows, cols]."""
    return torch.arange(rows * cols, dtype=torch.int64).reshape(rows, cols) % 250


def minimal_batch(rows: int = 2, cols: int = 8) -> dict[str, Any]:
    """The minimal object the service documents: ``{args: (), kwargs: {input_ids, labels}}``."""
    ids = token_ids(rows, cols)
    return {"args": (), "kwargs": {"input_ids": ids, "labels": ids.clone()}}


def adapter_batch(rows: int = 2, cols: int = 8) -> dict[str, Any]:
    """The object the published verl adapter sends: model kwargs plus a ``context`` block."""
    ids = token_ids(rows, cols)
    return {
        "args": (),
        "kwargs": {
            "input_ids": ids,
            "attention_mask": torch.ones_like(ids),
            "position_ids": torch.arange(cols).expand(rows, cols).clone(),
        },
        "context": {
            "input_ids": ids,
            "advantages": torch.linspace(-1.0, 1.0, rows * cols).reshape(rows, cols),
            "loss_mask": torch.ones(rows, cols, dtype=torch.bool),
        },
    }
