"""Stock ``grpo`` (and ``grpo_echo_v1``): the loss today's service registers.

It reads ``context {input_ids, advantages, loss_mask (bool), old_log_probs_shifted?}`` and
``processing.config {eps_clip, loss_agg_mode, entropy_coeff, global_batch_size?,
batch_num_tokens?}``; every per-token tensor is ``[B, T]`` in the predicting-position frame
of the rows as sent (column ``k`` belongs to the prediction of token ``k + 1``, the frame
``compute_logprobs`` answers in; the last column predicts nothing). Without
``old_log_probs_shifted``, pi_old is the same forward's log-probs, detached, so the ratio is
exactly 1. The gradient with respect to the log-probs is ``-advantages * ratio``
(clipped at ``1 ± eps_clip``), aggregated by ``loss_agg_mode`` (token-mean over
``batch_num_tokens`` when given). A ``dp_size`` in the config divides the loss, as on the
service.

Each row is computed on its own (a forward and a backward per row, accumulated in row
order), so splitting a batch over several calls, with ``batch_num_tokens`` and
``global_batch_size`` given, changes no bit of the accumulated gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from cortex_gs_contract import ErrorCode

from arctic_rl_mock.backends import BackendError
from arctic_rl_mock.backends.common import as_scalar, input_ids_of, processing_of

STOCK_LOSSES = ("grpo", "grpo_echo_v1")
AGG_MODES = ("token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm")

# (input_ids [1, T], attention_mask [1, T], position_ids [1, T] or None) -> next-token scores
RowModel = Callable[[torch.Tensor, torch.Tensor, torch.Tensor | None], Any]


def is_stock_grpo(batch: Mapping[str, Any]) -> bool:
    """A grpo batch in today's shape: a registered grpo name, its inputs in ``context``."""
    context = batch.get("context")
    named = processing_of(batch).get("loss_fn") in STOCK_LOSSES
    return named and isinstance(context, Mapping) and context.get("advantages") is not None


def _frame(value: Any, name: str, shape: torch.Size) -> torch.Tensor:
    """A context tensor of the batch's ``[B, T]``, cut to the ``T - 1`` predicting columns."""
    if not isinstance(value, torch.Tensor) or value.shape != shape:
        raise BackendError(ErrorCode.bad_value, f"context.{name} must be a {list(shape)} tensor")
    return value[:, :-1]


@dataclass(frozen=True)
class StockGrpoBatch:
    """One grpo call's inputs, every per-token tensor ``[B, T - 1]``, predicting frame."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    position_ids: torch.Tensor | None
    advantages: torch.Tensor
    mask: torch.Tensor
    old_log_probs: torch.Tensor | None
    eps_clip: float
    agg_mode: str
    entropy_coeff: float
    num_tokens: float
    num_rows: float
    dp_size: float

    @classmethod
    def parse(cls, batch: Mapping[str, Any]) -> StockGrpoBatch:
        kwargs = batch.get("kwargs") if isinstance(batch.get("kwargs"), Mapping) else {}
        ids = input_ids_of(batch)
        if ids.shape[1] < 2:
            raise BackendError(ErrorCode.bad_value, "input_ids need at least two tokens per row")
        attn = kwargs.get("attention_mask")
        attn = torch.ones_like(ids) if attn is None else attn.to(torch.int64)
        pos = kwargs.get("position_ids")
        if attn.shape != ids.shape or (pos is not None and pos.shape != ids.shape):
            raise BackendError(ErrorCode.bad_value, "attention_mask and position_ids must match")
        context = batch["context"]
        loss_mask = context.get("loss_mask")
        if loss_mask is None:
            raise BackendError(ErrorCode.bad_value, "grpo needs context.loss_mask")
        mask = (_frame(loss_mask, "loss_mask", ids.shape) != 0) & (attn[:, 1:] != 0)
        old = context.get("old_log_probs_shifted")
        config = dict(processing_of(batch).get("config") or {})
        mode = str(config.get("loss_agg_mode") or "token-mean")
        if mode not in AGG_MODES:
            raise BackendError(ErrorCode.bad_value, f"unknown loss_agg_mode {mode!r}")
        mask = mask.to(torch.float32)
        return cls(
            input_ids=ids,
            attention_mask=attn,
            position_ids=None if pos is None else pos.to(torch.int64),
            advantages=_frame(context["advantages"], "advantages", ids.shape).to(torch.float32),
            mask=mask,
            old_log_probs=None
            if old is None
            else _frame(old, "old_log_probs_shifted", ids.shape).to(torch.float32),
            eps_clip=as_scalar(config.get("eps_clip"), 0.2),
            agg_mode=mode,
            entropy_coeff=as_scalar(config.get("entropy_coeff"), 0.0),
            num_tokens=as_scalar(config.get("batch_num_tokens"), 0.0)
            or float(mask.sum().clamp(min=1.0)),
            num_rows=as_scalar(config.get("global_batch_size"), 0.0) or float(ids.shape[0]),
            dp_size=as_scalar(config.get("dp_size"), 1.0) or 1.0,
        )

    def _aggregate(self, values: torch.Tensor, row: int) -> torch.Tensor:
        """One row's share of the call's loss (the rows' shares sum to the loss)."""
        mask = self.mask[row]
        total = (values * mask).sum()
        if self.agg_mode == "token-mean":
            return total / self.num_tokens
        if self.agg_mode == "seq-mean-token-sum":
            return total / self.num_rows
        if self.agg_mode == "seq-mean-token-mean":
            return total / mask.sum().clamp(min=1.0) / self.num_rows
        return total / (self.num_rows * mask.shape[0])

    def row_loss(
        self, row: int, logp: torch.Tensor, entropy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(row's loss share, its ratios) from its ``[T - 1]`` log-probs and entropy."""
        old = logp.detach() if self.old_log_probs is None else self.old_log_probs[row]
        ratio = (logp - old.to(logp.device)).exp()
        adv = self.advantages[row].to(logp.device)
        clipped = ratio.clamp(1.0 - self.eps_clip, 1.0 + self.eps_clip)
        per_token = torch.maximum(-adv * ratio, -adv * clipped)
        loss = self._aggregate(per_token, row)
        if self.entropy_coeff:
            loss = loss - self.entropy_coeff * self._aggregate(entropy, row)
        return loss / self.dp_size, ratio.detach()


def run_stock_grpo(
    batch: StockGrpoBatch,
    model: RowModel,
    logprobs_of: Callable[[Any, torch.Tensor], tuple[torch.Tensor, torch.Tensor]],
) -> tuple[float, torch.Tensor, dict[str, float]]:
    """Forward and backward row by row; (loss, ``[B, T - 1]`` log-probs, metrics)."""
    loss_total = 0.0
    rows = []
    ratios, clipped = [], []
    for row in range(batch.input_ids.shape[0]):
        ids = batch.input_ids[row : row + 1]
        pos = None if batch.position_ids is None else batch.position_ids[row : row + 1]
        scores = model(ids, batch.attention_mask[row : row + 1], pos)
        logp, entropy = logprobs_of(scores, ids[:, 1:])
        loss, ratio = batch.row_loss(row, logp[0], entropy[0])
        loss.backward()
        loss_total += float(loss.detach())
        rows.append(logp.detach().cpu())
        mask = batch.mask[row].to(ratio.device)
        ratios.append((ratio * mask).sum())
        outside = (ratio < 1.0 - batch.eps_clip) | (ratio > 1.0 + batch.eps_clip)
        clipped.append((outside.float() * mask).sum())
    tokens = float(batch.mask.sum().clamp(min=1.0))
    metrics = {
        "importance_weight": float(sum(ratios)) / tokens,
        "clip_ratio": float(sum(clipped)) / tokens,
    }
    return loss_total, torch.cat(rows, dim=0), metrics


__all__ = ["STOCK_LOSSES", "StockGrpoBatch", "is_stock_grpo", "run_stock_grpo"]
