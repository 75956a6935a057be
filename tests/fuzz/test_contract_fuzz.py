"""The contract against the mock, in process: every operation, every check, 0 failures.

Schemathesis draws requests from openapi/cortex_gs.yaml (JSON bodies from the schemas,
DSSST1 bodies from ``fuzz.hooks``), sends them to the mock app over ASGI with both PAT
headers, and validates each answer against the contract. The stateful test follows the
contract's links, so a created job's id reaches every data-plane call and its polls.
Deterministic: ``generation.deterministic`` (schemathesis.toml) and ``derandomize``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

import schemathesis
import yaml
from hypothesis import settings

from . import hooks
from .harness import APP, SPEC_PATH, load_config

EXAMPLES = 50
STATEFUL_RUNS = 30
STATEFUL_STEPS = 20
# Operations that need a job the caller created (every {job_id} route): the stateful run
# must hand each of them a linked job id at least once.
SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
JOB_ROUTES = frozenset(
    op["operationId"]
    for path, item in SPEC["paths"].items()
    if "{job_id}" in path
    for method, op in item.items()
    if method != "parameters"
)
# Of those, the core of an RL loop must also succeed (2xx) at least once.
MUST_SUCCEED = frozenset(
    {"get_job", "forward_backward", "forward_no_grad", "step", "generate", "get_request"}
)

schema = schemathesis.openapi.from_path(SPEC_PATH, config=load_config(max_examples=EXAMPLES))
schema.app = APP


@schema.parametrize()
def test_every_operation_conforms(case: schemathesis.Case) -> None:
    """Each drawn request is answered as the contract says (all checks + DSSST1 bodies)."""
    case.call_and_validate()


class LinkedWorkflows(schema.as_state_machine()):  # type: ignore[misc]
    """create_job -> its id into every data-plane call -> each request id into its polls.

    Besides validating every step, it counts which operations received a job id that
    create_job returned in the same scenario, and which of those calls succeeded.
    """

    linked: ClassVar[Counter[str]] = Counter()
    succeeded: ClassVar[Counter[str]] = Counter()

    def setup(self) -> None:
        # Each scenario (and each replay of one while shrinking) starts from an empty mock.
        assert APP.state_root is not None
        APP.install_fresh_mock(APP.state_root)
        self.created: set[str] = set()

    def after_call(self, response: Any, case: schemathesis.Case) -> None:
        APP.settle()  # jobs and requests finish in the background; wait, for determinism
        op = case.operation.definition.raw.get("operationId", case.operation.label)
        if op == "create_job" and response.status_code == 200:
            self.created.add(response.json()["job_id"])
        if case.path_parameters and case.path_parameters.get("job_id") in self.created:
            self.linked[op] += 1
            if response.status_code < 300:
                self.succeeded[op] += 1


def test_linked_workflows() -> None:
    """Stateful phase: all checks on every step; job ids really flow along the links."""
    LinkedWorkflows.linked.clear()
    LinkedWorkflows.succeeded.clear()
    LinkedWorkflows.run(
        settings=settings(
            max_examples=STATEFUL_RUNS,
            stateful_step_count=STATEFUL_STEPS,
            deadline=None,  # an in-process request still varies with machine load
            derandomize=True,
        )
    )
    assert JOB_ROUTES - set(LinkedWorkflows.linked) == set(), LinkedWorkflows.linked
    assert MUST_SUCCEED - set(LinkedWorkflows.succeeded) == set(), LinkedWorkflows.succeeded


def test_strategy_registered() -> None:
    """Guard: the octet-stream strategy is ours, not schemathesis' random bytes."""
    from schemathesis.core.media_types import MEDIA_TYPE_STRATEGIES

    assert hooks.BINARY_MEDIA_TYPE in MEDIA_TYPE_STRATEGIES


def test_no_nullable_header_parameters() -> None:
    """Schemathesis sends a nullable header's null as the string "null"; the contract has
    none, and this keeps it so (a new one needs a hook that drops null headers)."""
    params = [
        p
        for item in SPEC["paths"].values()
        for op in item.values()
        if isinstance(op, dict)
        for p in op.get("parameters", [])
    ] + list(SPEC["components"]["parameters"].values())
    for param in params:
        if param.get("in") == "header":
            types = param.get("schema", {}).get("type")
            assert "null" not in (types if isinstance(types, list) else [types]), param
