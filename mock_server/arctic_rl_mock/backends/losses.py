"""The reference backend's losses: PPO-clip / GRPO, importance sampling, cross-entropy, KL.

Named and configured as verl and tinker name them (``loss_agg_mode``, ``kl_loss_type``,
``clip_ratio_low``/``eps_clip``...), so client code sees the losses it expects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch
from cortex_gs_contract import ErrorCode

from arctic_rl_mock.backends import BackendError
from arctic_rl_mock.backends.common import (
    DEFAULT_KL_COEF,
    TrainView,
    as_scalar,
)


def _aggregate(
    values: torch.Tensor, mask: torch.Tensor, mode: str, num_tokens: float | None
) -> torch.Tensor:
    """Reduce a per-token loss as verl-style ``loss_agg_mode`` names it."""
    if mode == "token-mean":
        denom = num_tokens if num_tokens else mask.sum().clamp(min=1.0)
        return (values * mask).sum() / denom
    per_seq = (values * mask).sum(-1)
    if mode == "seq-mean-token-sum":
        return per_seq.mean()
    if mode == "seq-mean-token-mean":
        return (per_seq / mask.sum(-1).clamp(min=1.0)).mean()
    if mode == "seq-mean-token-sum-norm":
        return per_seq.sum() / (mask.shape[0] * mask.shape[1])
    raise BackendError(ErrorCode.bad_value, f"unknown loss_agg_mode {mode!r}")


def _kl(logp: torch.Tensor, ref: torch.Tensor, kind: str) -> torch.Tensor:
    """Per-token KL estimators between policy and reference log-probs."""
    diff = ref - logp
    if kind in ("low_var_kl", "k3"):
        return (diff.clamp(-20, 20).exp() - diff - 1).clamp(-10, 10)
    if kind in ("kl", "k1"):
        return -diff
    if kind == "abs":
        return diff.abs()
    if kind in ("mse", "k2"):
        return 0.5 * diff.square()
    raise BackendError(ErrorCode.bad_value, f"unknown kl_loss_type {kind!r}")


def _first(cfg: Mapping[str, Any], *keys: str) -> Any:
    """The first of several synonymous config keys that is present (verl vs. tinker names)."""
    return next((cfg[k] for k in keys if cfg.get(k) is not None), None)


def _loss_family(name: str) -> str:
    """Map loss names (``grpo``, ``verl_grpo``, ``ppo``, ``vanilla``, ...) to a loss."""
    key = name.lower().removeprefix("verl_").removeprefix("verl.")
    if key in ("grpo", "ppo", "ppo_clip", "policy_loss", "vanilla", "clip"):
        return "clip"
    if key in ("importance_sampling", "is"):
        return "importance_sampling"
    if key in ("cross_entropy", "sft", "nll"):
        return "cross_entropy"
    raise BackendError(ErrorCode.bad_value, f"unknown loss_fn {name!r}")


@dataclass
class _Losses:
    """One forward-backward's loss and the metrics the contract names."""

    loss: torch.Tensor
    metrics: dict[str, float]


def policy_loss(logp: torch.Tensor, entropy: torch.Tensor, view: TrainView) -> _Losses:
    """PPO-clip / GRPO (with dual clip), importance sampling or cross-entropy loss."""
    cfg = view.config
    mask = view.mask.to(logp.device)
    adv = view.advantages.to(logp.device)
    old = logp.detach() if view.old_log_probs is None else view.old_log_probs.to(logp.device)
    mode = str(cfg.get("loss_agg_mode") or "token-mean")
    num_tokens = as_scalar(cfg.get("batch_num_tokens"), 0.0) or None
    eps_low = as_scalar(_first(cfg, "eps_clip", "clip_ratio_low", "clip_ratio"), 0.2)
    eps_high = as_scalar(_first(cfg, "eps_clip_high", "clip_ratio_high"), eps_low)
    clip_c = as_scalar(cfg.get("clip_ratio_c"), 3.0)

    log_ratio = (logp - old).clamp(-20.0, 20.0)
    ratio = log_ratio.exp()
    tokens = mask.sum().clamp(min=1.0)
    clip_frac_lower = torch.zeros((), device=logp.device)
    family = _loss_family(view.loss_fn)
    if family == "clip":
        unclipped = -adv * ratio
        clipped = -adv * ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
        per_token = torch.maximum(unclipped, clipped)
        dual = -adv * clip_c
        lower_active = (adv < 0) & (dual < per_token)
        per_token = torch.where(adv < 0, torch.minimum(per_token, dual), per_token)
        clip_frac_lower = (lower_active.float() * mask).sum() / tokens
    elif family == "importance_sampling":
        per_token = -adv * ratio
    else:  # cross_entropy: _loss_family refused every other name
        per_token = -logp
    if view.is_weights is not None:
        per_token = per_token * view.is_weights.to(logp.device)
    pg_loss = _aggregate(per_token, mask, mode, num_tokens)
    loss = pg_loss

    kl_coef = 0.0
    kl_loss = torch.zeros((), device=logp.device)
    if view.ref_log_prob is not None:
        kl_coef = as_scalar(cfg.get("kl_coef", cfg.get("kl_loss_coef")), DEFAULT_KL_COEF)
        kind = str(cfg.get("kl_loss_type") or "low_var_kl")
        kl_loss = _aggregate(
            _kl(logp, view.ref_log_prob.to(logp.device), kind), mask, mode, num_tokens
        )
        loss = loss + kl_coef * kl_loss
    entropy_coeff = as_scalar(cfg.get("entropy_coeff"), 0.0)
    if entropy_coeff:
        loss = loss - entropy_coeff * _aggregate(entropy, mask, mode, num_tokens)
    loss = loss * as_scalar(cfg.get("loss_scale"), 1.0)
    metrics = {
        "ppo_kl": float(((old - logp.detach()) * mask).sum() / tokens),
        "pg_clipfrac_lower": float(clip_frac_lower),
        "pg_loss": float(pg_loss.detach()),
        "kl_loss": float(kl_loss.detach()),
        "kl_coef": float(kl_coef),
        "entropy": float((entropy.detach() * mask).sum() / tokens),
    }
    return _Losses(loss=loss, metrics=metrics)


def mean_metrics(rows: list[dict[str, float]]) -> dict[str, float]:
    """Average per-call metrics over the calls accumulated into one step."""
    keys = ("ppo_kl", "pg_clipfrac_lower", "pg_loss", "kl_loss", "kl_coef")
    if not rows:
        return dict.fromkeys(keys, 0.0)
    return {k: sum(r.get(k, 0.0) for r in rows) / len(rows) for k in keys}
