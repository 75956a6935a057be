"""Byte-level batches shaped like the ones SkyRL and verl send ([B, P+R], prompts [B, P])."""

from __future__ import annotations

from typing import Any

import torch

PROMPTS = ["2 + 2 =", "the sky is"]


def train_tensors(prompt_len: int = 8, response_len: int = 8) -> dict[str, torch.Tensor]:
    """The tensors SkyRL passes to fwd_bwd (ids are bytes: the mock's token space), but
    `old_log_probs` response-wide, as verl sends it: the one layout every client reads
    alike (a full-width one is read by the path's convention, docs/layout.md)."""
    batch = len(PROMPTS)
    total = prompt_len + response_len
    prompts = torch.tensor(
        [list(p.encode()[:prompt_len].ljust(prompt_len, b" ")) for p in PROMPTS], dtype=torch.long
    )
    responses = torch.full((batch, response_len), ord("a"), dtype=torch.long)
    input_ids = torch.cat([prompts, responses], dim=1)
    response_mask = torch.zeros(batch, total, dtype=torch.long)
    response_mask[:, prompt_len:] = 1
    return {
        "input_ids": input_ids,
        "attention_mask": torch.ones(batch, total, dtype=torch.long),
        "position_ids": torch.arange(total).repeat(batch, 1),
        "loss_mask": response_mask.clone(),
        "response_mask": response_mask,
        "advantages": torch.linspace(-1, 1, batch * total).reshape(batch, total),
        "old_log_probs": torch.full((batch, response_len), -5.0),
        "prompts": prompts,
        "responses": responses,
    }


# Per-token outputs (logprobs, entropy) come back in the roll layout: the input's [B, T].
OUTPUT_SHAPE = (len(PROMPTS), 16)


CHUNK_BYTES = 96 * 1024  # the batch below travels as three chunks


def big_batch() -> dict[str, Any]:
    """A training batch whose frame needs a few chunks at CHUNK_BYTES."""
    import torch

    return {**train_tensors(), "padding": torch.zeros(48, 1024)}
