"""The contract's cost budgets (``info.x-cost-budgets``), as source for the contract module.

Client and mock both estimate what a request costs before any work; both read the numbers
and rules from here (``BATCH_BUDGET``, ``GENERATION_BUDGET``) and are tested against the
contract's worked examples (``BUDGET_EXAMPLES``), so neither takes them from the other.
The table is checked while it is read: every operation it names exists and every code
is an ``ErrorCode``. The examples' costs are the contract's own numbers, never computed
here: a wrong one fails both sides' tests.
"""

from __future__ import annotations

from typing import Any

EXTENSION = "x-cost-budgets"

CLASSES = '''

@dataclass(frozen=True)
class BatchBudget:
    """The cost of a batch: rows x width² of its ``field`` (rows: every dimension but the
    last), at most ``maximum`` for ``operations``; over it, 422 ``error_code`` at ``loc``."""

    operations: tuple[str, ...]
    field: str
    maximum: int
    error_code: ErrorCode
    loc: tuple[str, ...]
    proposed: bool


@dataclass(frozen=True)
class GenerationBudget:
    """The tokens a generation may produce: over its prompts, ``n`` (``n_default`` when
    missing) x the first of ``max_tokens_fields`` present (else the server's default), at
    most ``maximum`` for ``operations``; over it, 422 ``error_code`` at ``loc``."""

    operations: tuple[str, ...]
    n_default: int
    max_tokens_fields: tuple[str, ...]
    maximum: int
    error_code: ErrorCode
    loc: tuple[str, ...]
    proposed: bool


@dataclass(frozen=True)
class BudgetExample:
    """A worked example of the budgets: a request, its cost and whether it is refused.

    A batch has ``input_ids_shape``; a generation ``prompts`` prompts with
    ``sampling_params`` (one object, or one per prompt) and the server's
    ``default_max_tokens`` (0: a client's, which does not know it).
    """

    operation: str
    cost: int
    refused: bool
    input_ids_shape: tuple[int, ...] | None = None
    prompts: int = 0
    sampling_params: Any = None
    default_max_tokens: int = 0
'''

NAMES = (
    "BatchBudget",
    "GenerationBudget",
    "BudgetExample",
    "BATCH_BUDGET",
    "GENERATION_BUDGET",
    "BUDGET_EXAMPLES",
)


def _checked(contract: dict[str, Any]) -> dict[str, Any]:
    """The extension, once its operations and codes are known to the contract."""
    table = contract["info"][EXTENSION]
    codes = set(contract["components"]["schemas"]["ErrorCode"]["enum"])
    operation_ids = {
        op["operationId"]
        for item in contract["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    }
    for name in ("batch", "generation"):
        budget = table[name]
        if budget["error_code"] not in codes:
            raise ValueError(f"{EXTENSION}.{name}: {budget['error_code']} is no ErrorCode")
        unknown = set(budget["operations"]) - operation_ids
        if unknown:
            raise ValueError(f"{EXTENSION}.{name}: no operation {sorted(unknown)}")
    return table


def _budget_source(cls: str, budget: dict[str, Any], proposed: bool) -> str:
    fields = {k: v for k, v in budget.items() if k not in ("error_code", "operations", "loc")}
    args = [f"operations={tuple(budget['operations'])!r}"]
    args += [f"{k}={tuple(v) if isinstance(v, list) else v!r}" for k, v in fields.items()]
    args += [f"error_code=ErrorCode.{budget['error_code']}", f"loc={tuple(budget['loc'])!r}"]
    return f"{cls}({', '.join(args)}, proposed={proposed!r})"


def _example_source(example: dict[str, Any]) -> str:
    args = [f"{k}={tuple(v) if k == 'input_ids_shape' else v!r}" for k, v in example.items()]
    return f"    BudgetExample({', '.join(args)}),"


def render(contract: dict[str, Any]) -> list[str]:
    """The source lines of the budgets (after the enums: they name ``ErrorCode``)."""
    table = _checked(contract)
    proposed = table.get("x-status") == "proposed"
    return [
        f"BATCH_BUDGET = {_budget_source('BatchBudget', table['batch'], proposed)}",
        '"""The contract\'s budget of a forward batch (its limits table)."""',
        f"GENERATION_BUDGET = {_budget_source('GenerationBudget', table['generation'], proposed)}",
        '"""The contract\'s budget of a generation (its limits table)."""',
        "BUDGET_EXAMPLES: tuple[BudgetExample, ...] = (",
        *(_example_source(example) for example in table["examples"]),
        ")",
        '"""The contract\'s worked examples: what client and server must both estimate."""',
        "",
    ]
