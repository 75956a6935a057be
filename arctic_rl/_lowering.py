"""SkyRL's and verl's forward batches lowered onto today's Cortex service, and the answers
put back in the callers' layouts: the one place the legacy client converts.

What today's service reads (docs/lowering.md has the sources): stock ``grpo`` takes
``kwargs {input_ids, attention_mask, position_ids?}``, ``context {input_ids, advantages,
loss_mask (bool), old_log_probs_shifted?}`` and ``processing {post: [compute_logprobs],
loss_fn: grpo, config {eps_clip, loss_agg_mode, entropy_coeff, global_batch_size?,
batch_num_tokens?}}``; no ``meta`` (so no ``dp_size``, which it would divide the loss
by). Rows must be left-aligned (each row's tokens in its leading columns) and the
answers come back in that aligned frame. A forward without gradients is the ``forward``
operation (``forward_op``).

A request arrives here in the contract's layout (`integrations._layout` has converted the
caller's): per-token inputs token-aligned and right-justified against ``input_ids``,
answers in the roll layout (column ``i`` scores token ``i + 1``). So a row plan moves
every token's values with the token, ``old_log_probs`` becomes ``old_log_probs_shifted``
(column ``k`` of the aligned row scores its token ``k + 1``), and each answer column is
scattered back to the column the caller's token had.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arctic_rl._batch_checks import is_policy_loss
from arctic_rl._errors import NotServedError, UnexpectedAnswerError

if TYPE_CHECKING:
    import torch

__all__ = [
    "Lowered",
    "Notes",
    "RowPlan",
    "answered",
    "check_temperature",
    "grpo_config",
    "lower_forward",
    "lower_forward_backward",
]

log = logging.getLogger("arctic_rl")

TODAY_POST = ["compute_logprobs"]
ENTROPY_POST = "compute_entropy_and_logprobs"
# grpo's config keys (the published client's defaults for the first three).
GRPO_DEFAULTS: dict[str, Any] = {
    "eps_clip": 0.2,
    "loss_agg_mode": "token-mean",
    "entropy_coeff": 0.0,
}
GRPO_CONFIG = frozenset({*GRPO_DEFAULTS, "global_batch_size", "batch_num_tokens"})
MODEL_INPUTS = ("input_ids", "attention_mask", "position_ids")
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


def _first(mapping: Mapping[str, Any], *keys: str) -> Any:
    return next((mapping[k] for k in keys if mapping.get(k) is not None), None)


def _number(value: Any) -> float:
    item = getattr(value, "item", None)
    return float(item() if callable(item) else value)


def _refuse(setting: str, why: str, fix: str) -> NotServedError:
    return NotServedError(
        f"today's Cortex service cannot honour {setting}: {why}; {fix}",
        code="not_served",
        details=[{"setting": setting}],
    )


# -- rows --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowPlan:
    """How a batch's rows are sent: padded to the training GPUs' count with copies that
    carry no loss, then left-aligned; and how an answer is put back."""

    rows: int  # the caller's rows (the rest are padding)
    order: torch.Tensor  # aligned[:, j] = original[:, order[:, j]]
    valid: torch.Tensor  # the aligned frame's real tokens
    mask: torch.Tensor  # the caller's attention, as bool

    @classmethod
    def of(cls, attention_mask: torch.Tensor, rows: int) -> RowPlan:
        import torch

        mask = attention_mask.to(torch.bool)
        width = mask.shape[-1]
        lengths = mask.sum(dim=1, keepdim=True)
        valid = torch.arange(width, device=mask.device).unsqueeze(0) < lengths
        order = torch.argsort((~mask).to(torch.int8), dim=1, stable=True)
        return cls(rows, order, valid, mask)

    @property
    def width(self) -> int:
        return int(self.mask.shape[-1])

    def align(self, tensor: Any) -> Any:
        """A full-width ``[B, T]`` tensor's values moved with their tokens (padding zero)."""
        import torch

        if not isinstance(tensor, torch.Tensor) or tensor.dim() != 2:
            return tensor
        if tensor.shape != self.order.shape:
            return tensor
        moved = tensor.gather(1, self.order.to(tensor.device))
        return torch.where(self.valid.to(tensor.device), moved, torch.zeros_like(moved))

    def restore(self, aligned: Any, name: str) -> torch.Tensor:
        """An answer column put back where the caller's token was; padding zero."""
        import torch

        value = torch.as_tensor(aligned)
        if value.dim() != 2 or tuple(value.shape) != tuple(self.order.shape):
            raise UnexpectedAnswerError(
                f"the service answered {name} of shape {list(value.shape)} for a batch of "
                f"{list(self.order.shape)} sent: it cannot be put back in the caller's layout"
            )
        out = torch.zeros_like(value).scatter(1, self.order.to(value.device), value)
        out = torch.where(self.mask.to(value.device), out, torch.zeros_like(out))
        return out[: self.rows]


def _padded_rows(tensors: dict[str, Any], min_rows: int) -> tuple[dict[str, Any], int]:
    """Rows appended (copies of row 0's tokens, every other input zero) up to ``min_rows``:
    today's service refuses a batch with fewer rows than training GPUs."""
    import torch

    rows = int(tensors["input_ids"].shape[0])
    extra = min_rows - rows
    if extra <= 0:
        return tensors, rows
    out = {}
    for name, value in tensors.items():
        if not isinstance(value, torch.Tensor) or value.dim() == 0 or value.shape[0] != rows:
            out[name] = value
            continue
        filler = value[:1].expand(extra, *value.shape[1:])
        if name not in MODEL_INPUTS:
            filler = torch.zeros_like(filler)
        out[name] = torch.cat([value, filler])
    return out, rows


def _full_width(value: Any, width: int) -> Any:
    """A right-justified ``[B, w]`` input (the contract's layout) left-padded to ``[B, T]``."""
    import torch

    if not isinstance(value, torch.Tensor) or value.dim() != 2 or value.shape[1] >= width:
        return value
    pad = value.new_zeros(value.shape[0], width - value.shape[1])
    return torch.cat([pad, value], dim=1)


def _shifted(token_aligned: torch.Tensor) -> torch.Tensor:
    """Token-aligned values (column ``j`` is token ``j``) in the predicting-position frame
    (column ``k`` scores token ``k + 1``); the last column zero."""
    import torch

    out = torch.zeros_like(token_aligned)
    out[:, :-1] = token_aligned[:, 1:]
    return out


# -- the loss ----------------------------------------------------------------------------


def _kl_term(actor: Mapping[str, Any], tensors: Mapping[str, Any], notes: Notes) -> None:
    coef = _first(actor, "kl_loss_coef", "kl_coef")
    wanted = bool(actor.get("use_kl_loss")) or tensors.get("ref_log_prob") is not None
    if not wanted:
        return
    if coef is not None and _number(coef) == 0.0:
        notes.once("kl0", "use_kl_loss with kl_loss_coef 0 adds nothing: no KL term is sent")
        return
    raise _refuse(
        "use_kl_loss (a KL loss term against the reference model)",
        "its grpo has no KL term",
        "set actor_rollout_ref.actor.use_kl_loss=false (verl) or trainer.algorithm.use_kl_loss="
        "false (SkyRL), or put the KL penalty in the reward (algorithm.use_kl_in_reward)",
    )


def _clip(settings: Mapping[str, Any], notes: Notes) -> float:
    low = _first(settings, "eps_clip", "clip_ratio_low", "clip_ratio")
    high = _first(settings, "eps_clip_high", "clip_ratio_high", "clip_ratio")
    low = GRPO_DEFAULTS["eps_clip"] if low is None else _number(low)
    high = low if high is None else _number(high)
    if abs(low - high) > 1e-12:
        raise _refuse(
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
    raise _refuse(
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
        raise _refuse(f"policy loss_mode {mode!r}", "its grpo is the vanilla PPO-clip loss",
                      "set policy_loss.loss_mode=vanilla")  # fmt: skip
    _kl_term(settings, tensors, notes)
    weights = meta.get("rollout_is_weights")
    _importance_weights(tensors.get("rollout_is_weights") if weights is None else weights, notes)
    config = {
        "eps_clip": _clip(settings, notes),
        "loss_agg_mode": str(settings.get("loss_agg_mode") or GRPO_DEFAULTS["loss_agg_mode"]),
        "entropy_coeff": _number(_first(settings, "entropy_coeff", "entropy_coef") or 0.0),
    }
    for key in ("global_batch_size", "batch_num_tokens"):
        value = _first(given, key) if key in given else meta.get(key)
        if value is not None:
            config[key] = int(_number(value))
    mapped = {"clip_ratio", "clip_ratio_low", "clip_ratio_high", "clip_ratio_c", "eps_clip_high",
              "use_kl_loss", "kl_loss_coef", "kl_coef", "kl_loss_type", "entropy_coef",
              "policy_loss", "loss_scale_factor"}  # fmt: skip
    unknown = sorted(set(given) - GRPO_CONFIG - mapped)
    if unknown:
        raise _refuse(f"processing.config {unknown}", "its grpo reads only "
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
    raise _refuse(
        f"temperature {_number(value)}",
        "its trainer scores at temperature 1.0 only (no apply_temperature post-processor)",
        "sample at temperature 1.0 (generator.sampling_params.temperature in SkyRL, "
        "actor_rollout_ref.rollout.temperature in verl)",
    )


# -- requests ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Lowered:
    """A lowered body and what its answer needs to be put back."""

    body: dict[str, Any]
    plan: RowPlan
    wants_entropy: bool


def _inputs(request: Mapping[str, Any]) -> dict[str, Any]:
    """The batch's tensors: ``kwargs`` then ``context`` (the contract's sections)."""
    return {**(request.get("context") or {}), **(request.get("kwargs") or {})}


def _wants_entropy(request: Mapping[str, Any]) -> bool:
    post = (request.get("processing") or {}).get("post") or []
    return ENTROPY_POST in post or bool((request.get("meta") or {}).get("calculate_entropy"))


def _model_kwargs(tensors: Mapping[str, Any], plan: RowPlan) -> dict[str, Any]:
    import torch

    kwargs = {"input_ids": plan.align(tensors["input_ids"])}
    kwargs["attention_mask"] = plan.valid.to(tensors["attention_mask"].dtype)
    if isinstance(tensors.get("position_ids"), torch.Tensor):
        kwargs["position_ids"] = plan.align(tensors["position_ids"])
    return kwargs


def _require_model_inputs(tensors: Mapping[str, Any]) -> None:
    import torch

    for name in ("input_ids", "attention_mask"):
        value = tensors.get(name)
        if not isinstance(value, torch.Tensor) or value.dim() != 2:
            raise _refuse(f"a batch without a 2-D {name}", "rows are aligned by it",
                          f"send {name} [B, T]")  # fmt: skip


def lower_forward_backward(request: Mapping[str, Any], *, min_rows: int, notes: Notes) -> Lowered:
    """A forward-backward request in the contract's layout, as today's service takes it."""
    import torch

    meta = dict(request.get("meta") or {})
    processing = dict(request.get("processing") or {})
    tensors = _inputs(request)
    _require_model_inputs(tensors)
    check_temperature(meta)
    loss = processing.get("loss_fn")
    if not is_policy_loss(loss):
        raise _refuse(f"loss_fn {loss!r}", "the legacy client lowers the GRPO family only",
                      "use the native client (AsyncArcticRLClient) for other losses")  # fmt: skip
    config = grpo_config(meta, processing, tensors, notes)
    if meta.get("dp_size") is not None:
        notes.once("dp", "dp_size is not sent: today's service divides the loss by it")
    width = int(tensors["input_ids"].shape[1])
    loss_mask = tensors.get("loss_mask", tensors.get("response_mask"))
    scored = {
        "advantages": _full_width(tensors["advantages"], width),
        "loss_mask": _full_width(loss_mask, width).to(torch.bool),
    }
    if isinstance(tensors.get("old_log_probs"), torch.Tensor):
        scored["old_log_probs"] = _full_width(tensors["old_log_probs"], width)
    padded, rows = _padded_rows({**tensors, **scored}, min_rows)
    if rows < min_rows:
        notes.once("pad", f"a batch of {rows} rows is padded to {min_rows} (the job's training "
                   "GPUs) with rows that carry no loss")  # fmt: skip
    plan = RowPlan.of(padded["attention_mask"], rows)
    kwargs = _model_kwargs(padded, plan)
    context: dict[str, Any] = {
        "input_ids": kwargs["input_ids"],
        "advantages": plan.align(padded["advantages"]),
        "loss_mask": plan.align(padded["loss_mask"]),
    }
    if "old_log_probs" in padded:
        context["old_log_probs_shifted"] = _shifted(plan.align(padded["old_log_probs"]))
    body = {
        "args": [],
        "kwargs": kwargs,
        "context": context,
        "processing": {"post": list(TODAY_POST), "loss_fn": "grpo", "config": config},
    }
    if loss != "grpo":
        notes.once("loss", f"loss_fn {loss!r} is sent as today's grpo, its settings mapped")
    return Lowered(body, plan, _wants_entropy(request))


def lower_forward(request: Mapping[str, Any], *, min_rows: int, notes: Notes) -> Lowered:
    """A forward without gradients (the ``forward`` operation's frame), rows aligned."""
    check_temperature(request.get("meta") or {})
    tensors = _inputs(request)
    _require_model_inputs(tensors)
    model = {k: tensors[k] for k in MODEL_INPUTS if k in tensors}
    padded, rows = _padded_rows(model, min_rows)
    plan = RowPlan.of(padded["attention_mask"], rows)
    kwargs = _model_kwargs(padded, plan)
    body = {
        "args": [],
        "kwargs": kwargs,
        "context": {"input_ids": kwargs["input_ids"]},
        "processing": {"post": list(TODAY_POST), "loss_fn": None},
    }
    return Lowered(body, plan, _wants_entropy(request))


def answered(
    lowered: Lowered, outputs: Mapping[str, Any], notes: Notes, *, required: bool = True
) -> dict[str, Any]:
    """The answer's per-token outputs in the caller's layout; entropy, which today's service
    does not compute, NaN (never invented) when the caller asked for it. A forward-backward's
    log-probs are ``required=False``: its callers read the loss and metrics."""
    import torch

    logprobs = _first(outputs, "logprobs", "log_probs")
    if logprobs is None and not required:
        return {}
    if logprobs is None:
        raise UnexpectedAnswerError(
            f"the service answered no log-probs (keys {sorted(outputs)}), asked for with "
            "compute_logprobs"
        )
    out = {"logprobs": lowered.plan.restore(logprobs, "logprobs")}
    if lowered.wants_entropy:
        notes.once(
            "entropy",
            "today's service computes no entropy: batch.entropy is NaN (verl and SkyRL then "
            "log their entropy metrics as nan)",
        )
        out["entropy"] = torch.full_like(out["logprobs"], float("nan"))
    return out
