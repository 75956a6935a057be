"""Replay of verl's `make_njt`: a dense [B, L] answer becomes a jagged tensor by taking,
per row, `length` values from the first attended position (`attention_mask.argmax(1)`),
with the lengths carried by the jagged `input_ids`."""

from __future__ import annotations

import torch


def make_njt(data: dict[str, torch.Tensor], tensor: torch.Tensor) -> torch.Tensor:
    offsets = data["input_ids"].offsets()
    lengths = offsets.diff()
    starts = data["attention_mask"].long().argmax(dim=1)
    rows = [
        tensor[b, int(starts[b]) : int(starts[b]) + int(lengths[b])] for b in range(len(lengths))
    ]
    return torch.nested.nested_tensor_from_jagged(torch.cat(rows), offsets)
