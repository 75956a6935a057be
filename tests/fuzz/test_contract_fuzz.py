"""The contract against the mock, in process: every operation, every check, 0 failures,
over both views of the contract -- today's service alone (proposals stripped) and the
full contract with the proposals.

Schemathesis draws requests from each view (JSON bodies from the schemas, DSSST1 bodies
from ``fuzz.hooks``), sends them to the mock app over ASGI with both PAT headers, and
validates each answer against that view. The stateful tests follow the contract's links,
so a created job's id reaches every data-plane call and its polls. Deterministic:
``generation.deterministic`` (schemathesis.toml) and ``derandomize``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

import pytest
import schemathesis
import yaml
from hypothesis import settings

from . import hooks
from .harness import APPS, VIEWS, SwappableApp, load_config

EXAMPLES = 50
STATEFUL_RUNS = 30
STATEFUL_STEPS = 20
# Batches of STATEFUL_RUNS scenarios, each from its own fixed seed, until the links have
# reached every job route and the core operations have succeeded (see test_linked_workflows).
MAX_STATEFUL_BATCHES = 8
# The core of an RL loop must succeed (2xx) at least once in each view that has it.
MUST_SUCCEED = frozenset(
    {"get_job", "forward_backward", "forward_no_grad", "step", "generate", "get_request"}
)
SPECS = {name: yaml.safe_load(path.read_text(encoding="utf-8")) for name, path in VIEWS.items()}
SPEC = SPECS["full"]


def operation_ids(spec: dict[str, Any], *, job_routes_only: bool = False) -> frozenset[str]:
    """The view's operations (only those on a ``{job_id}`` route, when asked)."""
    return frozenset(
        op["operationId"]
        for path, item in spec["paths"].items()
        if "{job_id}" in path or not job_routes_only
        for method, op in item.items()
        if method != "parameters"
    )


def load_view(name: str) -> Any:
    """One view as a schemathesis schema, bound to the swappable in-process mock playing it."""
    schema = schemathesis.openapi.from_path(VIEWS[name], config=load_config(max_examples=EXAMPLES))
    schema.app = APPS[name]
    return schema


FULL, TODAY = load_view("full"), load_view("today")


@FULL.parametrize()
def test_every_operation_conforms_to_the_full_contract(case: schemathesis.Case) -> None:
    """Each drawn request is answered as the full contract says (all checks + DSSST1)."""
    case.call_and_validate()


@TODAY.parametrize()
def test_every_operation_conforms_to_todays_view(case: schemathesis.Case) -> None:
    """Each drawn request is answered as today's service would (all checks + DSSST1)."""
    case.call_and_validate()


def linked_workflows(schema: Any, app: SwappableApp) -> Any:
    """create_job -> its id into every data-plane call -> each request id into its polls.

    Besides validating every step, the machine counts which operations received a job id
    that create_job returned in the same scenario, and which of those calls succeeded.
    """

    class LinkedWorkflows(schema.as_state_machine()):  # type: ignore[misc]
        linked: ClassVar[Counter[str]] = Counter()
        succeeded: ClassVar[Counter[str]] = Counter()

        def setup(self) -> None:
            # Each scenario (and each replay of one while shrinking) starts from an empty mock.
            assert app.state_root is not None
            app.install_fresh_mock(app.state_root)
            self.created: set[str] = set()

        def after_call(self, response: Any, case: schemathesis.Case) -> None:
            app.settle()  # jobs and requests finish in the background; wait, for determinism
            op = case.operation.definition.raw.get("operationId", case.operation.label)
            if op == "create_job" and response.status_code == 200:
                self.created.add(response.json()["job_id"])
            if case.path_parameters and case.path_parameters.get("job_id") in self.created:
                self.linked[op] += 1
                if response.status_code < 300:
                    self.succeeded[op] += 1

    return LinkedWorkflows


WORKFLOWS = {
    "full": linked_workflows(FULL, APPS["full"]),
    "today": linked_workflows(TODAY, APPS["today"]),
}


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_linked_workflows(view: str) -> None:
    """Stateful phase: all checks on every step; job ids really flow along the links.

    Whether one batch of scenarios reaches every route is luck: a checkpoint export
    needs create_job -> list_checkpoints -> export_checkpoint in one scenario while
    Hypothesis' swarm testing switches rules off at random, and Hypothesis also mixes
    literals from whichever local modules are already imported into its draws, so the
    same seed explores other paths inside a full-suite run than alone. So the run goes
    on, one more fixed-seed batch at a time, until the coverage below is complete; each
    batch is derandomized from its own class name, so the batches are the same on every
    run with the same code and imports. One batch usually suffices.
    """
    machine = WORKFLOWS[view]
    machine.linked.clear()
    machine.succeeded.clear()
    job_routes = operation_ids(SPECS[view], job_routes_only=True)
    must_succeed = MUST_SUCCEED & operation_ids(SPECS[view])

    def covered() -> bool:
        return job_routes <= set(machine.linked) and must_succeed <= set(machine.succeeded)

    for batch in range(MAX_STATEFUL_BATCHES):
        seeded = type(f"{machine.__name__}Batch{batch}", (machine,), {})
        seeded.run(
            settings=settings(
                max_examples=STATEFUL_RUNS,
                stateful_step_count=STATEFUL_STEPS,
                deadline=None,  # an in-process request still varies with machine load
                derandomize=True,
                database=None,
            )
        )
        if covered():
            break
    assert job_routes - set(machine.linked) == set(), machine.linked
    assert must_succeed - set(machine.succeeded) == set(), machine.succeeded


def test_todays_view_is_the_contract_without_its_proposals() -> None:
    """Guard for the two-view runs: today's view lacks exactly the proposed operations."""
    proposed = {
        op["operationId"]
        for item in SPEC["paths"].values()
        for method, op in item.items()
        if method != "parameters" and op.get("x-status") == "proposed"
    }
    assert proposed == {
        "abandon_chunk_group",
        "forward_no_grad",
        "get_capabilities",
        "log_probs",
        "sync_weights",
    }
    assert operation_ids(SPECS["today"]) == operation_ids(SPEC) - proposed


def test_strategy_registered() -> None:
    """Guard: the octet-stream strategy is ours, not schemathesis' random bytes."""
    from schemathesis.core.media_types import MEDIA_TYPE_STRATEGIES

    assert hooks.BINARY_MEDIA_TYPE in MEDIA_TYPE_STRATEGIES


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_no_nullable_header_parameters(view: str) -> None:
    """Schemathesis sends a nullable header's null as the string "null"; the contract has
    none, and this keeps it so (a new one needs a hook that drops null headers)."""
    spec = SPECS[view]
    params = [
        p
        for item in spec["paths"].values()
        for op in item.values()
        if isinstance(op, dict)
        for p in op.get("parameters", [])
    ] + list(spec.get("components", {}).get("parameters", {}).values())
    for param in params:
        if param.get("in") == "header":
            types = param.get("schema", {}).get("type")
            assert "null" not in (types if isinstance(types, list) else [types]), param
