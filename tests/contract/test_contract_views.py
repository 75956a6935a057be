"""Today's view of the contract: no proposal survives, today's clients' bodies are accepted.

`make generate` writes generated/openapi/cortex_gs.today.yaml (the drift test in
test_contract_generated.py proves the committed file is a fresh one). These tests read
that file, the way a reviewer or a server team would.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from arctic_rl_kit import proposals, views

from .conftest import (
    HTTP_METHODS,
    PROPOSED_OPERATIONS,
    ROOT,
    ROUTES,
    SPEC_PATH,
    TODAY_PATH,
    load_script,
)

BODIES = json.loads((Path(__file__).parent / "published_client_bodies.json").read_text())["bodies"]
BODY_LINKS = ("x-dssst1-schema", "x-json-schema")


def _operation(doc: dict[str, Any], op_id: str) -> dict[str, Any]:
    for item in doc["paths"].values():
        for method in HTTP_METHODS:
            if item.get(method, {}).get("operationId") == op_id:
                return item[method]
    raise AssertionError(f"{op_id} is not in the document")


def _validator(doc: dict[str, Any], pointer: str) -> Draft202012Validator:
    """A JSON Schema validator for one component of `doc`, its `$ref`s resolved in `doc`."""
    resource = Resource.from_contents(doc, default_specification=DRAFT202012)
    registry = Registry().with_resource("urn:contract", resource)
    return Draft202012Validator({"$ref": f"urn:contract#{pointer}"}, registry=registry)


def _body_schema(doc: dict[str, Any], entry: dict[str, Any]) -> str:
    """Where the schema of one published-client body lives in `doc`."""
    operation = _operation(doc, entry.get("operation") or entry["frame"])
    body = operation["requestBody"]
    if "$ref" in body:
        body = doc["components"]["requestBodies"][body["$ref"].rsplit("/", 1)[1]]
    if "operation" in entry:
        return body["content"]["application/json"]["schema"]["$ref"][1:]
    media = body["content"]["application/octet-stream"]
    return next(media[link] for link in BODY_LINKS if link in media)[1:]


# ---------------------------------------------------------------- nothing proposed survives
def test_no_proposal_marker_survives_in_todays_view(today) -> None:
    assert views.leftover_markers(today) == []
    text = TODAY_PATH.read_text(encoding="utf-8")
    assert "x-status" not in text
    # Nor prose about proposals: a reader of today's view never meets a proposed name.
    for name in ("forward-no-grad", "sync-weights", "log-probs", "Idempotency-Key", "wait_s"):
        assert name not in text, name


def test_todays_view_has_todays_routes_and_no_proposed_ones(today) -> None:
    ids = {
        item[method]["operationId"]
        for item in today["paths"].values()
        for method in HTTP_METHODS
        if method in item
    }
    assert ids == set(ROUTES) - PROPOSED_OPERATIONS


def test_proposed_parameters_headers_and_fields_are_gone(today) -> None:
    components = today["components"]
    assert "IdempotencyKey" not in components["parameters"]
    assert "RetryAfter" not in components["headers"]
    # Optional today ("may" be present), so it stays, as today's shape.
    assert components["headers"]["XSnowflakeRequestId"]["required"] is False
    poll = today["paths"]["/{job_id}/requests/{request_id}"]["get"]["parameters"]
    assert [p["name"] for p in poll] == ["cursor", "max_events"]
    schemas = components["schemas"]
    assert set(schemas["Error"]["properties"]) == {"message", "code", "detail", "chunk_group_id"}
    assert "metrics" not in schemas["StepResult"]["properties"]
    assert "meta" not in schemas["ForwardBackwardBatch"]["properties"]
    assert schemas["TrainMetrics"].get("properties", {}) == {}
    for name in ("ErrorCode", "TrainBatch", "BatchMeta", "SyncWeightsRequest", "LogProbsRequest"):
        assert name not in schemas, name
    # A proposed body with a today shape: the today shape is what remains.
    assert "required" not in schemas["ChunkAccepted"]
    for response in today["components"]["responses"].values():
        assert "Retry-After" not in response.get("headers", {})


def test_todays_view_names_only_components_it_defines(today) -> None:
    defined = {
        f"#/components/{section}/{name}"
        for section, items in today["components"].items()
        for name in items
    }
    for ref in views.references(today):
        assert "/".join(ref.split("/")[:4]) in defined, ref
    links = [
        link["operationId"]
        for item in today["paths"].values()
        for method in HTTP_METHODS
        for response in item.get(method, {}).get("responses", {}).values()
        for link in response.get("links", {}).values()
    ]
    assert links and not set(links) & PROPOSED_OPERATIONS


def test_todays_view_is_valid_openapi_and_lints() -> None:
    import yaml

    validate(yaml.safe_load(TODAY_PATH.read_text(encoding="utf-8")), base_uri=TODAY_PATH.as_uri())
    load_script("render_docs").lint(TODAY_PATH)


# ---------------------------------------------------------------- today's clients are accepted
@pytest.mark.parametrize("entry", BODIES, ids=[f"item{b['item']}-{b['what'][:50]}" for b in BODIES])
def test_published_client_bodies_are_accepted_by_todays_view(today, entry) -> None:
    errors = sorted(
        error.message
        for error in _validator(today, _body_schema(today, entry)).iter_errors(entry["body"])
    )
    assert errors == [], entry["what"]


def test_every_item_that_broke_todays_clients_has_bodies() -> None:
    assert {entry["item"] for entry in BODIES} == {1, 2, 5, 6, 7}


@pytest.mark.parametrize(
    ("operation", "body", "complaint"),
    [
        ("create_job", {"sub_job_configs": []}, "should be non-empty"),
        ("save_checkpoint", {"checkpoint_type": "sharded"}, "is not one of"),
        ("run_operation", {"operation_type": "sleep"}, "is not one of"),
        (
            "run_operation",
            {"operation_type": "cancel-request", "payload": {}},
            "'request_id' is a required property",
        ),
    ],
)
def test_the_same_check_refuses_what_today_refuses(today, operation, body, complaint) -> None:
    # The acceptance test above only means something if this validator can say no.
    pointer = _body_schema(today, {"operation": operation})
    messages = [error.message for error in _validator(today, pointer).iter_errors(body)]
    assert any(complaint in message for message in messages), messages


# ---------------------------------------------------------------- the view mechanics
def _tiny_contract() -> dict[str, Any]:
    ok = {"200": {"description": "ok", "headers": {"H": {"$ref": "#/components/headers/H"}}}}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "t",
            "version": "1",
            "description": "Today.\n\n<!-- proposed:start -->\nTomorrow.\n<!-- proposed:end -->\n",
        },
        "paths": {
            "/a": {
                "post": {
                    "operationId": "a",
                    "parameters": [{"$ref": "#/components/parameters/Key"}],
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/A"}}
                        }
                    },
                    "responses": {
                        **ok,
                        "202": {
                            "description": "later",
                            "links": {"B": {"operationId": "b"}, "A": {"operationId": "a"}},
                        },
                    },
                }
            },
            "/b": {
                "get": {
                    "operationId": "b",
                    "x-status": "proposed",
                    "x-rationale": "new",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {"schema": {"$ref": "#/components/schemas/B"}}
                            },
                        }
                    },
                }
            },
        },
        "components": {
            "headers": {
                "H": {
                    "x-status": "proposed",
                    "x-rationale": "always send it",
                    "required": True,
                    "x-today": {"required": False, "schema": {"type": "string"}},
                    "schema": {"type": "string"},
                }
            },
            "parameters": {
                "Key": {
                    "name": "Key",
                    "in": "header",
                    "x-status": "proposed",
                    "x-rationale": "retries",
                    "schema": {"type": "string"},
                }
            },
            "schemas": {
                "A": {
                    "type": "object",
                    "required": ["x", "y"],
                    "properties": {
                        "x": {"type": "string"},
                        "y": {"type": "string", "x-status": "proposed", "x-rationale": "more"},
                        "mode": {
                            "type": "string",
                            "enum": ["fast", "slow", "turbo"],
                            "x-proposed-enum": ["turbo"],
                            "x-rationale": "faster",
                        },
                    },
                },
                "B": {"type": "object", "properties": {"c": {"$ref": "#/components/schemas/C"}}},
                "C": {"type": "string"},
            },
        },
    }


def test_today_view_mechanics() -> None:
    contract = _tiny_contract()
    today = views.today_view(contract)
    assert "/b" not in today["paths"]
    operation = today["paths"]["/a"]["post"]
    assert "parameters" not in operation
    assert operation["responses"]["202"]["links"] == {"A": {"operationId": "a"}}
    assert today["components"]["headers"]["H"] == {"required": False, "schema": {"type": "string"}}
    schema_a = today["components"]["schemas"]["A"]
    assert schema_a["required"] == ["x"] and set(schema_a["properties"]) == {"x", "mode"}
    assert schema_a["properties"]["mode"]["enum"] == ["fast", "slow"]
    # B and C were only used by the proposed operation.
    assert set(today["components"]["schemas"]) == {"A"}
    assert today["components"]["parameters"] == {}
    assert "Tomorrow" not in today["info"]["description"]
    assert "Today." in today["info"]["description"]
    assert views.leftover_markers(today) == []
    assert contract == _tiny_contract(), "the contract itself must not change"


def test_proposals_list_every_marked_element() -> None:
    found = {item.label for item in proposals.proposals(_tiny_contract())}
    assert found == {
        "route `GET /b`",
        "header `H`",
        "header `Key`",
        "field `y` of `A`",
        "enum values `turbo` of `A.mode`",
    }


def test_a_combinator_left_empty_is_refused() -> None:
    contract = _tiny_contract()
    contract["components"]["schemas"]["C"] = {
        "oneOf": [{"type": "string", "x-status": "proposed", "x-rationale": "r"}]
    }
    with pytest.raises(views.ViewError, match="oneOf"):
        views.today_view(contract)


def test_the_proposals_page_lists_each_proposal_of_the_contract(spec) -> None:
    page = (ROOT / "generated" / "openapi" / "proposals.md").read_text(encoding="utf-8")
    items = proposals.proposals(spec)
    assert f"{len(items)} proposals." in page
    for item in items:
        assert item.rationale, item.where
        assert f"| {item.label} |" in page, item.label
    labels = {item.label for item in items}
    for expected in (
        "route `POST /{job_id}/forward-no-grad`",
        "route `POST /{job_id}/log-probs`",
        "route `POST /{job_id}/sync-weights`",
        "query parameter `wait_s`",
        "header `Idempotency-Key`",
        "header `Retry-After`",
        "header `X-Snowflake-Request-Id`",
        "schema `ChunkAccepted`",
        "schema `ErrorCode`",
        "schema `TrainBatch`",
        "field `grad_norm` of `TrainMetrics`",
        "field `metrics` of `StepResult`",
    ):
        assert expected in labels, expected


def test_views_leave_the_full_contract_unchanged(spec) -> None:
    before = copy.deepcopy(spec)
    views.today_view(spec)
    proposals.proposals(spec)
    assert spec == before


def test_todays_view_generates_a_client_without_warnings(tmp_path) -> None:
    # A server team may generate from today's view alone; it must be as clean as the full one.
    generate = load_script("generate")
    generate._run([
        generate._tool("openapi-python-client"), "generate",
        "--path", str(TODAY_PATH),
        "--output-path", str(tmp_path / "client"),
        "--config", str(generate.CLIENT_CONFIG),
        "--meta", "none",
        "--fail-on-warning",
    ])  # fmt: skip
    api = tmp_path / "client" / "api"
    generated = {path.stem for path in api.rglob("*.py") if path.stem != "__init__"}
    assert generated == set(ROUTES) - PROPOSED_OPERATIONS


# ---------------------------------------------------------------- both views can be fuzzed
def _view(name: str) -> dict[str, Any]:
    import yaml

    path = SPEC_PATH if name == "full" else TODAY_PATH
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("view", ["full", "today"])
def test_schemathesis_can_generate_requests_for_every_operation(view: str) -> None:
    # A schema construct Hypothesis cannot generate from (seven separate if/then rules did
    # this to run_operation) silently removes an operation from every fuzzing run.
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from schemathesis.config import SchemathesisConfig

    schema = schemathesis.openapi.from_dict(_view(view), config=SchemathesisConfig())
    drawn: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(operation.as_strategy())
        @settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
        def draw(case: Any) -> None:
            drawn.append(case.operation.label)

        draw()
    expected = len(ROUTES) - (len(PROPOSED_OPERATIONS) if view == "today" else 0)
    assert len(set(drawn)) == expected


def test_the_proposals_name_each_element_one_way_and_once():
    found = proposals.proposals(yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8")))
    labels = [item.label for item in found]
    assert labels.count("query parameter `wait_s`") == 1
    assert "header `X-Snowflake-Request-Id`" in labels
    assert "header `Idempotency-Key`" in labels
    assert len(labels) == len(set(labels))


def test_the_proposals_page_renders_the_rationales_markdown():
    page = load_script("render_docs").proposals_html(
        yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    )
    assert "<code>wait_s</code>" in page
    assert "`" not in page
