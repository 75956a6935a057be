"""What both backends read from a generation or scoring request: prompts as byte ids,
the sampling params of each prompt, routing keys, and the completions to make."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch
from cortex_gs_contract import ErrorCode

from arctic_rl_mock.backends import BackendError
from arctic_rl_mock.backends.common import BYTE_TOKENS, DEFAULT_MAX_TOKENS, VOCAB_SIZE


def encode_prompt(prompt: Any) -> list[int]:
    """Text -> UTF-8 byte ids; token lists pass through after a range check."""
    if isinstance(prompt, str):
        return list(prompt.encode("utf-8"))
    if isinstance(prompt, torch.Tensor):
        prompt = prompt.reshape(-1).tolist()
    if isinstance(prompt, Sequence) and all(isinstance(t, int) for t in prompt):
        ids = [int(t) for t in prompt]
        if any(t < 0 or t >= VOCAB_SIZE for t in ids):
            raise BackendError(ErrorCode.bad_value, f"token ids must lie in [0, {VOCAB_SIZE})")
        return ids
    raise BackendError(ErrorCode.bad_value, "each prompt must be a string or a list of token ids")


def decode_tokens(ids: Sequence[int]) -> str:
    """Byte ids -> text; EOS and reserved ids decode to nothing."""
    return bytes(t for t in ids if t < BYTE_TOKENS).decode("utf-8", errors="replace")


def _aligned(request: Mapping[str, Any], key: str) -> Sequence[Any] | None:
    """``request[key]`` when it is a per-prompt list (checked against ``prompts``)."""
    value = request.get(key)
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        return None
    if len(value) != len(request.get("prompts") or []):
        raise BackendError(ErrorCode.bad_value, f"a {key} list must have one entry per prompt")
    return value


def sampling_params_for(request: Mapping[str, Any], index: int) -> dict[str, Any]:
    """The sampling params of prompt ``index``: one object for all, or one per prompt,
    where a null entry means the defaults."""
    per_prompt = _aligned(request, "sampling_params")
    params = per_prompt[index] if per_prompt is not None else request.get("sampling_params")
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise BackendError(
            ErrorCode.bad_value, "sampling_params must be an object or a list of them"
        )
    return dict(params)


def check_routing(request: Mapping[str, Any]) -> None:
    """``routing_key``: one string, or one string-or-null per prompt; ``strict`` a bool.

    The keys only pin prompts to replicas (``strict`` makes that affinity binding); a
    single-replica mock has nothing to route, so they are validated and otherwise unused.
    """
    per_prompt = _aligned(request, "routing_key")
    keys = per_prompt if per_prompt is not None else [request.get("routing_key")]
    if not all(k is None or isinstance(k, str) for k in keys):
        raise BackendError(ErrorCode.bad_value, "routing_key must be a string or a list of strings")
    if not isinstance(request.get("strict", False), bool):
        raise BackendError(ErrorCode.bad_value, "strict must be a boolean")


def generation_rows(request: Mapping[str, Any]) -> list[tuple[list[int], dict[str, Any]]]:
    """(prompt ids, sampling params) per completion: each prompt ``n`` times, in order."""
    prompts = request.get("prompts")
    if not isinstance(prompts, Sequence) or isinstance(prompts, str) or not prompts:
        raise BackendError(ErrorCode.bad_value, "prompts must be a non-empty list")
    check_routing(request)
    rows = []
    for index, prompt in enumerate(prompts):
        params = sampling_params_for(request, index)
        ids = encode_prompt(prompt)
        rows += [(ids, params)] * max(int(params.get("n") or 1), 1)
    return rows


def max_tokens_of(params: Mapping[str, Any]) -> int:
    """``max_tokens`` (vLLM) or ``max_new_tokens`` (HF), bounded to keep the mock fast."""
    value = params.get("max_tokens", params.get("max_new_tokens", DEFAULT_MAX_TOKENS))
    value = int(value if value is not None else DEFAULT_MAX_TOKENS)
    if value < 0 or value > 4096:
        raise BackendError(ErrorCode.bad_value, "max_tokens must lie in [0, 4096]")
    return value
