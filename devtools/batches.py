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


def skyrl_repack(prompts: list[list[int]], responses: list[list[int]]) -> dict[str, torch.Tensor]:
    """SkyRL's repack of token ids: prompts left-padded to the longest, responses
    right-padded to theirs (pad id 0), advantages spread over the response tokens."""
    width_p, width_r = max(map(len, prompts)), max(map(len, responses))
    rows = len(prompts)
    ids = torch.zeros(rows, width_p + width_r, dtype=torch.long)
    attention = torch.zeros_like(ids)
    response_mask = torch.zeros_like(ids)
    for i, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        ids[i, width_p - len(p) : width_p] = torch.tensor(p)
        ids[i, width_p : width_p + len(r)] = torch.tensor(r)
        attention[i, width_p - len(p) : width_p + len(r)] = 1
        response_mask[i, width_p : width_p + len(r)] = 1
    return {
        "input_ids": ids,
        "attention_mask": attention,
        "position_ids": (attention.cumsum(1) - 1).clamp(min=0),
        "response_mask": response_mask,
        "loss_mask": response_mask.clone(),
        "advantages": torch.linspace(-1, 1, rows)[:, None] * response_mask,
    }


# Per-token outputs (logprobs, entropy) come back in the roll layout: the input's [B, T].
OUTPUT_SHAPE = (len(PROMPTS), 16)


CHUNK_BYTES = 96 * 1024  # the batch below travels as three chunks


def big_batch() -> dict[str, Any]:
    """A training batch whose frame needs a few chunks at CHUNK_BYTES."""
    import torch

    return {**train_tensors(), "padding": torch.zeros(48, 1024)}
