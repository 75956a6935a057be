"""The kit against the mock: it passes a conforming server in both modes, finds each
deliberate departure and names the operation, never writes the token, and cancels the
job it created even when the flow fails."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

from arctic_rl_kit.cli import EXIT_CONFORMS, EXIT_DEPARTS
from arctic_rl_kit.flow import FLOW_CHECK
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV, KitRun

ANY_REQUEST_STATE = ("pending", "running", "streaming", "done", "completed", "failed", "cancelled")
# The departures the switch injects, and the check that must catch each.
INJECTED = {
    "list_jobs": "response_schema_conformance",  # renamed-required-field
    "get_capacity": "status_code_conformance",  # wrong-status
    "get_job": "auth_no_token_401",  # missing-401
}


def passed_checks(run: KitRun, operation: str) -> Counter[str]:
    return Counter(f.check for f in run.report.operations[operation].findings if f.passed)


def departing(run: KitRun) -> dict[str, set[str]]:
    return {r.operation: set(r.failing_checks()) for r in run.report.departures}


def kit_job(mock: LiveMock) -> dict:
    """The job the kit's full mode created (its experiment name says so)."""
    jobs = [
        j
        for j in mock.app.state.service.store.jobs.list_jobs()
        if (j.get("experiment_name") or "").startswith("contract-check-")
    ]
    assert len(jobs) == 1, jobs
    return jobs[0]


# ------------------------------------------------------------------------------ safe
def test_safe_mode_passes_a_conforming_mock(safe_run: KitRun) -> None:
    assert departing(safe_run) == {}, safe_run.report.markdown()
    assert safe_run.status == EXIT_CONFORMS
    assert safe_run.report.aborted is None
    assert all(r.verdict == "conforms" for r in safe_run.report.operations.values())
    assert "- result: **conforms**" in (safe_run.report_dir / "report.md").read_text()
    assert 'failures="0"' in (safe_run.report_dir / "junit.xml").read_text()


def test_safe_mode_ran_every_refusal(safe_run: KitRun) -> None:
    """Auth on every operation; create refusals; on the job: frames and chunk groups."""
    for result in safe_run.report.operations.values():
        for check in ("auth_no_token_401", "auth_wrong_token_401", "auth_wrong_token_type_401"):
            assert passed_checks(safe_run, result.operation)[check] >= 1, (result.operation, check)
    create = passed_checks(safe_run, "create_job")
    assert create["refuses_invalid_body"] == 6 and create["creates_nothing"] == 1
    forward = passed_checks(safe_run, "forward_backward")
    for check in ("chunk_group_restart_required", "chunk_group_conflict", "payload_too_large"):
        assert forward[check] == 1, check
    assert forward["refuses_broken_dssst1"] >= 8
    assert forward["dssst1_body_handling"] >= forward["refuses_broken_dssst1"]
    assert passed_checks(safe_run, "generate")["refuses_broken_dssst1"] >= 8
    assert passed_checks(safe_run, "step")["refuses_invalid_body"] == 1
    # schemathesis' generated requests reached the read-only and the other mutating routes
    assert passed_checks(safe_run, "get_capacity")["response_schema_conformance"] >= 1
    assert passed_checks(safe_run, "cancel_job")["negative_data_rejection"] >= 1


def test_safe_mode_creates_and_changes_nothing(
    safe_run: KitRun, clean_mock: LiveMock, running_job: str
) -> None:
    store = clean_mock.app.state.service.store
    before_full_mode = [j for j in store.jobs.list_jobs() if j["job_id"] == running_job]
    assert [j["status"] for j in before_full_mode] == ["running"]
    assert not [
        j
        for j in store.jobs.list_jobs()
        if (j.get("experiment_name") or "").startswith("contract-check-refusal")
    ]
    assert store.requests.requests_in(ANY_REQUEST_STATE, running_job) == []


def test_with_proposals_checks_the_full_contract(proposals_run: KitRun, safe_run: KitRun) -> None:
    """The proposed routes are checked too (the mock serves them), and nothing departs."""
    assert (safe_run.report.view, proposals_run.report.view) == ("today", "full")
    proposed = set(proposals_run.report.operations) - set(safe_run.report.operations)
    assert {"forward_no_grad", "log_probs", "sync_weights"} <= proposed
    assert departing(proposals_run) == {}, proposals_run.report.markdown()
    assert proposals_run.status == EXIT_CONFORMS
    assert passed_checks(proposals_run, "forward_no_grad")["refuses_broken_dssst1"] >= 8


# ------------------------------------------------------------------------------ full
def test_full_mode_passes_and_cancels_its_job(full_run: KitRun, clean_mock: LiveMock) -> None:
    assert departing(full_run) == {}, full_run.report.markdown()
    assert full_run.status == EXIT_CONFORMS
    for operation in (
        "create_job",
        "forward_backward",
        "step",
        "generate",
        "run_operation",
        "cancel_job",
    ):
        assert passed_checks(full_run, operation)[FLOW_CHECK] == 1, operation
    assert passed_checks(full_run, "forward_backward")["chunked_upload"] == 1
    # the project's DSSST1 strategy fed the binary routes of the kit's job
    strategy = [n for n in full_run.report.notes if n.startswith("the DSSST1 strategy sent")]
    assert len(strategy) == 1 and not strategy[0].startswith("the DSSST1 strategy sent 0 ")
    # every answer the client got was judged, and the contract's links were followed
    assert passed_checks(full_run, "get_request")["response_schema_conformance"] >= 4
    assert (
        sum(passed_checks(full_run, op)["link_resolves"] for op in ("get_job", "get_request")) >= 2
    )
    assert kit_job(clean_mock)["status"] == "cancelled"


# ------------------------------------------------------------------------------ departures
def test_each_departure_is_found_and_named(departing_safe_run: KitRun, safe_run: KitRun) -> None:
    found = departing(departing_safe_run)
    assert departing_safe_run.status == EXIT_DEPARTS
    for operation, check in INJECTED.items():
        assert check in found.get(operation, set()), (operation, found)
    # nothing else departs that the clean mock did not already
    assert set(found) - set(departing(safe_run)) == set(INJECTED)
    text = (departing_safe_run.report_dir / "report.md").read_text()
    for operation, check in INJECTED.items():
        assert f"### `{operation}`" in text and f"check **{check}** failed" in text
    junit = (departing_safe_run.report_dir / "junit.xml").read_text()
    assert f'failures="{len(found)}"' in junit


def test_departure_points_at_the_contract(departing_safe_run: KitRun) -> None:
    """The location names the source line of the operation's responses (a JSON pointer too)."""
    failure = departing_safe_run.report.operations["get_capacity"].failing_checks()[
        "status_code_conformance"
    ][0]
    where, pointer = failure.location.split(" ")
    assert pointer == "#/paths/~1capacity/get/responses"
    name, line = where.split(":")
    source = departing_safe_run.report.contract
    assert name == os.path.basename(source)
    assert Path(source).read_text().splitlines()[int(line) - 1].strip() == "responses:"


def test_report_curl_reproduces_the_departure(departing_safe_run: KitRun, kit_token: str) -> None:
    """The curl line, with the token in $KIT_TEST_PAT, gets the departing answer again."""
    for operation, status in (("get_capacity", "203"), ("list_jobs", "200")):
        failure = next(
            iter(departing_safe_run.report.operations[operation].failing_checks().values())
        )[0]
        assert f"${{{PAT_ENV}}}" in failure.curl and kit_token not in failure.curl
        command = failure.curl + " -o /dev/null -w '%{http_code}'"
        env = {"PATH": os.environ["PATH"], PAT_ENV: kit_token}
        done = subprocess.run(
            ["bash", "-c", command], env=env, capture_output=True, text=True, timeout=30
        )
        assert done.stdout == status, (command, done.stderr)


def test_full_mode_cancels_the_job_when_a_check_fails(
    departing_full_run: KitRun, departing_mock: LiveMock
) -> None:
    assert departing_full_run.status == EXIT_DEPARTS
    assert FLOW_CHECK in departing(departing_full_run)["step"]
    assert passed_checks(departing_full_run, "generate")[FLOW_CHECK] == 1  # the flow went on
    assert passed_checks(departing_full_run, "cancel_job")[FLOW_CHECK] == 1
    assert kit_job(departing_mock)["status"] == "cancelled"


# ------------------------------------------------------------------------------ the token
def test_the_token_never_appears(
    safe_run: KitRun,
    full_run: KitRun,
    departing_safe_run: KitRun,
    departing_full_run: KitRun,
    kit_token: str,
) -> None:
    """Not in any report file, saved body, output or log line of any run."""
    runs = (safe_run, full_run, departing_safe_run, departing_full_run)
    texts = {name: data for run in runs for name, data in run.texts().items()}
    assert len(texts) >= 8
    assert [name for name, data in texts.items() if kit_token.encode() in data] == []
    # the reproductions use the variable instead (masked, not dropped)
    curls = [f.curl for r in departing_safe_run.report.departures for f in r.failures if f.curl]
    assert any(f"Authorization: Bearer ${{{PAT_ENV}}}" in curl for curl in curls)


PROBED = (
    "capabilities",
    "forward_no_grad",
    "log_probs",
    "sync_weights",
    "verl_grpo",
    "apply_temperature",
    "compute_entropy_and_logprobs",
    "sampling_n",
)


def verdicts(run: KitRun) -> dict[str, str]:
    return {served.proposal: served.verdict for served in run.report.served}


def test_today_serves_no_proposal(safe_run: KitRun) -> None:
    found = verdicts(safe_run)
    assert {name: found[name] for name in PROBED} == dict.fromkeys(PROBED, "not served")
    assert found["idempotency_key"] == found["cost_budgets"] == "not probed"
    text = (safe_run.report_dir / "report.md").read_text()
    assert "## Proposals served" in text and "`verl_grpo` | not served" in text


def test_the_proposed_service_serves_each_one(proposals_run: KitRun) -> None:
    found = verdicts(proposals_run)
    assert {name: found[name] for name in PROBED} == dict.fromkeys(PROBED, "served")


def test_without_a_job_the_job_probes_are_not_run(full_run: KitRun) -> None:
    found = verdicts(full_run)
    assert found["verl_grpo"] == "not probed" and found["forward_no_grad"] == "not served"
