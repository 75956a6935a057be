"""The retry budget's waits, on an injected clock: clamped to what is left, and none at all
when the service asks for longer than that."""

from __future__ import annotations

import pytest

from arctic_rl._errors import ServiceUnavailableError
from arctic_rl._retry import RetryBudget


class Clock:
    """An injected clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def unavailable(retry_after: float | None) -> ServiceUnavailableError:
    err = ServiceUnavailableError("busy", status=503)
    err.retry_after = retry_after
    return err


def test_every_wait_is_clamped_to_the_budget_left() -> None:
    clock = Clock()
    budget = RetryBudget(3.0, clock=clock)
    waits = []
    for _ in range(6):
        wait = budget.wait(unavailable(None))
        if wait is False:
            break
        waits.append(wait)
        clock.now += wait
    assert waits and sum(waits) == pytest.approx(3.0)  # the last wait is what was left
    assert budget.wait(unavailable(None)) is False


def test_a_retry_after_is_honoured_within_the_budget_and_refused_past_it() -> None:
    clock = Clock()
    budget = RetryBudget(10.0, clock=clock)
    assert budget.wait(unavailable(4.0)) == 4.0
    clock.now += 4.0
    assert budget.wait(unavailable(7.0)) is False  # 6 s left
