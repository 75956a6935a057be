"""verl's batches in the shapes the Cortex client takes, and its answers back in verl's.

verl hands the forwarder a TensorDict whose `input_ids` (and `position_ids`) are jagged:
each row is the prompt followed by the response, no padding. Its other per-token inputs
(`responses`, `response_mask`, `old_log_probs`, `advantages`, `ref_log_prob`) are
`[B, R]`, response-aligned and right-padded; `prompts` is `[B, P]` left-padded (or
jagged) and `attention_mask` `[B, P + R]`. The dense rows sent to Cortex are the
left-padded prompt then the right-padded response, `[B, P + R]`; a response-aligned
input left-padded with zeros to that width is in the contract's token-aligned layout.
Answers (`logprobs`, `entropy`) come back `[B, P + R]` in the roll layout; verl reads
them jagged again, row by row from the first attended column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

__all__ = ["dense_rows", "jagged_like", "left_padded", "lengths"]


def _rows(tensor: torch.Tensor) -> list[torch.Tensor]:
    return list(tensor.unbind()) if tensor.is_nested else list(tensor)


def lengths(data: Mapping[str, Any]) -> tuple[list[int], list[int], int, int]:
    """Per row: prompt and response lengths; then the padded widths P and R."""
    prompts, responses = data["prompts"], data["responses"]
    if prompts.is_nested:
        prompt_lens = [len(r) for r in _rows(prompts)]
        response_lens = [len(r) for r in _rows(responses)]
        return prompt_lens, response_lens, max(prompt_lens), max(response_lens)
    width = prompts.shape[1]
    mask = data["attention_mask"]
    prompt_lens = mask[:, :width].sum(dim=1).tolist()
    response_lens = mask[:, width:].sum(dim=1).tolist()
    return prompt_lens, response_lens, width, responses.shape[1]


def dense_rows(data: Mapping[str, Any], key: str, pad: int) -> torch.Tensor:
    """`data[key]` (jagged prompt + response rows) as `[B, P + R]`: the prompt left-padded
    to P, the response right-padded to R, with `pad`."""
    prompt_lens, response_lens, width_p, width_r = lengths(data)
    out = []
    for row, p_len, r_len in zip(_rows(data[key]), prompt_lens, response_lens, strict=True):
        if len(row) != p_len + r_len:
            raise ValueError(f"{key} row of {len(row)} tokens, expected {p_len} + {r_len}")
        left = row.new_full((width_p - p_len,), pad)
        right = row.new_full((width_r - r_len,), pad)
        out.append(torch.cat([left, row, right]))
    return torch.stack(out)


def left_padded(tensor: torch.Tensor, width: int) -> torch.Tensor:
    """A `[B, w]` response-aligned tensor as `[B, width]`, zeros on the left."""
    missing = width - tensor.shape[-1]
    if missing <= 0:
        return tensor
    return torch.cat([tensor.new_zeros(*tensor.shape[:-1], missing), tensor], dim=-1)


def jagged_like(data: Mapping[str, Any], answer: torch.Tensor) -> torch.Tensor:
    """A dense `[B, P + R]` answer as jagged rows shaped like `data["input_ids"]`: each row
    read from its first attended column, for as many tokens as the row has."""
    starts = data["attention_mask"].long().argmax(dim=1).tolist()
    pieces = [
        answer[b, start : start + len(row)]
        for b, (start, row) in enumerate(zip(starts, _rows(data["input_ids"]), strict=True))
    ]
    return torch.nested.nested_tensor(pieces, layout=torch.jagged)
