"""The mock's own OpenAPI must match the contract, operation for operation.

The routes are registered from the contract's generated table
(mock_server/arctic_rl_mock/web/routing.py),
so paths, methods, operation ids, status codes and bodies cannot drift; what is still
written by hand (query and header parameters, security) is compared here, from the app's
document as generated from its real routes. The comparison is proven by
mutating copies of the contract and checking each mutation is reported.
"""

from __future__ import annotations

import copy
from pathlib import Path
from types import ModuleType
from typing import Any

import cortex_gs_models as models
import pytest
import yaml
from arctic_rl_mock.app import create_app
from arctic_rl_mock.routers import AREAS
from arctic_rl_mock.settings import Settings
from arctic_rl_mock.web.openapi import dangling_refs
from arctic_rl_mock.web.routing import build_router
from cortex_gs_contract import OPERATIONS
from fastapi.routing import APIRoute

CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "cortex_gs.yaml"
TODAY_VIEW = Path(__file__).resolve().parents[2] / "generated" / "openapi" / "cortex_gs.today.yaml"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def _deref(doc: dict[str, Any], node: Any) -> Any:
    """Follow local ``$ref`` chains (parameters, bodies, responses, headers)."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = doc
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


FACETS = ("type", "default", "minimum", "maximum", "pattern", "enum")


def _facets(doc: dict[str, Any], schema: Any) -> tuple[Any, ...]:
    """The constraints of a parameter schema, with ``anyOf: [X, null]`` unwrapped."""
    schema = _deref(doc, schema)
    options = [s for s in schema.get("anyOf", []) if _deref(doc, s).get("type") != "null"]
    if len(options) == 1:
        schema = {**_deref(doc, options[0]), **{k: v for k, v in schema.items() if k != "anyOf"}}
    return tuple(schema.get(key) for key in FACETS)


def _schema_name(schema: Any) -> str | None:
    """The component a body schema names (``None`` for inline schemas)."""
    ref = (schema or {}).get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _operations(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Normalised view of every operation: what clients depend on, nothing cosmetic."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    global_security = doc.get("security", [])
    for path, item in doc.get("paths", {}).items():
        shared = [_deref(doc, p) for p in item.get("parameters", [])]
        for method in METHODS:
            if method not in item:
                continue
            op = item[method]
            params = {}
            proposed_params = set()
            for p in shared + [_deref(doc, p) for p in op.get("parameters", [])]:
                name = p["name"].lower() if p["in"] == "header" else p["name"]
                required = bool(p.get("required", p["in"] == "path"))
                params[(p["in"], name)] = (required, _facets(doc, p.get("schema", {})))
                if p.get("x-status") == "proposed":
                    proposed_params.add(name)
            body = _deref(doc, op.get("requestBody"))
            media: dict[str, Any] = {}
            if body:
                for media_type, spec in body.get("content", {}).items():
                    media[media_type] = (
                        spec.get("x-dssst1-schema"),
                        _schema_name(spec.get("schema")),
                        (spec.get("schema") or {}).get("format"),
                    )
            responses = {}
            for status, response in op.get("responses", {}).items():
                response = _deref(doc, response)
                responses[str(status)] = sorted(
                    (media, _schema_name(spec.get("schema")))
                    for media, spec in response.get("content", {}).items()
                )
            security = op.get("security", global_security)
            out[(method, path)] = {
                "operationId": op.get("operationId"),
                "parameters": params,
                "body_required": bool(body.get("required")) if body else None,
                "body_media": media,
                "responses": responses,
                "security": sorted(tuple(sorted(req)) for req in security),
                "proposed": op.get("x-status") == "proposed",
                "proposed_parameters": sorted(proposed_params),
            }
    return out


def _schemes(doc: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    schemes = doc.get("components", {}).get("securitySchemes", {})
    return {
        name: (s.get("type"), (s.get("scheme") or "").lower(), s.get("in"), s.get("name"))
        for name, s in schemes.items()
    }


def compare(contract: dict[str, Any], app_doc: dict[str, Any]) -> list[str]:
    """Human-readable differences between the contract and the app (empty: none)."""
    diffs: list[str] = []
    want, have = _operations(contract), _operations(app_doc)
    for key in sorted(set(want) - set(have)):
        diffs.append(f"missing in app: {key[0].upper()} {key[1]}")
    for key in sorted(set(have) - set(want)):
        diffs.append(f"not in contract: {key[0].upper()} {key[1]}")
    for key in sorted(set(want) & set(have)):
        for field, expected in want[key].items():
            actual = have[key][field]
            if expected != actual:
                diffs.append(
                    f"{key[0].upper()} {key[1]} {field}: contract {expected} != app {actual}"
                )
    if _schemes(contract) != _schemes(app_doc):
        diffs.append(f"security schemes: contract {_schemes(contract)} != app {_schemes(app_doc)}")
    return diffs


@pytest.fixture(scope="module")
def contract() -> dict[str, Any]:
    return yaml.safe_load(CONTRACT.read_text())


@pytest.fixture(scope="module")
def app_doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The app serving the proposals as well: the full contract."""
    settings = Settings(state_dir=tmp_path_factory.mktemp("openapi"), token="t", service="proposed")
    return create_app(settings).openapi()


def test_app_matches_contract(contract: dict[str, Any], app_doc: dict[str, Any]) -> None:
    assert compare(contract, app_doc) == []


def test_every_operation_is_served(contract: dict[str, Any], app_doc: dict[str, Any]) -> None:
    ids = {op["operationId"] for op in _operations(app_doc).values()}
    assert ids == {op["operationId"] for op in _operations(contract).values()}
    assert len(ids) == 22


def test_todays_app_serves_todays_view(tmp_path: Path) -> None:
    """By default the app serves exactly the operations of today's view of the contract."""
    today = yaml.safe_load(TODAY_VIEW.read_text())
    app = create_app(Settings(state_dir=tmp_path, token="t")).openapi()
    served = {op["operationId"] for op in _operations(app).values()}
    assert served == {op["operationId"] for op in _operations(today).values()}
    proposed = {"forward_no_grad", "log_probs", "sync_weights", "get_capabilities"}
    assert not (proposed | {"abandon_chunk_group"}) & served


def test_app_document_has_no_dangling_refs(app_doc: dict[str, Any]) -> None:
    assert dangling_refs(app_doc) == set()
    schemas = app_doc["components"]["schemas"]
    for name in ("ForwardBackwardBatch", "ForwardNoGradBatch", "GenerateRequest", "ChunkFrame"):
        assert name in schemas


def test_proposals_are_marked_in_the_app_document(
    contract: dict[str, Any], app_doc: dict[str, Any]
) -> None:
    """The app marks exactly the operations the contract proposes (and only those)."""
    proposed = sorted(k for k, op in _operations(contract).items() if op["proposed"])
    assert proposed == sorted(k for k, op in _operations(app_doc).items() if op["proposed"])
    assert [path for _, path in proposed] == [
        "/{job_id}/chunk-groups/{chunk_group_id}",
        "/capabilities",
        "/{job_id}/forward-no-grad",
        "/{job_id}/log-probs",
        "/{job_id}/sync-weights",
    ]


def test_app_document_stamps_request_id_header(app_doc: dict[str, Any]) -> None:
    for item in app_doc["paths"].values():
        for op in item.values():
            for response in op["responses"].values():
                assert "x-snowflake-request-id" in response["headers"]


def _mutations() -> list[tuple[str, Any, str]]:
    def drop_operation(doc: dict[str, Any]) -> None:
        del doc["paths"]["/{job_id}/step"]["post"]

    def change_status(doc: dict[str, Any]) -> None:
        responses = doc["paths"]["/{job_id}/save"]["post"]["responses"]
        responses["201"] = responses.pop("202")

    def rename_parameter(doc: dict[str, Any]) -> None:
        params = doc["paths"]["/{job_id}/requests/{request_id}"]["get"]["parameters"]
        next(p for p in params if p.get("name") == "max_events")["name"] = "max_event"

    def loosen_parameter(doc: dict[str, Any]) -> None:
        params = doc["paths"]["/{job_id}/requests/{request_id}"]["get"]["parameters"]
        next(p for p in params if p.get("name") == "max_events")["schema"]["maximum"] = 1024

    def require_parameter(doc: dict[str, Any]) -> None:
        params = doc["paths"]["/"]["get"]["parameters"]
        params[0]["required"] = True

    def change_media_type(doc: dict[str, Any]) -> None:
        content = doc["paths"]["/{job_id}/generate"]["post"]["requestBody"]["content"]
        content["application/x-dssst1"] = content.pop("application/octet-stream")

    def change_response_schema(doc: dict[str, Any]) -> None:
        content = doc["paths"]["/{job_id}"]["get"]["responses"]["200"]["content"]
        content["application/json"]["schema"] = {"$ref": "#/components/schemas/JobSummary"}

    def drop_security(doc: dict[str, Any]) -> None:
        doc["paths"]["/capacity"]["get"]["security"] = [{"patBearer": []}]

    def unmark_proposal(doc: dict[str, Any]) -> None:
        params = doc["paths"]["/{job_id}/requests/{request_id}"]["get"]["parameters"]
        del next(p for p in params if p.get("name") == "wait_s")["x-status"]

    def add_operation(doc: dict[str, Any]) -> None:
        doc["paths"]["/{job_id}/requests/{request_id}"]["delete"] = {
            "operationId": "delete_request",
            "responses": {"204": {"description": "gone"}},
        }

    return [
        ("drop operation", drop_operation, "not in contract: POST /{job_id}/step"),
        ("change status", change_status, "POST /{job_id}/save responses"),
        ("rename parameter", rename_parameter, "GET /{job_id}/requests/{request_id} parameters"),
        ("require parameter", require_parameter, "GET / parameters"),
        ("loosen parameter", loosen_parameter, "GET /{job_id}/requests/{request_id} parameters"),
        ("change media type", change_media_type, "POST /{job_id}/generate body_media"),
        ("change response schema", change_response_schema, "GET /{job_id} responses"),
        ("drop security", drop_security, "GET /capacity security"),
        ("unmark proposal", unmark_proposal, "proposed_parameters"),
        ("add operation", add_operation, "missing in app: DELETE /{job_id}/requests"),
    ]


@pytest.mark.parametrize(
    ("label", "mutate", "expected"), _mutations(), ids=[m[0] for m in _mutations()]
)
def test_comparison_catches_mutated_contract(
    contract: dict[str, Any], app_doc: dict[str, Any], label: str, mutate: Any, expected: str
) -> None:
    mutated = copy.deepcopy(contract)
    mutate(mutated)
    diffs = compare(mutated, app_doc)
    assert diffs, label
    assert any(expected in d for d in diffs), diffs


# ------------------------------------------------------------- routing from the table
def _areas_with(tag: str, **handlers: Any) -> dict[str, ModuleType]:
    """The real areas, with ``tag``'s module replaced by a copy holding ``handlers``."""
    areas = dict(AREAS)
    module = ModuleType(AREAS[tag].__name__)
    module.__dict__.update(vars(AREAS[tag]))
    module.__dict__.update(handlers)
    areas[tag] = module
    return areas


def test_router_refuses_a_missing_handler() -> None:
    areas = _areas_with("training", step=None)
    with pytest.raises(RuntimeError, match="no handler for step"):
        build_router(areas, "/p")


def test_router_refuses_a_handler_reading_another_body() -> None:
    async def step(body: models.SaveRequest) -> None:
        """Reads the wrong model."""

    step.__module__ = AREAS["training"].__name__
    with pytest.raises(RuntimeError, match="handler step reads"):
        build_router(_areas_with("training", step=step), "/p")


def test_router_refuses_a_handler_outside_the_contract() -> None:
    async def rewind() -> None:
        """Not an operation of the contract."""

    rewind.__module__ = AREAS["training"].__name__
    with pytest.raises(RuntimeError, match="rewind"):
        build_router(_areas_with("training", rewind=rewind), "/p")


def test_every_route_is_registered_as_the_table_says() -> None:
    router = build_router(AREAS, "/p")
    routes = {route.name: route for route in router.routes if isinstance(route, APIRoute)}
    assert set(routes) == set(OPERATIONS)
    for op_id, op in OPERATIONS.items():
        route = routes[op_id]
        assert route.methods == {op.method}
        assert route.path_format == "/p" + op.path
        assert route.status_code == max(r.status for r in op.success)
