"""Replay of `verl.utils.hf_tokenizer` for the byte-level test model: pad id 0."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

CALLS: list[tuple[str, bool]] = []


def hf_tokenizer(path: str, trust_remote_code: bool = False, **_kwargs: Any) -> Any:
    CALLS.append((path, trust_remote_code))
    return SimpleNamespace(pad_token_id=None, eos_token_id=0)
