"""The frameworks' loss settings as today's stock ``grpo`` takes them, or refused.

verl and SkyRL describe their policy loss with verl's actor settings (``meta.actor_config``,
``meta.policy_loss_config``, ``processing.config``): clip ratios, aggregation, entropy and KL
coefficients. Today's ``grpo`` reads ``config {eps_clip, loss_agg_mode, entropy_coeff,
global_batch_size?, batch_num_tokens?}``: a setting it cannot honour is refused, naming the
setting and the fix; one that provably changes nothing for the run is accepted and named
in one log line (`Notes`); none is dropped silently.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arctic_rl._errors import NotServedError

__all__ = ["GRPO_CONFIG", "Notes", "check_temperature", "first", "grpo_config", "refuse"]

log = logging.getLogger("arctic_rl")

# grpo's config keys (the published client's defaults for the first three).
GRPO_DEFAULTS: dict[str, Any] = {
    "eps_clip": 0.2,
    "loss_agg_mode": "token-mean",
    "entropy_coeff": 0.0,
}
GRPO_CONFIG = frozenset({*GRPO_DEFAULTS, "global_batch_size", "batch_num_tokens"})
# verl's actor settings that are not loss settings: the client has nothing to map.
_NOT_LOSS = frozenset(
    {"ppo_epochs", "ppo_mini_batch_size", "ppo_micro_batch_size_per_gpu", "shuffle", "optim"}
)


@dataclass
class Notes:
    """Log lines said once per client: what the lowering accepted and why (never silent)."""

    said: set[str] = field(default_factory=set)

    def once(self, key: str, message: str) -> None:
        if key not in self.said:
            self.said.add(key)
            log.info("arctic_rl: %s", message)


def first(mapping: Mapping[str, Any], *keys: str) -> Any:
    return next((mapping[k] for k in keys if mapping.get(k) is not None), None)


def _number(value: Any) -> float:
    item = getattr(value, "item", None)
    return float(item() if callable(item) else value)


def refuse(setting: str, why: str, fix: str) -> NotServedError:
    return NotServedError(
        f"today's Cortex service cannot honour {setting}: {why}; {fix}",
        code="not_served",
        details=[{"setting": setting}],
    )


def _kl_term(actor: Mapping[str, Any], tensors: Mapping[str, Any], notes: Notes) -> None:
    coef = first(actor, "kl_loss_coef", "kl_coef")
    wanted = bool(actor.get("use_kl_loss")) or tensors.get("ref_log_prob") is not None
    if not wanted:
        return
    if coef is not None and _number(coef) == 0.0:
        notes.once("kl0", "use_kl_loss with kl_loss_coef 0 adds nothing: no KL term is sent")
        return
    raise refuse(
        "use_kl_loss (a KL loss term against the reference model)",
        "its grpo has no KL term",
        "set actor_rollout_ref.actor.use_kl_loss=false (verl) or trainer.algorithm.use_kl_loss="
        "false (SkyRL), or put the KL penalty in the reward (algorithm.use_kl_in_reward)",
    )


def _clip(settings: Mapping[str, Any], notes: Notes) -> float:
    low = first(settings, "eps_clip", "clip_ratio_low", "clip_ratio")
    high = first(settings, "eps_clip_high", "clip_ratio_high", "clip_ratio")
    low = GRPO_DEFAULTS["eps_clip"] if low is None else _number(low)
    high = low if high is None else _number(high)
    if abs(low - high) > 1e-12:
        raise refuse(
            f"an asymmetric clip (clip_ratio_low {low}, clip_ratio_high {high})",
            "its grpo clips the ratio to [1 - eps_clip, 1 + eps_clip]",
            "set one clip_ratio (or clip_ratio_low = clip_ratio_high)",
        )
    dual = settings.get("clip_ratio_c")
    if dual is not None:
        notes.once(
            "dual",
            f"clip_ratio_c {dual} (verl's dual clip) is not sent: today's grpo has none; it "
            "bounds only tokens whose ratio exceeds it, and the ratio is exactly 1 on a "
            "single update from the policy's own log-probs",
        )
    return low


def _importance_weights(weights: Any, notes: Notes) -> None:
    import torch

    if weights is None:
        return
    if isinstance(weights, torch.Tensor) and bool((weights == 1).all()):
        notes.once("is1", "rollout_is_weights are all 1 (no correction): not sent")
        return
    raise refuse(
        "rollout_is_weights (rollout importance-sampling correction)",
        "its grpo takes no per-token weights",
        "turn the correction off (algorithm.rollout_is=false in verl)",
    )


def grpo_config(
    meta: Mapping[str, Any], processing: Mapping[str, Any], tensors: Mapping[str, Any], notes: Notes
) -> dict[str, Any]:
    """grpo's ``processing.config`` from the frameworks' loss settings; a setting it cannot
    honour is refused naming the fix, one without effect named in a log line."""
    actor = dict(meta.get("actor_config") or {})
    given = dict(processing.get("config") or {})
    settings = {**actor, **given}
    policy = dict(meta.get("policy_loss_config") or actor.get("policy_loss") or {})
    mode = policy.get("loss_mode", "vanilla")
    if mode != "vanilla":
        raise refuse(f"policy loss_mode {mode!r}", "its grpo is the vanilla PPO-clip loss",
                      "set policy_loss.loss_mode=vanilla")  # fmt: skip
    _kl_term(settings, tensors, notes)
    weights = meta.get("rollout_is_weights")
    _importance_weights(tensors.get("rollout_is_weights") if weights is None else weights, notes)
    config = {
        "eps_clip": _clip(settings, notes),
        "loss_agg_mode": str(settings.get("loss_agg_mode") or GRPO_DEFAULTS["loss_agg_mode"]),
        "entropy_coeff": _number(first(settings, "entropy_coeff", "entropy_coef") or 0.0),
    }
    for key in ("global_batch_size", "batch_num_tokens"):
        value = first(given, key) if key in given else meta.get(key)
        if value is not None:
            config[key] = int(_number(value))
    mapped = {"clip_ratio", "clip_ratio_low", "clip_ratio_high", "clip_ratio_c", "eps_clip_high",
              "use_kl_loss", "kl_loss_coef", "kl_coef", "kl_loss_type", "entropy_coef",
              "policy_loss", "loss_scale_factor"}  # fmt: skip
    unknown = sorted(set(given) - GRPO_CONFIG - mapped)
    if unknown:
        raise refuse(f"processing.config {unknown}", "its grpo reads only "
                      f"{sorted(GRPO_CONFIG)}", "leave these settings out")  # fmt: skip
    ignored = sorted(set(actor) - GRPO_CONFIG - mapped - _NOT_LOSS)
    if ignored:
        notes.once("actor", f"actor_config {ignored} are not loss settings grpo reads: not sent")
    return config


def check_temperature(meta: Mapping[str, Any]) -> None:
    """Today's trainer scores at temperature 1.0 only (it has no apply_temperature)."""
    value = meta.get("temperature")
    if value is None or _number(value) == 1.0:
        return
    raise refuse(
        f"temperature {_number(value)}",
        "its trainer scores at temperature 1.0 only (no apply_temperature post-processor)",
        "sample at temperature 1.0 (generator.sampling_params.temperature in SkyRL, "
        "actor_rollout_ref.rollout.temperature in verl)",
    )
