"""Per-token layouts: the contract's one input layout, and the frameworks' conversions to it.

The contract (TrainBatch, `x-token-layout`): every per-token input (`old_log_probs`,
`ref_log_prob`, `advantages`, `loss_mask`, `response_mask`, `rollout_is_weights`) is
token-aligned and right-justified against `input_ids` `[B, T]`: column `j` of a `[B, w]`
tensor holds the value of token `input_ids[:, T - w + j]`. Answers (`logprobs`,
`entropy`) come back in the shifted (roll) layout: `[B, T]`, column `i` scores
`input_ids[:, i + 1]`, the last column zero.

What the frameworks send:

- verl's adapter left-pads its response-aligned `[B, R]` tensors to `[B, T]` (and puts
  `rollout_is_weights` `[B, R]` in `meta`): already the contract's layout, sent as is.
- SkyRL sends the `[B, T]` `logprobs` answer of its `fwd_no_grad` back, unchanged, as
  `old_log_probs` (its advantages and masks are token-aligned like verl's): that one
  tensor is in the roll layout and must move one column right.

The legacy client cannot tell the two apart from shapes (both are `[B, T]`, both frameworks
name the loss `verl_grpo`), so it remembers the log-prob answers it handed out
(`AnswerLog`, by identity, weakly) and converts exactly those when they come back under a
log-prob input name. Any other tensor is taken to be in the contract's layout already.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # torch loads on first use: importing the client stays light
    import torch

__all__ = ["ANSWER_KEYS", "LOGPROB_INPUTS", "AnswerLog", "answer_as_input"]

LOGPROB_INPUTS = ("old_log_probs", "ref_log_prob")
ANSWER_KEYS = ("logprobs", "log_probs")
_SECTIONS = ("kwargs", "context")


def answer_as_input(answer: torch.Tensor) -> torch.Tensor:
    """A roll-layout `[B, T]` answer as a token-aligned `[B, T]` input: column `j` becomes
    `answer[:, j - 1]` (the log-probability of token `j`); column 0, which no token
    scores, is zero. The answer's last (wrapped) column is dropped."""
    import torch

    out = torch.zeros_like(answer)
    out[:, 1:] = answer[:, :-1]
    return out


class AnswerLog:
    """The log-prob answers one client handed out, held weakly (a dead one is forgotten)."""

    def __init__(self) -> None:
        self._held: weakref.WeakValueDictionary[int, torch.Tensor] = weakref.WeakValueDictionary()

    def remember(self, outputs: Mapping[str, Any]) -> None:
        """Note the `logprobs` / `log_probs` tensors of an answer's outputs."""
        import torch

        for key in ANSWER_KEYS:
            value = outputs.get(key)
            if isinstance(value, torch.Tensor):
                self._held[id(value)] = value

    def handed_out(self, value: Any) -> bool:
        """Whether `value` is (the very object of) an answer this log holds."""
        return value is not None and self._held.get(id(value)) is value

    def to_contract(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """`request` with every handed-out answer under a log-prob input name (at the top,
        in `kwargs` or in `context`) token-aligned; the caller's mappings stay untouched."""
        out = self._converted(request)
        for section in _SECTIONS:
            part = out.get(section)
            if isinstance(part, Mapping):
                out[section] = self._converted(part)
        return out

    def _converted(self, part: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(part)
        for name in LOGPROB_INPUTS:
            if self.handed_out(out.get(name)):
                out[name] = answer_as_input(out[name])
        return out
