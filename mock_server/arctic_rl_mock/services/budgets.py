"""The contract's cost budgets, as the mock estimates them before any work.

Numbers and rules come from the contract's ``x-cost-budgets`` (the generated
``cortex_gs_contract.BATCH_BUDGET`` and ``GENERATION_BUDGET``), never from the SDK: the
mock is the service's side of the contract, and its estimate is tested against the
contract's worked examples (``BUDGET_EXAMPLES``) as the SDK's is. The estimate reads
shapes and numbers only, never tensor data; fields are found where the backends read
them (:func:`arctic_rl_mock.backends.common.lookup`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from cortex_gs_contract import BATCH_BUDGET, GENERATION_BUDGET

from arctic_rl_mock.backends.common import lookup
from arctic_rl_mock.errors import ApiError


def estimate(kind: str, value: Mapping[str, Any], default_max_tokens: int) -> int | None:
    """The cost of request ``value`` of operation ``kind`` by the budget that bounds that
    operation (rows x width², or tokens it may produce); None when none does."""
    if kind in BATCH_BUDGET.operations:
        shape = input_shape(value)
        return 0 if shape is None else shape[0] * shape[1] ** 2
    if kind in GENERATION_BUDGET.operations:
        return generation_tokens(value, default_max_tokens)
    return None


def overrun(
    kind: str,
    value: Mapping[str, Any],
    *,
    max_batch_cost: int,
    max_generation_tokens: int,
    default_max_tokens: int,
) -> ApiError | None:
    """The 422 for a request over its budget (the budget's code, one ``details`` entry at
    the contract's ``loc``), or None; the maxima are the settings' (never above the
    contract's)."""
    cost = estimate(kind, value, default_max_tokens)
    if cost is None:
        return None
    batch = kind in BATCH_BUDGET.operations
    budget = BATCH_BUDGET if batch else GENERATION_BUDGET
    maximum = max_batch_cost if batch else max_generation_tokens
    if cost <= maximum:
        return None
    if batch:
        rows, width = input_shape(value) or (0, 0)
        told = f"a batch of {rows} rows {width} tokens wide costs {cost} (rows x width²)"
        advice = "send fewer rows or shorter sequences"
    else:
        told = f"this generation may produce {cost} tokens (prompts x n x max_tokens)"
        advice = "send fewer prompts, a smaller n or a lower max_tokens"
    message = f"{told}; the budget is {maximum}: {advice}"
    code = budget.error_code.value
    issue = {"loc": ["body", *budget.loc], "msg": message, "type": code}
    return ApiError(422, code, message, details=[issue])


def input_shape(value: Mapping[str, Any]) -> tuple[int, int] | None:
    """(rows, width) of the batch's budgeted field (``input_ids``): rows are every
    dimension but the last; nested lists count as rows of their longest row's width."""
    ids = lookup(value, BATCH_BUDGET.field)
    dims = getattr(ids, "shape", None)
    if dims is not None and len(dims) > 0:
        *rows, width = (int(d) for d in dims)
        return math.prod(rows), width
    if not _is_list(ids) or not all(_is_list(row) for row in ids):
        return None
    return len(ids), max(map(len, ids), default=0)


def generation_tokens(value: Mapping[str, Any], default_max_tokens: int) -> int:
    """The most tokens a generation may produce, summed over its prompts."""
    prompts = value.get("prompts")
    if not _is_list(prompts):
        return 0
    params = value.get("sampling_params")
    per_prompt = params if _is_list(params) else [params] * len(prompts)
    entries = [*per_prompt[: len(prompts)], *[None] * (len(prompts) - len(per_prompt))]
    return sum(_completion_tokens(entry, default_max_tokens) for entry in entries)


def _completion_tokens(entry: Any, default_max_tokens: int) -> int:
    """``n`` x ``max_tokens`` of one prompt's sampling parameters (a missing one: the
    contract's default ``n``, the mock's default ``max_tokens``)."""
    params = entry if isinstance(entry, Mapping) else {}
    n = _integer(params.get("n"), GENERATION_BUDGET.n_default)
    named = [params[name] for name in GENERATION_BUDGET.max_tokens_fields if name in params]
    return n * _integer(named[0] if named else None, default_max_tokens)


def _integer(value: Any, default: int) -> int:
    return default if isinstance(value, bool) or not isinstance(value, int) else value


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)
