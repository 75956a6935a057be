"""The cost budgets are the contract's: both sides estimate its worked examples.

The contract's ``x-cost-budgets`` carries the budgets' numbers, their rules and worked
examples (a request, its cost, whether it is refused), generated into
``cortex_gs_contract``. The SDK's estimate (checked before an upload) and the mock's (the
service's side, checked before any work) are each held to those examples, and the mock
takes nothing of its budgets from the SDK: a wrong estimate on either side fails here
even if the other side copied it.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import torch
from arctic_rl_mock.services import budgets as mock
from arctic_rl_mock.settings import Settings
from cortex_gs_contract import (
    BATCH_BUDGET,
    BUDGET_EXAMPLES,
    GENERATION_BUDGET,
    OPERATIONS,
    BudgetExample,
)

from arctic_rl import _budgets as sdk
from arctic_rl import wire
from devtools.live_mock import LiveMock, MockApi
from reliability.limits_support import post_frame, refused

MOCK_SOURCES = Path(__file__).resolve().parents[2] / "mock_server" / "arctic_rl_mock"
EXAMPLE_IDS = [
    f"{e.operation}-{e.cost}-{'refused' if e.refused else 'runs'}" for e in BUDGET_EXAMPLES
]


def request_of(example: BudgetExample) -> dict[str, Any]:
    """The request an example describes: a batch of its shape, or its prompts."""
    if example.input_ids_shape is not None:
        ids = torch.zeros(example.input_ids_shape, dtype=torch.int64)
        return {"args": [], "kwargs": {"input_ids": ids}, "meta": {}}
    return {"prompts": ["hi"] * example.prompts, "sampling_params": example.sampling_params}


def budget_of(example: BudgetExample) -> Any:
    return BATCH_BUDGET if example.operation in BATCH_BUDGET.operations else GENERATION_BUDGET


def test_the_table_covers_both_budgets_both_ways() -> None:
    """Every budgeted operation has examples, and each budget one refused and one not."""
    covered = {e.operation for e in BUDGET_EXAMPLES}
    assert covered == {*BATCH_BUDGET.operations, *GENERATION_BUDGET.operations}
    for budget in (BATCH_BUDGET, GENERATION_BUDGET):
        verdicts = {e.refused for e in BUDGET_EXAMPLES if budget_of(e) is budget}
        assert verdicts == {True, False}
        assert budget.proposed  # the service does not publish budgets today


@pytest.mark.parametrize("example", BUDGET_EXAMPLES, ids=EXAMPLE_IDS)
def test_the_sdk_estimates_the_contracts_example(example: BudgetExample) -> None:
    value = request_of(example)
    assert sdk.estimate(example.operation, value, example.default_max_tokens) == example.cost
    overrun = sdk.over_budget(
        example.operation, value, default_max_tokens=example.default_max_tokens
    )
    assert (overrun is not None) is example.refused
    if overrun is not None:
        assert overrun.code == budget_of(example).error_code
        assert overrun.loc == budget_of(example).loc
        assert str(example.cost) in overrun.message


@pytest.mark.parametrize("example", BUDGET_EXAMPLES, ids=EXAMPLE_IDS)
def test_the_mock_estimates_the_contracts_example(example: BudgetExample) -> None:
    """With the mock's default settings: the contract's maxima, not lower ones."""
    settings = Settings(state_dir=Path("unused"))
    value = request_of(example)
    assert mock.estimate(example.operation, value, example.default_max_tokens) == example.cost
    refusal = mock.overrun(
        example.operation,
        value,
        max_batch_cost=settings.max_batch_cost,
        max_generation_tokens=settings.max_generation_tokens,
        default_max_tokens=example.default_max_tokens,
    )
    assert (refusal is not None) is example.refused
    if refusal is not None:
        assert (refusal.status_code, refusal.code) == (422, budget_of(example).error_code)
        assert refusal.details[0]["loc"] == ["body", *budget_of(example).loc]


@pytest.mark.parametrize(
    "example",
    [e for e in BUDGET_EXAMPLES if e.refused and not e.default_max_tokens],
    ids=lambda e: f"{e.operation}-{e.cost}",
)
def test_the_live_mock_refuses_the_contracts_over_budget_examples(
    live_mock: LiveMock, example: BudgetExample
) -> None:
    """Over HTTP, at the mock's defaults: refused with the contract's code, before work.
    (Examples that count a server default need the mock's own default, 16 tokens.)"""
    api = MockApi(live_mock)
    job_id = api.create_job()
    operation = OPERATIONS[example.operation]
    route = operation.path.rsplit("/", 1)[-1]
    value = request_of(example)
    answer: httpx.Response
    if example.operation in BATCH_BUDGET.operations:
        answer = post_frame(api, job_id, route, value)
    else:
        body = json.dumps(value) if operation.chunk_operation is None else wire.dumps(value)
        answer = api.http.post(f"/{job_id}/{route}", content=body)
    body_json = refused(answer, 422, budget_of(example).error_code)
    assert str(example.cost) in body_json["message"]
    api.close()


def test_the_mock_takes_no_budget_from_the_sdk() -> None:
    """No module of the mock imports the SDK's budgets (it would pass any SDK mistake)."""
    offenders = []
    for path in sorted(MOCK_SOURCES.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            offenders += [f"{path.name}: {n}" for n in names if "_budgets" in n]
    assert offenders == []
