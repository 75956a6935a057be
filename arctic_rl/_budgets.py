"""Cost budgets: what one data-plane request may make the service compute, from its shape.

The contract's limits table (openapi/cortex_gs.yaml, "Proposed: limits") bounds each
field of a request, and, here, the work the fields multiply into; its numbers and rules
come from the contract's ``x-cost-budgets`` (``cortex_gs_contract.BATCH_BUDGET``,
``GENERATION_BUDGET``), and this estimate is tested against its worked examples:

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

from cortex_gs_contract import BATCH_BUDGET, GENERATION_BUDGET

from arctic_rl._errors import InvalidRequestError

__all__ = [
    "BATCH_CODE",
    "GENERATION_CODE",
    "MAX_BATCH_COST",
    "MAX_GENERATION_TOKENS",
    "Overrun",
    "estimate",
    "input_shape",
    "lookup",
    "over_budget",
    "refuse_over_budget",
]

# The contract's budgets (its limits table); a service may allow more, never less.
MAX_BATCH_COST = BATCH_BUDGET.maximum
MAX_GENERATION_TOKENS = GENERATION_BUDGET.maximum
BATCH_CODE = BATCH_BUDGET.error_code.value
GENERATION_CODE = GENERATION_BUDGET.error_code.value
BATCH_KINDS = frozenset(BATCH_BUDGET.operations)
GENERATION_KINDS = frozenset(GENERATION_BUDGET.operations)
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
    cost = estimate(kind, value, default_max_tokens)
    if cost is None:
        return None
    if kind in BATCH_KINDS:
        if cost <= max_batch_cost:
            return None
        rows, width = input_shape(value) or (0, 0)
        message = (
            f"a batch of {rows} rows {width} tokens wide costs {cost} (rows x width²); "
            f"the budget is {max_batch_cost}: send fewer rows or shorter sequences"
        )
        return Overrun(BATCH_CODE, message, BATCH_BUDGET.loc)
    if cost <= max_generation_tokens:
        return None
    message = (
        f"this generation may produce {cost} tokens (prompts x n x max_tokens); "
        f"the budget is {max_generation_tokens}: send fewer prompts, a smaller n "
        "or a lower max_tokens"
    )
    return Overrun(GENERATION_CODE, message, GENERATION_BUDGET.loc)


def estimate(kind: str, value: Mapping[str, Any], default_max_tokens: int = 0) -> int | None:
    """What request ``value`` of operation ``kind`` costs by its budget; None when no
    budget bounds ``kind``."""
    if kind in BATCH_KINDS:
        shape = input_shape(value)
        return shape[0] * shape[1] ** 2 if shape is not None else 0
    if kind in GENERATION_KINDS:
        return generation_tokens(value, default_max_tokens)
    return None


def refuse_over_budget(kind: str, value: Any) -> None:
    """The client's check before an upload: the contract's budgets, as the service's 422."""
    overrun = over_budget(kind, value)
    if overrun is not None:
        issue = {"loc": ["body", *overrun.loc], "msg": overrun.message, "type": overrun.code}
        raise InvalidRequestError(overrun.message, code=overrun.code, details=[issue])


def input_shape(value: Mapping[str, Any]) -> tuple[int, int] | None:
    """(rows, width) of a batch's ``input_ids`` (a tensor or nested lists), if it has any."""
    ids = lookup(value, BATCH_BUDGET.field)
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
        n = _count(entry.get("n"), GENERATION_BUDGET.n_default)
        fields = (entry[f] for f in GENERATION_BUDGET.max_tokens_fields if f in entry)
        total += n * _count(next(fields, None), default_max_tokens)
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
