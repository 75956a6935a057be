"""Cost budgets: what one data-plane request may make the service compute, from its shape.

The contract's limits table (openapi/cortex_gs.yaml, "Proposed: limits") bounds each
field of a request, and, here, the work the fields multiply into:

- a ``forward-backward`` or ``forward-no-grad`` batch costs rows x width² (its
  ``input_ids`` shape; attention activations grow with the square of the width);
- a ``generate`` or ``generate-stream`` costs the tokens it may produce: the sum over
  its prompts of ``n`` x ``max_tokens``.

The service refuses a request over a budget with ``422`` and the budget's code before
any work; the client checks the same before it uploads a frame. The estimate reads only
shapes and numbers, never tensor data, so it is cheap on any batch. Where a field is
missing it counts as 1 (``n``) or as ``default_max_tokens`` (the service's default; the
client, not knowing it, counts 0 and leaves the last word to the service).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cortex_gs_contract import ErrorCode

from arctic_rl._errors import InvalidRequestError

__all__ = [
    "BATCH_CODE",
    "GENERATION_CODE",
    "MAX_BATCH_COST",
    "MAX_GENERATION_TOKENS",
    "Overrun",
    "input_shape",
    "lookup",
    "over_budget",
    "refuse_over_budget",
]

# The contract's budgets (its limits table); a service may allow more, never less.
MAX_BATCH_COST = 1 << 26
MAX_GENERATION_TOKENS = 1 << 22
BATCH_CODE = ErrorCode.batch_over_budget.value
GENERATION_CODE = ErrorCode.generation_over_budget.value
BATCH_KINDS = frozenset({"forward_backward", "forward_no_grad"})
GENERATION_KINDS = frozenset({"generate", "generate_stream"})
_SECTIONS = ("kwargs", "context")


@dataclass(frozen=True)
class Overrun:
    """A request over a budget: the budget's code, a message, where the cost comes from."""

    code: str
    message: str
    loc: tuple[str, ...]


def over_budget(
    kind: str,
    value: Any,
    *,
    max_batch_cost: int = MAX_BATCH_COST,
    max_generation_tokens: int = MAX_GENERATION_TOKENS,
    default_max_tokens: int = 0,
) -> Overrun | None:
    """The budget request ``value`` of operation ``kind`` breaks, if any."""
    if not isinstance(value, Mapping):
        return None
    if kind in BATCH_KINDS:
        shape = input_shape(value)
        cost = shape[0] * shape[1] ** 2 if shape is not None else 0
        if cost > max_batch_cost:
            rows, width = shape or (0, 0)
            message = (
                f"a batch of {rows} rows {width} tokens wide costs {cost} (rows x width²); "
                f"the budget is {max_batch_cost}: send fewer rows or shorter sequences"
            )
            return Overrun(BATCH_CODE, message, ("kwargs", "input_ids"))
    if kind in GENERATION_KINDS:
        tokens = generation_tokens(value, default_max_tokens)
        if tokens > max_generation_tokens:
            message = (
                f"this generation may produce {tokens} tokens (prompts x n x max_tokens); "
                f"the budget is {max_generation_tokens}: send fewer prompts, a smaller n "
                "or a lower max_tokens"
            )
            return Overrun(GENERATION_CODE, message, ("sampling_params",))
    return None


def refuse_over_budget(kind: str, value: Any) -> None:
    """The client's check before an upload: the contract's budgets, as the service's 422."""
    overrun = over_budget(kind, value)
    if overrun is not None:
        issue = {"loc": ["body", *overrun.loc], "msg": overrun.message, "type": overrun.code}
        raise InvalidRequestError(overrun.message, code=overrun.code, details=[issue])


def input_shape(value: Mapping[str, Any]) -> tuple[int, int] | None:
    """(rows, width) of a batch's ``input_ids`` (a tensor or nested lists), if it has any."""
    ids = lookup(value, "input_ids")
    shape = getattr(ids, "shape", None)
    if shape is not None and len(shape) >= 1:
        dims = [int(d) for d in shape]
        rows = 1
        for dim in dims[:-1]:
            rows *= dim
        return rows, dims[-1]
    if _is_list(ids) and all(_is_list(row) for row in ids):
        return len(ids), max((len(row) for row in ids), default=0)
    return None


def generation_tokens(value: Mapping[str, Any], default_max_tokens: int) -> int:
    """The most tokens a generation may produce: per prompt, ``n`` x ``max_tokens``."""
    prompts = value.get("prompts")
    if not _is_list(prompts):
        return 0
    params = value.get("sampling_params")
    total = 0
    for index in range(len(prompts)):
        entry = params[index] if _is_list(params) and index < len(params) else params
        entry = entry if isinstance(entry, Mapping) else {}
        n = _count(entry.get("n"), 1)
        limit = entry.get("max_tokens", entry.get("max_new_tokens"))
        total += n * _count(limit, default_max_tokens)
    return total


def _count(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def lookup(value: Mapping[str, Any], name: str) -> Any:
    """A batch field from ``kwargs``, then ``context``, then the top level."""
    for section in _SECTIONS:
        part = value.get(section)
        if isinstance(part, Mapping) and name in part:
            return part[name]
    return value.get(name)


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)
