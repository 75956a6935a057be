"""The schemathesis engine against the target: generated requests, every check.

Two runs, both safe to point at a shared service:

* **read-only**: every ``GET`` operation, valid and invalid inputs (examples, coverage and
  fuzzing phases); job-scoped routes use ``JOB`` when one is given, else made-up ids.
* **refusals**: every other operation except ``create_job``, invalid inputs only
  (coverage and fuzzing; the examples phase would send the contract's valid examples) and
  made-up ids, so whatever the server does with them there is nothing to change.
  ``create_job`` is left to :mod:`arctic_rl_kit.probes`: schemathesis' negative mode may
  still produce a body the server accepts, and that would create a job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import requests
from schemathesis.engine import Status, events, from_schema

from arctic_rl_kit.kit import Kit, describe, operation_id
from arctic_rl_kit.report import Finding

READ_ONLY_METHODS = ["GET", "HEAD", "OPTIONS"]
MUTATING_METHODS = ["POST", "PUT", "PATCH", "DELETE"]


class EngineFailed(RuntimeError):
    """Schemathesis could not run at all (unreachable target, unusable contract)."""


# A DSSST1 body is schema-valid whatever its bytes, so schemathesis would call a broken
# frame's 400 a refused valid request; dssst1_body_handling judges those bodies precisely
# (schemathesis.toml does the same for the fuzz tests).
DSSST1_STATUSES = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]


def read_only_run(kit: Kit, job: str | None, notes: list[str]) -> list[Finding]:
    schema = kit.schema(mode="all", parameters={"job_id": job} if job else None)
    selected = schema.include(method=READ_ONLY_METHODS)
    return run_engine(
        kit, selected, notes, allowed=lambda op: op.method.upper() in READ_ONLY_METHODS
    )


def refusal_run(kit: Kit, notes: list[str]) -> list[Finding]:
    phases = [phase for phase in kit.phases if phase != "examples"]
    schema = kit.schema(mode="negative", phases=phases)
    selected = schema.include(method=MUTATING_METHODS).exclude(operation_id="create_job")
    return run_engine(kit, selected, notes, allowed=lambda op: operation_id(op) != "create_job")


def binary_run(kit: Kit, job: str, notes: list[str]) -> list[Finding]:
    """Full mode only: the DSSST1 routes on the kit's own job, valid bodies from the
    project's strategy (chunk 0 of fresh groups, bare frames, a share of broken ones),
    each answer held to the ``dssst1_body_handling`` check and the contract."""
    checks = {"positive_data_acceptance": {"expected-statuses": DSSST1_STATUSES}}
    schema = kit.schema(
        mode="positive", phases=["fuzzing"], parameters={"job_id": job}, checks=checks
    )
    chosen = kit.dssst1_operations()
    selected = schema.include(operation_id=chosen)
    sent: list[int] = []
    findings = run_engine(
        kit, selected, notes, allowed=lambda op: operation_id(op) in chosen, sent=sent
    )
    notes.append(
        f"the DSSST1 strategy sent {sum(sent)} requests to {', '.join(chosen)} on job {job}"
    )
    return findings


def run_engine(
    kit: Kit,
    schema: Any,
    notes: list[str],
    *,
    allowed: Callable[[Any], bool],
    sent: list[int] | None = None,
) -> list[Finding]:
    """Execute the schema's phases; every check result becomes a finding.

    ``allowed`` guards the selection before anything is sent: a filter that schemathesis
    ignored (it does, for one, when the config has ``[[operations]]`` entries) must not
    turn a safe run into one that creates jobs. A request the server never answered
    (connection refused, timeout) is a departure of the operation; an operation
    schemathesis cannot generate requests for is the kit's limit, not the server's
    fault, and goes to ``notes``. ``sent`` collects how many requests each scenario sent.
    """
    selected = [result.ok() for result in schema.get_all_operations()]
    stray = sorted(op.label for op in selected if not allowed(op))
    if stray:
        raise EngineFailed(f"refusing to run: the selection includes {stray}")
    findings: list[Finding] = []
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            findings += _recorded(kit, event.recorder)
            if sent is not None:
                sent.append(len(event.recorder.interactions))
        elif isinstance(event, events.NonFatalError) and event.related_to_operation:
            operation = schema.find_operation_by_label(event.label)
            info = kit.target.mask(str(event.info)).strip()
            first_line = info.splitlines()[0][:200] if info else ""
            if operation is None or not isinstance(event.value, requests.RequestException):
                notes.append(f"{event.label}: not generated ({event.info.title}: {first_line})")
                continue
            detail = f"{event.info.title}: {first_line}"
            findings.append(kit.finding(operation, "answers", False, detail=detail))
        elif isinstance(event, events.FatalError):
            raise EngineFailed(kit.target.mask(f"schemathesis stopped: {event.exception}"))
    return findings


def _recorded(kit: Kit, recorder: Any) -> list[Finding]:
    findings = []
    for case_id, nodes in recorder.checks.items():
        for node in nodes:
            case = recorder.cases[case_id].value
            if node.status == Status.SUCCESS:
                findings.append(kit.finding(case.operation, node.name, True))
                continue
            failure = node.failure_info.failure if node.failure_info else None
            failing_id = (failure.case_id if failure else None) or case_id
            interaction = recorder.interactions.get(failing_id) or recorder.interactions.get(
                case_id
            )
            response = interaction.response if interaction else None
            findings.append(
                kit.finding(
                    case.operation,
                    node.name,
                    False,
                    detail=describe(failure, kit.target.mask) if failure else "the check crashed",
                    request=interaction.request if interaction else None,
                    status=response.status_code if response is not None else None,
                )
            )
    return findings
