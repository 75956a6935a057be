"""The contract against the mock, in process: every operation, every check, 0 failures.

Schemathesis draws requests from openapi/cortex_gs.yaml (JSON bodies from the schemas,
DSSST1 bodies from ``fuzz.hooks``), sends them to the mock app over ASGI with both PAT
headers, and validates each answer against the contract. The stateful test follows the
contract's links, so a created job's id reaches every data-plane call and its polls.
"""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings

from . import hooks
from .harness import APP, SPEC_PATH, load_config

EXAMPLES = 25
STATEFUL_RUNS = 12
STATEFUL_STEPS = 12

schema = schemathesis.openapi.from_path(SPEC_PATH, config=load_config(max_examples=EXAMPLES))
schema.app = APP


@schema.parametrize()
def test_every_operation_conforms(case: schemathesis.Case) -> None:
    """Each drawn request is answered as the contract says (all checks + DSSST1 bodies)."""
    case.call_and_validate()


StatefulMachine = schema.as_state_machine()


class TestLinkedWorkflows(StatefulMachine.TestCase):  # type: ignore[name-defined]
    """create_job -> its id into every data-plane call -> each request id into its polls."""

    settings = settings(
        max_examples=STATEFUL_RUNS,
        stateful_step_count=STATEFUL_STEPS,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )


def test_strategy_registered() -> None:
    """Guard: the octet-stream strategy is ours, not schemathesis' random bytes."""
    from schemathesis.core.media_types import MEDIA_TYPE_STRATEGIES

    assert hooks.BINARY_MEDIA_TYPE in MEDIA_TYPE_STRATEGIES
