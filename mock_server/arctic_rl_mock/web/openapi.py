"""The app's own OpenAPI document, shaped like the contract so the two can be diffed.

FastAPI derives operations, parameters and status codes from the real routes (that is
what the parity test checks); this module only fixes what FastAPI cannot know: paths
relative to the contract's server prefix, both PAT headers as the document's security,
the response headers every answer carries, proposed-extension marks, and component
schemas for everything referenced (including the DSSST1 payload schemas named only in
``x-dssst1-schema``), taken from the generated models.
"""

from __future__ import annotations

import inspect
from typing import Any

import cortex_gs_models as models
from cortex_gs_contract import (
    OPERATIONS,
    REQUEST_ID_HEADER,
    RETRY_AFTER_HEADER,
    TOKEN_TYPE_HEADER,
)
from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from arctic_rl_mock.settings import Settings

REF_PREFIX = "#/components/schemas/"
RETRY_AFTER = ("429", "503")
BEARER_SCHEME = "patBearer"
TOKEN_TYPE_SCHEME = "patTokenType"


def _model_schemas() -> dict[str, Any]:
    """JSON Schemas of every generated model, keyed by contract schema name."""
    classes = [
        obj
        for _, obj in inspect.getmembers(models, inspect.isclass)
        if issubclass(obj, BaseModel) and obj.__module__ == models.__name__
    ]
    _, top = models_json_schema(
        [(cls, "validation") for cls in classes], ref_template=REF_PREFIX + "{model}"
    )
    return dict(top.get("$defs", {}))


def _refs(node: Any) -> set[str]:
    """Every component schema name referenced anywhere under ``node``."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("$ref", "x-dssst1-schema", "x-dssst1-envelope") and isinstance(value, str):
                if value.startswith(REF_PREFIX):
                    found.add(value[len(REF_PREFIX) :])
            else:
                found |= _refs(value)
    elif isinstance(node, list):
        for item in node:
            found |= _refs(item)
    return found


def _require_token(doc: dict[str, Any]) -> None:
    """Every route asks for both PAT headers, as the contract says once for the document.

    The request guard (arctic_rl_mock.web.middleware) checks them before routing, for every
    route, so no operation declares them as a dependency; the document says it here.
    """
    doc["security"] = [{BEARER_SCHEME: [], TOKEN_TYPE_SCHEME: []}]
    doc.setdefault("components", {})["securitySchemes"] = {
        BEARER_SCHEME: {"type": "http", "scheme": "bearer"},
        TOKEN_TYPE_SCHEME: {"type": "apiKey", "in": "header", "name": TOKEN_TYPE_HEADER},
    }


def _stamp_responses(operation: dict[str, Any]) -> None:
    """Each response carries the request-id header; 429/503 also Retry-After."""
    for status, response in operation.get("responses", {}).items():
        headers = response.setdefault("headers", {})
        headers[REQUEST_ID_HEADER] = {
            "description": "The server's id for this HTTP exchange.",
            "required": True,
            "schema": {"type": "string"},
        }
        if status in RETRY_AFTER:
            headers[RETRY_AFTER_HEADER] = {
                "description": "Seconds to wait before retrying.",
                "required": True,
                "schema": {"type": "integer", "minimum": 0},
                "x-status": "proposed",
            }


def _mark_proposals(operation: dict[str, Any]) -> None:
    """The contract's ``x-status: proposed`` marks on operations and their parameters."""
    contract = OPERATIONS[operation["operationId"]]
    if contract.proposed:
        operation["x-status"] = "proposed"
    for param in operation.get("parameters", []):
        if param["name"] in contract.proposed_parameters:
            param["x-status"] = "proposed"


def build_openapi(app: FastAPI, settings: Settings) -> dict[str, Any]:
    """The mock's OpenAPI document, relative to the contract's server prefix."""
    doc = get_openapi(
        title="Cortex GS training service (arctic-rl mock)",
        version=app.version,
        openapi_version="3.1.0",
        routes=app.routes,
        separate_input_output_schemas=False,
    )
    prefix = settings.prefix
    paths: dict[str, Any] = {}
    for path, item in doc.get("paths", {}).items():
        if not path.startswith(prefix):
            continue  # the docs pages themselves
        rel = path[len(prefix) :] or "/"
        for operation in item.values():
            _stamp_responses(operation)
            _mark_proposals(operation)
        paths[rel] = item
    doc["paths"] = paths
    doc["servers"] = [{"url": prefix, "description": "This mock."}]
    _require_token(doc)
    schemas = {**doc.get("components", {}).get("schemas", {}), **_model_schemas()}
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    doc.setdefault("components", {})["schemas"] = schemas
    return doc


def install_openapi(app: FastAPI, settings: Settings) -> None:
    """Replace ``app.openapi`` with :func:`build_openapi` (cached like FastAPI's)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app, settings)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def dangling_refs(doc: dict[str, Any]) -> set[str]:
    """Referenced component schemas that the document does not define (should be none)."""
    defined = set(doc.get("components", {}).get("schemas", {}))
    return _refs(doc) - defined
