"""Helpers of the end-to-end mock tests: batches, forced chunk envelopes, execution counts."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import torch

from devtools.live_mock import LiveMock, request_chunks

# The committed copy of the golden frames (shared/golden/dssst1), so no run depends on shared/.

GOLDEN = Path(__file__).resolve().parents[1] / "wire" / "golden"
SMALL_CHUNK = 512  # payload bytes per chunk, so small batches still span several chunks


def train_batch(bsz: int = 4, prompt: int = 6, response: int = 6, seed: int = 0) -> dict[str, Any]:
    """A verl-style ForwardBackwardBatch value."""
    gen = torch.Generator().manual_seed(seed)
    width = prompt + response
    ids = torch.randint(0, 256, (bsz, width), generator=gen)
    return {
        "args": [],
        "kwargs": {
            "input_ids": ids,
            "attention_mask": torch.ones(bsz, width, dtype=torch.int64),
            "position_ids": torch.arange(width).repeat(bsz, 1),
            "prompts": ids[:, :prompt],
            "responses": ids[:, prompt:],
            "response_mask": torch.ones(bsz, response, dtype=torch.int64),
            "advantages": torch.randn(bsz, response, generator=gen),
            "old_log_probs": torch.full((bsz, response), -5.5),
        },
        "meta": {"global_batch_size": bsz},
        "processing": {"post": ["logprobs", "entropy"], "loss_fn": "grpo", "config": {}},
    }


def chunks_of(
    value: Any, group: str, *, payload: int = SMALL_CHUNK, op: str = "fwd-bwd"
) -> list[bytes]:
    """Force a chunk envelope with small chunks and a chosen group id."""
    return request_chunks(value, payload_bytes=payload, group=group, operation=op)


def executions(mock: LiveMock, job_id: str, kind: str) -> int:
    """How many requests of ``kind`` the mock recorded for the job (read from its store)."""
    with sqlite3.connect(mock.state_dir / "mock.sqlite3") as db:
        query = "SELECT COUNT(*) FROM requests WHERE job_id = ? AND kind = ?"
        return int(db.execute(query, (job_id, kind)).fetchone()[0])
