"""Per-token layouts: the contract's one input layout, and each client path's convention.

The contract (TrainBatch, `x-token-layout`; pictured in docs/layout.md): every per-token
input (`old_log_probs`, `ref_log_prob`, `advantages`, masks, `rollout_is_weights`) is
token-aligned and right-justified against `input_ids` `[B, T]`: column `j` of a `[B, w]`
tensor holds the value of token `input_ids[:, T - w + j]`. Answers (`logprobs`,
`entropy`) come back in the shifted (roll) layout: `[B, T]`, column `i` scores
`input_ids[:, i + 1]`, the last column zero.

A tensor does not say which layout it is in, and both frameworks send `[B, T]` log-prob
inputs. The native clients send what they are given: the contract's layout. The legacy
client (the one both frameworks hold) reads them by the convention of the path that built
it, the same way for every object that carries one (an answer, a clone, a row slice, a
concatenation):

- VERL (verl's plugin path): the adapter left-pads verl's response-aligned `[B, R]`
  tensors to `[B, T]`, which is the contract's layout already; sent as is.
- SKYRL (SkyRL's entrypoint and `use_cortex`): SkyRL sends its `fwd_no_grad` answer back
  as `old_log_probs`, so a `[B, T]` log-prob input is in the roll layout and moves one
  column right. SkyRL sends no narrower one: such a tensor's layout is unknown.
- UNDECLARED (the legacy factory outside both paths): a `[B, T]` log-prob input could be
  either framework's; a narrower one is the contract's.

The launcher path (`ARCTIC_RL_BACKEND=cortex` alone) has no integration to say which
framework runs; there the framework whose Arctic integration module is loaded in the
process says it (`loaded_framework`), and with neither or both, UNDECLARED.

An unknown layout is refused (`TokenLayoutError`), never guessed.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from arctic_rl._errors import TokenLayoutError

if TYPE_CHECKING:  # torch loads on first use: importing the client stays light
    import torch

__all__ = [
    "LOGPROB_INPUTS",
    "SKYRL",
    "UNDECLARED",
    "VERL",
    "Convention",
    "answer_as_input",
    "convention_named",
    "loaded_framework",
]

LOGPROB_INPUTS = ("old_log_probs", "ref_log_prob")
_SECTIONS = ("kwargs", "context")  # besides the top level, where a batch's tensors sit
Reading = Literal["token-aligned", "roll", "unknown"]

_TOKEN_ALIGNED = "token-aligned: column j of [B, w] is token T - w + j"
_ROLL = "the answers' roll layout: column i of [B, T] scores token i + 1"


def answer_as_input(answer: torch.Tensor) -> torch.Tensor:
    """A roll-layout `[B, T]` answer as a token-aligned `[B, T]` input: column `j` becomes
    `answer[:, j - 1]` (the log-probability of token `j`); column 0, which no token
    scores, is zero. The answer's last (wrapped) column is dropped."""
    import torch

    out = torch.zeros_like(answer)
    out[:, 1:] = answer[:, :-1]
    return out


@dataclass(frozen=True)
class Convention:
    """How one client path's `[B, T]` and narrower log-prob inputs are read."""

    name: str
    path: str  # the path, as error messages name it
    full_width: Reading
    narrower: Reading

    def to_contract(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """`request` with its log-prob inputs (at the top, in `kwargs`, in `context`) in
        the contract's layout; the caller's mappings stay untouched. Raises
        `TokenLayoutError` for one whose layout this path cannot know."""
        out = dict(request)
        if self.full_width == self.narrower == "token-aligned":
            return out
        width = _input_width(request)
        if width is None:  # no 2-D input_ids: the service refuses the batch itself
            return out
        out = self._converted(out, width)
        for section in _SECTIONS:
            part = out.get(section)
            if isinstance(part, Mapping):
                out[section] = self._converted(part, width)
        return out

    def _converted(self, part: Mapping[str, Any], width: int) -> dict[str, Any]:
        import torch

        out = dict(part)
        for name in LOGPROB_INPUTS:
            value = out.get(name)
            if not isinstance(value, torch.Tensor) or value.dim() != 2:
                continue  # not a [B, w] tensor: the service's 422 names it
            reading = self.full_width if value.shape[1] == width else self.narrower
            if reading == "unknown":
                raise self._refusal(name, tuple(value.shape), width)
            if reading == "roll":
                out[name] = answer_as_input(value)
        return out

    def _refusal(self, name: str, shape: tuple[int, ...], width: int) -> TokenLayoutError:
        rows, cols = shape
        if cols == width:
            why = (
                f"as wide as input_ids, it could be in SkyRL's layout ({_ROLL}) or in verl's "
                f"({_TOKEN_ALIGNED}); build the client through SkyRL's entrypoint "
                "(arctic_rl.integrations.skyrl) or verl's plugin (arctic_rl.integrations.verl), "
                f"or send {width - 1} columns (the answer without its last column)"
            )
        else:
            why = (
                f"SkyRL sends log-prob inputs only as wide as input_ids ({_ROLL}), so "
                f"{cols} columns have no known layout; send the whole [{rows}, {width}] answer"
            )
        return TokenLayoutError(
            f"{name} [{rows}, {cols}] (input_ids {width} columns wide) cannot be read on "
            f"{self.path}: {why}, or use the native client (AsyncArcticRLClient), which "
            "takes the contract's token-aligned layout (docs/layout.md)",
            details=[{"tensor": name, "shape": [rows, cols], "input_width": width}],
        )


VERL = Convention("verl", "verl's plugin path", "token-aligned", "token-aligned")
SKYRL = Convention("skyrl", "SkyRL's path", "roll", "unknown")
UNDECLARED = Convention(
    "undeclared", "the legacy client outside SkyRL's and verl's paths", "unknown", "token-aligned"
)
_BY_NAME = {c.name: c for c in (VERL, SKYRL, UNDECLARED)}


def convention_named(name: str | None) -> Convention:
    """The convention of this name (None: UNDECLARED)."""
    if name is None:
        return UNDECLARED
    try:
        return _BY_NAME[name]
    except KeyError:
        known = sorted(_BY_NAME)
        raise ValueError(f"unknown token-layout convention {name!r} (known: {known})") from None


# The module each framework's Arctic integration has loaded before it builds a client.
_FRAMEWORK_MODULES = {
    SKYRL.name: "integrations.arctic_rl.trainer",  # SkyRL's integrations/arctic_rl
    VERL.name: "arctic_platform.integrations.verl.adapter",  # verl's Arctic adapter
}


def loaded_framework() -> str | None:
    """The convention of the one framework whose Arctic integration this process has
    loaded; None when neither or both have (which one builds the client is then unknown)."""
    found = [name for name, module in _FRAMEWORK_MODULES.items() if module in sys.modules]
    return found[0] if len(found) == 1 else None


def _input_width(request: Mapping[str, Any]) -> int | None:
    """T of the request's 2-D `input_ids` (in `kwargs`, `context` or at the top)."""
    import torch

    for part in (*(request.get(s) for s in _SECTIONS), request):
        ids = part.get("input_ids") if isinstance(part, Mapping) else None
        if isinstance(ids, torch.Tensor) and ids.dim() == 2:
            return int(ids.shape[1])
    return None
