"""scripts/spec_diff.py: breaking edits of the real contract are reported, compatible ones not.

Every case edits a deep copy of openapi/cortex_gs.yaml in memory; no git needed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from repo_scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = yaml.safe_load((ROOT / "openapi" / "cortex_gs.yaml").read_text(encoding="utf-8"))


spec_diff = load_script("spec_diff")
Edit = Callable[[dict[str, Any]], None]


def _schemas(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["components"]["schemas"]


def _op(doc: dict[str, Any], path: str, method: str = "post") -> dict[str, Any]:
    return doc["paths"][path][method]


def _remove_operation(doc: dict[str, Any]) -> None:
    del doc["paths"]["/{job_id}/checkpoints/{checkpoint_id}"]["delete"]


def _remove_response_field(doc: dict[str, Any]) -> None:
    del _schemas(doc)["AcceptedRequest"]["properties"]["request_id"]


def _response_field_optional(doc: dict[str, Any]) -> None:
    _schemas(doc)["CreateJobResponse"]["required"].remove("job_id")


def _remove_request_field(doc: dict[str, Any]) -> None:
    del _schemas(doc)["SaveRequest"]["properties"]["checkpoint_type"]


def _new_required_request_field(doc: dict[str, Any]) -> None:
    step = _schemas(doc)["StepRequest"]
    step.setdefault("properties", {})["reason"] = {"type": "string"}
    step["required"] = [*step.get("required", []), "reason"]


def _narrow_request_enum(doc: dict[str, Any]) -> None:
    checkpoint_type = _schemas(doc)["CheckpointType"]
    checkpoint_type["enum"] = checkpoint_type["enum"][:1]


def _widen_response_enum(doc: dict[str, Any]) -> None:
    _schemas(doc)["RequestState"]["enum"].append("paused")


def _narrow_request_type(doc: dict[str, Any]) -> None:
    _schemas(doc)["Prompt"]["oneOf"] = [{"type": "string"}]


def _bound_max_events(bound: str, value: int) -> Edit:
    """An edit that sets one bound of get_request's ``max_events`` query parameter."""

    def edit(doc: dict[str, Any]) -> None:
        params = _op(doc, "/{job_id}/requests/{request_id}", "get")["parameters"]
        next(p for p in params if p["name"] == "max_events")["schema"][bound] = value

    return edit


def _list_jobs_parameter(name: str, *, required: bool, kind: str) -> Edit:
    """An edit that adds a query parameter to list_jobs."""

    def edit(doc: dict[str, Any]) -> None:
        _op(doc, "/", "get").setdefault("parameters", []).append(
            {"name": name, "in": "query", "required": required, "schema": {"type": kind}}
        )

    return edit


def _change_status_code(doc: dict[str, Any]) -> None:
    responses = _op(doc, "/{job_id}/step")["responses"]
    responses["200"] = responses.pop("202")


def _remove_media_type(doc: dict[str, Any]) -> None:
    _op(doc, "/{job_id}/generate")["requestBody"]["content"].pop("application/octet-stream")
    _op(doc, "/{job_id}/generate")["requestBody"]["content"]["text/plain"] = {
        "schema": {"type": "string"}
    }


def _narrow_frame_schema(doc: dict[str, Any]) -> None:
    """Inside a DSSST1 frame (linked by x-dssst1-schema): a batch field becomes required."""
    batch = _schemas(doc)["ModelKwargs"]
    optional = next(n for n in batch["properties"] if n not in batch.get("required", []))
    batch["required"] = [*batch.get("required", []), optional]


def _remove_retry_after(doc: dict[str, Any]) -> None:
    doc["components"]["responses"]["Unavailable"]["headers"].pop("Retry-After")


def _nullable_response_field(doc: dict[str, Any]) -> None:
    _schemas(doc)["CreateJobResponse"]["properties"]["job_id"] = {"type": ["string", "null"]}


RULE = {"if": {"required": ["checkpoint_id"]}, "then": {"required": ["checkpoint_type"]}}


def _new_request_rule(doc: dict[str, Any]) -> None:
    _schemas(doc)["SaveRequest"]["allOf"] = [copy.deepcopy(RULE)]


def _widen_shared_enum(doc: dict[str, Any]) -> None:
    """Fine for save_checkpoint's request, but list_checkpoints returns it: breaking there."""
    _schemas(doc)["CheckpointType"]["enum"].append("sharded")


BREAKING: dict[str, tuple[Edit, str]] = {
    "removed operation": (_remove_operation, "operation removed"),
    "removed response field": (_remove_response_field, "response field removed"),
    "response field made optional": (_response_field_optional, "no longer required"),
    "removed request field": (_remove_request_field, "request field removed"),
    "new required request field": (_new_required_request_field, "new required request field"),
    "narrowed request enum": (_narrow_request_enum, "enum values removed"),
    "widened response enum": (_widen_response_enum, "enum values added"),
    "narrowed request type": (_narrow_request_type, "variant"),
    "tightened parameter bound": (_bound_max_events("maximum", 64), "new bound maximum=64"),
    "new required parameter": (
        _list_jobs_parameter("owner", required=True, kind="string"),
        "new required parameter",
    ),
    "changed status code": (_change_status_code, "status code removed"),
    "removed media type": (_remove_media_type, "media type 'application/octet-stream' removed"),
    "narrowed DSSST1 frame schema": (_narrow_frame_schema, "request field became required"),
    "removed response header": (_remove_retry_after, "'Retry-After' removed"),
    "widened enum a response returns": (_widen_shared_enum, "list_checkpoints"),
    "new conditional rule on a request": (_new_request_rule, "new allOf rule(s)"),
    "response field may now be null": (_nullable_response_field, "may now return type ['null']"),
}


def _new_optional_request_field(doc: dict[str, Any]) -> None:
    _schemas(doc)["SaveRequest"]["properties"]["note"] = {"type": "string"}


def _new_response_field(doc: dict[str, Any]) -> None:
    _schemas(doc)["AcceptedRequest"]["properties"]["queued_at"] = {
        "type": "string",
        "format": "date-time",
    }


def _new_operation(doc: dict[str, Any]) -> None:
    doc["paths"]["/{job_id}/health"] = {
        "get": {
            "operationId": "get_job_health",
            "responses": {"200": {"description": "ok"}},
        }
    }


def _description_change(doc: dict[str, Any]) -> None:
    _op(doc, "/{job_id}/step")["description"] = "Apply the accumulated gradients (reworded)."
    _schemas(doc)["Error"]["description"] = "Reworded."


def _new_error_status(doc: dict[str, Any]) -> None:
    _op(doc, "/capacity", "get")["responses"]["404"] = {"$ref": "#/components/responses/NotFound"}


COMPATIBLE: dict[str, Edit] = {
    "new optional request field": _new_optional_request_field,
    "new response field": _new_response_field,
    "new operation": _new_operation,
    "description change": _description_change,
    "loosened parameter bound": _bound_max_events("minimum", 0),
    "new optional parameter": _list_jobs_parameter("limit", required=False, kind="integer"),
    "new error status": _new_error_status,
}


def _diff(edit: Edit) -> list[Any]:
    new = copy.deepcopy(CONTRACT)
    edit(new)
    return spec_diff.breaking_changes(CONTRACT, new)


def test_the_contract_does_not_break_itself():
    assert spec_diff.breaking_changes(CONTRACT, copy.deepcopy(CONTRACT)) == []


@pytest.mark.parametrize("name", sorted(BREAKING))
def test_breaking_edit_is_reported(name):
    edit, expected = BREAKING[name]
    findings = _diff(edit)
    assert findings, f"{name}: not reported"
    assert any(expected in str(f) for f in findings), [str(f) for f in findings]


@pytest.mark.parametrize("name", sorted(COMPATIBLE))
def test_compatible_edit_is_not_reported(name):
    assert [str(f) for f in _diff(COMPATIBLE[name])] == []


def test_dropping_a_request_rule_is_compatible():
    old = copy.deepcopy(CONTRACT)
    _new_request_rule(old)
    assert spec_diff.breaking_changes(old, copy.deepcopy(CONTRACT)) == []


def test_cli_exit_status(tmp_path, monkeypatch, capsys):
    """main(): 1 with the findings listed when the working tree breaks BASE, 0 otherwise."""
    broken = copy.deepcopy(CONTRACT)
    _remove_operation(broken)
    spec = tmp_path / "cortex_gs.yaml"
    spec.write_text(yaml.safe_dump(broken), encoding="utf-8")
    monkeypatch.setattr(spec_diff, "load_at", lambda ref, path: copy.deepcopy(CONTRACT))
    assert spec_diff.main(["--base", "main", "--spec", str(spec)]) == 1
    assert "delete_checkpoint" in capsys.readouterr().out
    spec.write_text(yaml.safe_dump(CONTRACT), encoding="utf-8")
    assert spec_diff.main(["--base", "main", "--spec", str(spec)]) == 0


# ---------------------------------------------------------------- today's view -> full contract
views = spec_diff.contract_views


def _proposed_required_field_on_a_today_body(doc: dict[str, Any]) -> None:
    """The mistake the today check exists for: a proposal that today's clients cannot meet."""
    save = _schemas(doc)["SaveRequest"]
    save["properties"]["priority"] = {
        "type": "integer",
        "description": "Queue priority.",
        "x-status": "proposed",
        "x-rationale": "Lets urgent saves jump the queue.",
    }
    save["required"] = [*save.get("required", []), "priority"]


def _proposed_required_parameter(doc: dict[str, Any]) -> None:
    _op(doc, "/{job_id}/step")["parameters"].append(
        {
            "name": "X-Trace",
            "in": "header",
            "required": True,
            "schema": {"type": "string"},
            "x-status": "proposed",
            "x-rationale": "Tracing.",
        }
    )


def test_no_proposal_in_the_contract_breaks_todays_clients():
    assert spec_diff.breaking_changes(views.today_view(CONTRACT), CONTRACT) == []


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            _proposed_required_field_on_a_today_body,
            "request body [application/json].priority: new required request field",
        ),
        (_proposed_required_parameter, "header parameter 'X-Trace': new required parameter"),
    ],
)
def test_a_proposal_that_breaks_todays_clients_is_reported(edit: Edit, expected: str):
    doc = copy.deepcopy(CONTRACT)
    edit(doc)
    today = views.today_view(doc)
    findings = [str(f) for f in spec_diff.breaking_changes(today, doc)]
    assert any(expected in f for f in findings), findings


def _fwd_bwd_answer(doc: dict[str, Any]) -> dict[str, Any]:
    """The schema node of forward-backward's 200 (the ChunkAccepted response's)."""
    return doc["components"]["responses"]["ChunkAccepted"]["content"]["application/json"]


def test_an_opt_in_response_variant_is_compared_in_its_today_form():
    """The submit's proposed wait_s may answer a finished RequestStatus on a chunk route's
    200; only a client sending wait_s gets it, so today's clients are unaffected."""
    schema = _fwd_bwd_answer(CONTRACT)["schema"]
    assert schema["x-opt-in"] == "wait_s"
    assert spec_diff.breaking_changes(views.today_view(CONTRACT), CONTRACT) == []


@pytest.mark.parametrize(
    "unmark",
    [
        lambda doc: _fwd_bwd_answer(doc)["schema"].pop("x-opt-in"),
        lambda doc: _fwd_bwd_answer(doc)["schema"].update({"x-opt-in": "max_events"}),
    ],
    ids=["no opt-in mark", "opt-in names no new optional parameter"],
)
def test_a_response_variant_without_a_real_opt_in_is_breaking(unmark: Edit):
    doc = copy.deepcopy(CONTRACT)
    unmark(doc)
    findings = [str(f) for f in spec_diff.breaking_changes(views.today_view(doc), doc)]
    assert any("response variant RequestStatus added" in f for f in findings), findings


def test_cli_today_mode(tmp_path, capsys):
    spec = tmp_path / "cortex_gs.yaml"
    spec.write_text(yaml.safe_dump(CONTRACT), encoding="utf-8")
    assert spec_diff.main(["--today", "--spec", str(spec)]) == 0
    assert (
        "no breaking changes between today's view and the full contract" in capsys.readouterr().out
    )
    broken = copy.deepcopy(CONTRACT)
    _proposed_required_field_on_a_today_body(broken)
    spec.write_text(yaml.safe_dump(broken), encoding="utf-8")
    assert spec_diff.main(["--today", "--spec", str(spec)]) == 1
    assert "priority" in capsys.readouterr().out


def test_a_change_repeated_across_responses_is_one_line():
    what = "enum values added: ['x']"
    findings = [
        spec_diff.Finding(f"GET / (list_jobs) response {code} [application/json].error_code", what)
        for code in ("401", "500")
    ] + [
        spec_diff.Finding(
            "GET /{job_id} (get_job) response 404 [application/json].error_code", what
        ),
        spec_diff.Finding("POST /x (op) request body [application/json].a", "new bound maxItems=1"),
        spec_diff.Finding("GET /{job_id} (get_job) response 200 [application/json].s", what),
    ]
    assert spec_diff.grouped(findings) == [
        "[application/json].error_code: enum values added: ['x'] (in 3 responses: "
        "GET / (list_jobs) 401, 500; GET /{job_id} (get_job) 404)",
        "POST /x (op) request body [application/json].a: new bound maxItems=1",
        "GET /{job_id} (get_job) response 200 [application/json].s: enum values added: ['x']",
    ]
