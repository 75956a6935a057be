"""Sampling from a tiny LM (per-row temperature, top-k, top-p, max tokens, stops) and the
scoring requests both backends accept."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from cortex_gs_contract import ErrorCode

from arctic_rl_mock.backends import BackendError
from arctic_rl_mock.backends.common import EOS_ID
from arctic_rl_mock.backends.prompts import max_tokens_of
from arctic_rl_mock.backends.tiny import TinyLM, TokenScores


def sample(
    model: TinyLM,
    prompts: list[list[int]],
    params: list[dict[str, Any]],
    seed: int,
    device: torch.device,
) -> list[tuple[list[int], list[float], str]]:
    """Left-padded batched sampling; per-row temperature/top-k/top-p/max_tokens."""
    bsz = len(prompts)
    width = max(max(len(p) for p in prompts), 1)
    ids = torch.zeros(bsz, width, dtype=torch.int64)
    attn = torch.zeros(bsz, width, dtype=torch.int64)
    for row, prompt in enumerate(prompts):
        if prompt:
            ids[row, width - len(prompt) :] = torch.tensor(prompt)
            attn[row, width - len(prompt) :] = 1
    attn[:, -1] = 1  # an empty prompt still needs one visible position
    ids, attn = ids.to(device), attn.to(device)
    limits = [max_tokens_of(p) for p in params]
    temps = torch.tensor([float(p.get("temperature", 1.0) or 0.0) for p in params])
    gen = torch.Generator().manual_seed(seed)
    tokens: list[list[int]] = [[] for _ in range(bsz)]
    logprobs: list[list[float]] = [[] for _ in range(bsz)]
    reasons = ["length"] * bsz
    done = [limit == 0 for limit in limits]
    for _ in range(max(limits, default=0)):
        if all(done):
            break
        scores = model(ids, attn)[:, -1]
        last = TokenScores(scores.high.float().cpu(), scores.low.float().cpu())
        raw = last.log_softmax()
        scaled = last.scaled(temps.clamp(min=1e-6))
        choice = torch.where(temps <= 0, scaled.argmax(), _draw(scaled, params, gen))
        chosen = raw.at(choice)
        for row in range(bsz):
            if done[row]:
                continue
            tok = int(choice[row])
            tokens[row].append(tok)
            logprobs[row].append(float(chosen[row]))
            if tok == EOS_ID or tok in (params[row].get("stop_token_ids") or []):
                done[row], reasons[row] = True, "stop"
            elif len(tokens[row]) >= limits[row]:
                done[row] = True
        ids = torch.cat([ids, choice[:, None].to(device)], dim=1)
        attn = torch.cat([attn, torch.ones(bsz, 1, dtype=attn.dtype, device=device)], dim=1)
    return [(tokens[r], logprobs[r], reasons[r]) for r in range(bsz)]


def _draw(scores: TokenScores, params: list[dict[str, Any]], gen: torch.Generator) -> torch.Tensor:
    """One sampled id per row: from the two factors (any id of the vocabulary), or, for a
    row that asks for top-k or top-p, from its filtered distribution over every id."""
    drawn = []
    for row, p in enumerate(params):
        one = scores[row : row + 1]
        if int(p.get("top_k") or 0) > 0 or float(p.get("top_p") or 1.0) < 1.0:
            probs = _filter_logits(one.dense()[0], p).softmax(-1)
            drawn.append(torch.multinomial(probs, 1, generator=gen)[0])
        else:
            drawn.append(one.sample(gen)[0])
    return torch.stack(drawn)


def _filter_logits(logits: torch.Tensor, params: Mapping[str, Any]) -> torch.Tensor:
    """Apply top-k / top-p to one row of logits."""
    top_k = int(params.get("top_k") or 0)
    if 0 < top_k < logits.numel():
        cutoff = logits.topk(top_k).values[-1]
        logits = logits.masked_fill(logits < cutoff, float("-inf"))
    top_p = float(params.get("top_p") or 1.0)
    if top_p < 1.0:
        sorted_logits, order = logits.sort(descending=True)
        cum = sorted_logits.softmax(-1).cumsum(-1)
        drop = cum - sorted_logits.softmax(-1) > top_p
        logits = logits.masked_fill(torch.zeros_like(drop).scatter(0, order, drop), float("-inf"))
    return logits


def log_prob_inputs(request: Mapping[str, Any]) -> tuple[list[Any], list[Any], int]:
    """Validate a LogProbsRequest: prompts, optional matching completions, top_k."""
    prompts = request.get("prompts")
    if not isinstance(prompts, list) or not prompts:
        raise BackendError(ErrorCode.bad_value, "prompts must be a non-empty list")
    completions = request.get("completions")
    if completions is None:
        completions = [None] * len(prompts)
    elif not isinstance(completions, list) or len(completions) != len(prompts):
        raise BackendError(ErrorCode.bad_value, "completions must match prompts")
    return prompts, completions, int(request.get("top_k") or 0)
