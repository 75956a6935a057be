"""Generate lowered onto today's Cortex service: ``n`` fanned out, log-probs read by id.

Today's service has no ``n`` (n samples mean sending the prompt n times; an unknown
sampling parameter fails the request), and its per-position log-probs are dicts keyed by
the token id as a string, so the sampled token's log-prob is looked up by id, never by
position. The proposals answer one flat list, each prompt's ``n`` completions in a row;
the fanned-out answer is already that list, in that order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arctic_rl._errors import UnexpectedAnswerError
from arctic_rl._loss_settings import Notes

__all__ = ["fan_out", "sampled_logprobs"]


def _count(entry: Any) -> int:
    n = entry.get("n") if isinstance(entry, Mapping) else None
    return 1 if n is None else max(1, int(n))


def fan_out(
    prompts: Sequence[Any], params: Any, routing_key: Any, notes: Notes
) -> tuple[list[Any], Any, Any]:
    """(prompts, sampling_params, routing_key) with each prompt repeated its ``n`` times and
    ``n`` left out; a seed moves by one per copy, as vLLM's n samples differ."""
    per_prompt = isinstance(params, list)
    entries = params if per_prompt else [params] * len(prompts)
    if not any(isinstance(e, Mapping) and "n" in e for e in entries):
        return list(prompts), params, routing_key
    keys = routing_key if isinstance(routing_key, list) else None
    out_prompts: list[Any] = []
    out_params: list[Any] = []
    out_keys: list[Any] = []
    for index, (prompt, entry) in enumerate(zip(prompts, entries, strict=True)):
        base = {k: v for k, v in (entry or {}).items() if k != "n"}
        for copy in range(_count(entry)):
            seeded = dict(base)
            if base.get("seed") is not None and copy:
                seeded["seed"] = int(base["seed"]) + copy
                notes.once(
                    "seed", "n samples with a seed: copy k of a prompt is sent with seed + k"
                )
            out_prompts.append(prompt)
            out_params.append(seeded)
            if keys is not None:
                out_keys.append(keys[index])
    notes.once("n", "sampling n is sent as each prompt repeated n times (today's service has no n)")
    if not per_prompt and all(p == out_params[0] for p in out_params):
        return out_prompts, out_params[0], out_keys if keys is not None else routing_key
    return out_prompts, out_params, out_keys if keys is not None else routing_key


def sampled_logprobs(entry: Mapping[str, Any]) -> list[float] | None:
    """The sampled tokens' log-probs of one completion: read by id from today's per-position
    dicts (``{"<token id>": logprob or {"logprob": ...}}``), as given when already floats."""
    positions = entry.get("logprobs")
    if not positions or not isinstance(positions, Sequence):
        return None
    if not any(isinstance(p, Mapping) for p in positions):
        return [float(p) for p in positions]
    tokens = list(entry.get("token_ids") or [])
    if len(tokens) != len(positions):
        raise UnexpectedAnswerError(
            f"the service answered {len(positions)} log-prob positions for {len(tokens)} "
            "sampled tokens: they cannot be paired"
        )
    out = []
    for position, token in zip(positions, tokens, strict=True):
        found = position.get(str(token), position.get(token))
        if found is None:
            raise UnexpectedAnswerError(
                f"the service's log-probs omit sampled token {token} (ask for logprobs >= 0 "
                "in sampling_params so the sampled token is always included)"
            )
        out.append(float(found["logprob"] if isinstance(found, Mapping) else found))
    return out
