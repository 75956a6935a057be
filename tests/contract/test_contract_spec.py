"""The contract itself: valid, complete, and written as a review document."""

from __future__ import annotations

import re
from typing import Any

import pytest
from openapi_spec_validator import validate

from arctic_rl import wire

from .conftest import PROPOSED_OPERATIONS, ROUTES, SPEC_PATH

IDEMPOTENT_WITH_KEY = {
    "create_job",
    "step",
    "save_checkpoint",
    "load_checkpoint",
    "log_probs",
    "sync_weights",
    "run_operation",
}
BINARY_BODIES = {
    "forward_backward": "ForwardBackwardBatch",
    "forward_no_grad": "ForwardNoGradBatch",
    "generate": "GenerateRequest",
}
# Today's string codes (Error.code); the rest of the ErrorCode table is proposed.
TODAY_STRING_CODES = {
    "chunk_group_restart_required",
    "chunk_group_conflict",
    "chunk_group_missing_chunks",
}


def resolve(spec: dict[str, Any], node: Any) -> Any:
    """Follow one local $ref (components only), or return the node itself."""
    if isinstance(node, dict) and "$ref" in node:
        return resolve_pointer(spec, node["$ref"])
    return node


def resolve_pointer(spec: dict[str, Any], ref: str) -> Any:
    """Resolve a `#/a/b` pointer, failing the test when it dangles."""
    assert ref.startswith("#/"), ref
    node: Any = spec
    for part in ref[2:].split("/"):
        assert isinstance(node, dict) and part in node, f"dangling reference {ref}"
        node = node[part]
    return node


def test_spec_is_valid_openapi_3_1(spec: dict[str, Any]) -> None:
    assert spec["openapi"].startswith("3.1")
    validate(spec, base_uri=SPEC_PATH.as_uri())


def test_strict_generator_run_succeeds(fresh_generation) -> None:
    # generate_into runs openapi-python-client with --fail-on-warning and fails on any skip.
    assert (fresh_generation / "cortex_gs_client" / "client.py").is_file()
    assert (fresh_generation / "cortex_gs_models" / "__init__.py").is_file()


def test_every_route_is_in_the_contract(operations) -> None:
    actual = {
        op_id: (method, path, op["tags"][0]) for op_id, (method, path, op) in operations.items()
    }
    assert actual == ROUTES


def test_servers_and_security(spec: dict[str, Any]) -> None:
    server = spec["servers"][0]
    assert server["url"] == (
        "{scheme}://{account_host}/api/v2/databases/{database}/schemas/{schema}/{endpoint}"
    )
    assert set(server["variables"]) == {"scheme", "account_host", "database", "schema", "endpoint"}
    assert server["variables"]["endpoint"]["default"] == "cortex-training"
    schemes = spec["components"]["securitySchemes"]
    assert schemes["patBearer"] == {**schemes["patBearer"], "type": "http", "scheme": "bearer"}
    assert schemes["patTokenType"]["in"] == "header"
    assert schemes["patTokenType"]["name"] == "X-Snowflake-Authorization-Token-Type"
    # One requirement object holding both: the two are needed together, not either.
    assert spec["security"] == [{"patBearer": [], "patTokenType": []}]


@pytest.mark.parametrize("op_id", sorted(ROUTES))
def test_operation_is_documented(spec, operations, op_id: str) -> None:
    _, _, operation = operations[op_id]
    assert operation.get("summary") and operation.get("description")
    assert (operation.get("x-status") == "proposed") == (op_id in PROPOSED_OPERATIONS)
    if op_id in PROPOSED_OPERATIONS:
        assert operation.get("x-rationale")
    body = resolve(spec, operation.get("requestBody"))
    if body:
        for media in body["content"].values():
            described = {"example", "examples", "x-dssst1-schema", "x-json-schema"}
            assert described & set(media), media


@pytest.mark.parametrize("op_id", sorted(ROUTES))
def test_every_response_has_request_id_and_error_model(spec, operations, op_id: str) -> None:
    _, _, operation = operations[op_id]
    for status, response in operation["responses"].items():
        response = resolve(spec, response)
        headers = {
            name.lower(): resolve(spec, h) for name, h in response.get("headers", {}).items()
        }
        assert "x-snowflake-request-id" in headers, (op_id, status)
        if status in {"429", "503"}:
            assert "retry-after" in headers, (op_id, status)
            assert headers["retry-after"]["schema"]["type"] == "integer"
        if status.startswith(("4", "5")):
            media = response["content"]["application/json"]
            assert media["schema"] == {"$ref": "#/components/schemas/Error"}, (op_id, status)
    statuses = set(operation["responses"])
    assert {"401", "429", "500", "503"} <= statuses, op_id
    if "job_id" in ROUTES[op_id][1]:
        assert "404" in statuses, op_id
    if "requestBody" in operation:
        assert {"400", "413", "422"} <= statuses, op_id


@pytest.mark.parametrize("op_id", sorted(BINARY_BODIES))
def test_binary_bodies_name_what_travels_inside(spec, operations, op_id: str) -> None:
    _, _, operation = operations[op_id]
    body = resolve(spec, operation["requestBody"])
    assert body["required"] is True
    assert list(body["content"]) == ["application/octet-stream"]
    media = body["content"]["application/octet-stream"]
    assert media["schema"] == {"type": "string", "format": "binary"}
    assert media["x-dssst1-schema"] == f"#/components/schemas/{BINARY_BODIES[op_id]}"
    resolve_pointer(spec, media["x-dssst1-schema"])
    resolve_pointer(spec, media["x-dssst1-envelope"])


def test_data_plane_results_name_their_schema(spec, operations) -> None:
    for op_id, (_, _, operation) in operations.items():
        if "202" not in operation["responses"] or op_id == "run_operation":
            continue
        result = operation["x-result"]
        assert result["format"] in {"json", "dssst1", "events"}, op_id
        resolve_pointer(spec, result["schema"])


@pytest.mark.parametrize("op_id", sorted(ROUTES))
def test_idempotency_key_header(spec, operations, op_id: str) -> None:
    _, _, operation = operations[op_id]
    names = {resolve(spec, p)["name"] for p in operation.get("parameters", [])}
    assert ("Idempotency-Key" in names) == (op_id in IDEMPOTENT_WITH_KEY)


def test_error_code_table_holds_every_code_raised(spec) -> None:
    """A codec refusal's code is a 400's ``code``, and the chunk-group codes exist today:
    all of them must be in the (proposed) ErrorCode table, once."""
    error_code = spec["components"]["schemas"]["ErrorCode"]
    assert error_code["x-status"] == "proposed"
    table = error_code["enum"]
    assert len(table) == len(set(table))
    assert wire.ERROR_CODES - set(table) == set()
    assert TODAY_STRING_CODES - set(table) == set()
    # today's Error.code takes those strings beside integers
    code_types = {
        option["type"]
        for option in spec["components"]["schemas"]["Error"]["properties"]["code"]["oneOf"]
    }
    assert code_types == {"integer", "string"}


def test_every_schema_is_documented_with_an_example(spec) -> None:
    undocumented = []
    for name, schema in spec["components"]["schemas"].items():
        if not schema.get("description") or not schema.get("examples"):
            undocumented.append(name)
        if schema.get("x-status") == "proposed" and not schema.get("x-rationale"):
            undocumented.append(f"{name} (rationale)")
        for prop_name, prop in schema.get("properties", {}).items():
            if "$ref" not in prop and not prop.get("description"):
                undocumented.append(f"{name}.{prop_name}")
            if prop.get("x-status") == "proposed" and not prop.get("x-rationale"):
                undocumented.append(f"{name}.{prop_name} (rationale)")
    assert undocumented == []


def test_ids_and_format_like_strings_have_patterns(spec) -> None:
    schemas = spec["components"]["schemas"]
    for name in ("JobId", "SubJobId", "RequestId", "CheckpointId", "ChunkGroupId", "Cursor",
                 "Sha256Hex", "Base64"):  # fmt: skip
        pattern = re.compile(schemas[name]["pattern"])
        for example in schemas[name]["examples"]:
            assert pattern.search(example), (name, example)
    sub_job = re.compile(schemas["SubJobId"]["pattern"])
    assert sub_job.search("job-1:log_prob:0") and not sub_job.search("job-1:log_probability:0")
    assert not re.search(schemas["JobId"]["pattern"], "job:1")


def _links(spec: dict[str, Any], operations) -> list[tuple[str, str, dict[str, Any]]]:
    """(source operationId, link name, link) for every response link in the contract."""
    found = []
    for op_id, (_, _, operation) in operations.items():
        for response in operation["responses"].values():
            for name, link in resolve(spec, response).get("links", {}).items():
                found.append((op_id, name, link))
    return found


def test_links_carry_ids_into_later_calls(spec, operations) -> None:
    # Stateful fuzzing follows these: a created job's id into every job route, an accepted
    # request into its poll.
    links = _links(spec, operations)
    for source, name, link in links:
        target = operations[link["operationId"]][2]
        params = {p["name"] for p in (resolve(spec, p) for p in target.get("parameters", []))}
        path_item = spec["paths"][operations[link["operationId"]][1]]
        params |= {resolve(spec, p)["name"] for p in path_item.get("parameters", [])}
        assert set(link["parameters"]) <= params, (source, name)
    from_create = {link["operationId"] for source, _, link in links if source == "create_job"}
    job_routes = {op for op, (_, path, _) in ROUTES.items() if path.startswith("/{job_id}")}
    # Not from a new job: these need an id it does not have yet (a saved checkpoint's, an
    # accepted request's); a new job's load answers 404 checkpoint_not_found.
    needs_more = {"delete_checkpoint", "export_checkpoint", "get_request", "load_checkpoint"}
    assert job_routes - from_create == needs_more
    polled = {source for source, _, link in links if link["operationId"] == "get_request"}
    accepted = {op for op, (_, _, o) in operations.items() if "202" in o["responses"]}
    assert polled == accepted


def test_redocly_lint() -> None:
    # `make setup` installs the pinned Redocly CLI (no network needed after that); the lint
    # config also validates every example against its schema.
    from .conftest import load_script

    render_docs = load_script("render_docs")
    assert render_docs.REDOCLY.exists(), "Redocly CLI missing: run `make setup`"
    render_docs.lint()


@pytest.mark.parametrize("op_id", sorted(ROUTES))
def test_every_response_and_parameter_has_an_example(spec, operations, op_id: str) -> None:
    _, path, operation = operations[op_id]
    for status, response in operation["responses"].items():
        for media_type, media in resolve(spec, response).get("content", {}).items():
            assert "example" in media or "examples" in media, (status, media_type)
    parameters = operation.get("parameters", []) + spec["paths"][path].get("parameters", [])
    for parameter in (resolve(spec, p) for p in parameters):
        assert "example" in parameter or "examples" in parameter, parameter["name"]
