"""SkyRL's and verl's forward batches lowered onto today's Cortex service, and the answers
put back in the callers' layouts: the one place the legacy client converts.

What today's service reads (docs/layout.md, "Against today's service"): stock ``grpo`` takes
``kwargs {input_ids, attention_mask, position_ids?}``, ``context {input_ids, advantages,
loss_mask (bool), old_log_probs_shifted?}`` (each ``[B, T]`` in the predicting-position
frame: column ``k`` belongs to the prediction of token ``k + 1``) and ``processing {post:
[compute_logprobs], loss_fn: grpo, config {eps_clip, loss_agg_mode, entropy_coeff,
global_batch_size?, batch_num_tokens?}}``; no ``meta`` (so no ``dp_size``, which it would
divide the loss by). Rows must be left-aligned (each row's tokens in its leading columns) and the
answers come back in that aligned frame. A forward without gradients is the ``forward``
operation (`_forward_op`).

A request arrives here in the contract's layout (`_layout` has converted the
caller's): per-token inputs token-aligned and right-justified against ``input_ids``,
answers in the roll layout (column ``i`` scores token ``i + 1``). So a row plan moves
every token's values with the token, each grpo input moves one column left into the
predicting-position frame (``old_log_probs`` becomes ``old_log_probs_shifted``: column ``k``
of the aligned row scores its token ``k + 1``), and each answer column is scattered back to
the column the caller's token had.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arctic_rl._batch_checks import is_policy_loss
from arctic_rl._errors import UnexpectedAnswerError
from arctic_rl._loss_settings import Notes, check_temperature, first, grpo_config, refuse
from arctic_rl._results import as_tensor

if TYPE_CHECKING:
    import torch

__all__ = ["Lowered", "Notes", "RowPlan", "answered", "lower_forward", "lower_forward_backward"]


TODAY_POST = ["compute_logprobs"]
ENTROPY_POST = "compute_entropy_and_logprobs"
MODEL_INPUTS = ("input_ids", "attention_mask", "position_ids")


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
        columns = torch.arange(width, device=mask.device).expand_as(mask)
        lengths = mask.sum(dim=1, keepdim=True)
        valid = columns < lengths
        # Where each column goes: a token after the tokens before it, padding after the row's
        # tokens, both in their order (a stable sort's result, without sorting).
        tokens_before = mask.cumsum(dim=1) - 1
        to = torch.where(mask, tokens_before, lengths + columns - tokens_before - 1)
        order = torch.empty_like(columns).scatter_(1, to, columns)
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
        return moved.masked_fill_(~self.valid.to(tensor.device), 0)

    def counted_from_zero(self, positions: torch.Tensor) -> bool:
        """Whether aligned ``positions`` number each row's tokens 0, 1, ... (padding 0)."""
        import torch

        if positions.shape != self.order.shape:
            return False
        counted = torch.arange(self.width, device=positions.device) * self.valid
        return torch.equal(positions, counted.to(positions.dtype))

    def restore(self, aligned: Any, name: str) -> torch.Tensor:
        """An answer column put back where the caller's token was; padding zero."""
        import torch

        value = as_tensor(aligned)
        shape = list(value.shape) if isinstance(value, torch.Tensor) else "ragged"
        if shape != list(self.order.shape):
            raise UnexpectedAnswerError(
                f"the service answered {name} of shape {shape} for a batch of "
                f"{list(self.order.shape)} sent: it cannot be put back in the caller's layout"
            )
        out = torch.empty_like(value).scatter_(1, self.order.to(value.device), value)
        return out.masked_fill_(~self.mask.to(value.device), 0)[: self.rows]


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
    (column ``k`` belongs to the prediction of token ``k + 1``); the last column zero."""
    import torch

    out = torch.zeros_like(token_aligned)
    out[:, :-1] = token_aligned[:, 1:]
    return out


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
    """The model's inputs, aligned. ``position_ids`` are left out when they are the
    service's own for aligned rows (each row's tokens at 0, 1, ...: what a left-padded
    caller's count from its first token gives): a quarter less to send for no change."""
    import torch

    kwargs = {"input_ids": plan.align(tensors["input_ids"])}
    kwargs["attention_mask"] = plan.valid.to(tensors["attention_mask"].dtype)
    positions = tensors.get("position_ids")
    if isinstance(positions, torch.Tensor):
        aligned = plan.align(positions)
        if not plan.counted_from_zero(aligned):
            kwargs["position_ids"] = aligned
    return kwargs


def _require_model_inputs(tensors: Mapping[str, Any]) -> None:
    import torch

    for name in ("input_ids", "attention_mask"):
        value = tensors.get(name)
        if not isinstance(value, torch.Tensor) or value.dim() != 2:
            raise refuse(f"a batch without a 2-D {name}", "rows are aligned by it",
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
        raise refuse(f"loss_fn {loss!r}", "the legacy client lowers the GRPO family only",
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
    # Every grpo input in the predicting-position frame of the aligned rows.
    context: dict[str, Any] = {
        "input_ids": kwargs["input_ids"],
        "advantages": _shifted(plan.align(padded["advantages"])),
        "loss_mask": _shifted(plan.align(padded["loss_mask"])),
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
    # No context: a forward computes no loss (and input_ids twice would double the post).
    body = {"args": [], "kwargs": kwargs, "processing": {"post": list(TODAY_POST), "loss_fn": None}}
    return Lowered(body, plan, _wants_entropy(request))


def answered(
    lowered: Lowered, outputs: Mapping[str, Any], notes: Notes, *, required: bool = True
) -> dict[str, Any]:
    """The answer's per-token outputs in the caller's layout; entropy, which today's service
    does not compute, NaN (never invented) when the caller asked for it. A forward-backward's
    log-probs are ``required=False``: its callers read the loss and metrics."""
    import torch

    logprobs = first(outputs, "logprobs", "log_probs")
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
