"""The contract's constants and routing table, written as one generated Python module.

Client and mock both need the same facts from openapi/cortex_gs.yaml: each operation's
method, path, request body, documented status codes and media types; the chunk
descriptor's ``operation`` name per chunked route (``x-chunk-operation``); header names;
identifier patterns; and the contract's enums. Reading them here, once, and writing them as
plain Python (``generated/cortex_gs_contract``) keeps them from being typed out again in
either place. The enums are the ones the models generator writes, moved here
(`take_enums`): the generated models import them back, so there is one enum family, and
the contract module needs no pydantic (the client imports it when it starts).
"""

from __future__ import annotations

import ast
from typing import Any

import contract_budgets  # a sibling module (scripts/ is not a package)

METHODS = ("get", "put", "post", "delete", "patch")
JSON = "application/json"
SCHEMA_PREFIX = "#/components/schemas/"
# Contract enums, defined here and imported by the generated models (one enum family).
ENUMS = ("ErrorCode", "JobState", "RequestState", "JobType", "CheckpointType", "OperationType")
# Identifier schemas whose pattern is published as a constant (<NAME>_PATTERN).
ID_SCHEMAS = ("JobId", "SubJobId", "RequestId", "CheckpointId", "ChunkGroupId", "Cursor")

PREAMBLE = '''"""The contract's constants and routing table (from openapi/cortex_gs.yaml).

Every name here is read from the contract by ``make generate``: client and mock import
them instead of typing paths, status codes, header names or patterns out again.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


@dataclass(frozen=True)
class Response:
    """One documented answer: its status, media type and schema (``None`` when bodiless)."""

    status: int
    media_type: str | None
    model: str | None


@dataclass(frozen=True)
class Operation:
    """One operation of the contract, as a router or a client needs it.

    ``request_model`` names the generated pydantic model of a JSON body; for a binary body
    ``request_media_type`` is its media type and ``payload_schema`` names the schema that
    travels inside it (``x-dssst1-schema`` or ``x-json-schema``). ``chunk_operation`` is the
    chunk descriptor's ``operation`` value on a chunked route. ``parameters`` names the
    query and header parameters the operation takes; ``proposed_parameters`` those of them
    that are proposals.
    """

    operation_id: str
    method: str
    path: str
    tag: str
    summary: str
    proposed: bool
    request_model: str | None
    request_media_type: str | None
    request_extensions: tuple[tuple[str, str], ...]
    request_description: str | None
    payload_schema: str | None
    chunk_operation: str | None
    parameters: tuple[str, ...]
    proposed_parameters: tuple[str, ...]
    responses: tuple[Response, ...]

    @property
    def statuses(self) -> tuple[int, ...]:
        """Every documented status code, ascending."""
        return tuple(r.status for r in self.responses)

    @property
    def success(self) -> tuple[Response, ...]:
        """The documented 2xx answers."""
        return tuple(r for r in self.responses if r.status < 300)

    @property
    def errors(self) -> tuple[Response, ...]:
        """The documented error answers."""
        return tuple(r for r in self.responses if r.status >= 300)

'''


def _deref(contract: dict[str, Any], node: Any) -> Any:
    """Follow local ``$ref`` chains."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = contract
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _schema_name(ref: Any) -> str | None:
    if isinstance(ref, dict):
        ref = ref.get("$ref")
    return ref.removeprefix(SCHEMA_PREFIX) if isinstance(ref, str) else None


def _responses(contract: dict[str, Any], op: dict[str, Any]) -> list[tuple[int, Any, Any]]:
    out = []
    for status, response in op.get("responses", {}).items():
        content = _deref(contract, response).get("content", {})
        media = next(iter(content), None)
        model = _schema_name(content[media].get("schema")) if media else None
        out.append((int(status), media, model))
    return sorted(out)


def _request(contract: dict[str, Any], op: dict[str, Any]) -> dict[str, Any]:
    body = _deref(contract, op.get("requestBody"))
    if not body:
        return {"model": None, "media": None, "ext": (), "description": None, "payload": None}
    media, spec = next(iter(body["content"].items()))
    ext = tuple(sorted((k, v) for k, v in spec.items() if k.startswith("x-")))
    payload = spec.get("x-dssst1-schema") or spec.get("x-json-schema")
    return {
        "model": _schema_name(spec.get("schema")) if media == JSON else None,
        "media": None if media == JSON else media,
        "ext": ext,
        "description": None if media == JSON else body.get("description", "").strip(),
        "payload": _schema_name(payload),
    }


def _parameters(contract: dict[str, Any], item: dict[str, Any], op: dict[str, Any]) -> Any:
    names, proposed = [], []
    for param in [*item.get("parameters", []), *op.get("parameters", [])]:
        param = _deref(contract, param)
        if param["in"] == "path":
            continue
        names.append(param["name"])
        if param.get("x-status") == "proposed":
            proposed.append(param["name"])
    return tuple(names), tuple(proposed)


def operations(contract: dict[str, Any]) -> list[dict[str, Any]]:
    """Every operation of the contract as plain data, in the contract's order."""
    found = []
    for path, item in contract["paths"].items():
        for method in METHODS:
            if method not in item:
                continue
            op = item[method]
            params, proposed_params = _parameters(contract, item, op)
            found.append(
                {
                    "operation_id": op["operationId"],
                    "method": method.upper(),
                    "path": path,
                    "tag": op["tags"][0],
                    "summary": op["summary"],
                    "proposed": op.get("x-status") == "proposed",
                    "request": _request(contract, op),
                    "chunk_operation": op.get("x-chunk-operation"),
                    "parameters": params,
                    "proposed_parameters": proposed_params,
                    "responses": _responses(contract, op),
                }
            )
    return found


def _header_name(contract: dict[str, Any], component: str) -> str:
    """The name under which responses carry the component header ``component``."""
    ref = f"#/components/headers/{component}"
    for item in contract["paths"].values():
        for method in METHODS:
            for response in item.get(method, {}).get("responses", {}).values():
                for name, header in _deref(contract, response).get("headers", {}).items():
                    if header.get("$ref") == ref:
                        return str(name)
    raise ValueError(f"no response carries {component}")


def _constants(contract: dict[str, Any]) -> list[tuple[str, Any, str]]:
    """(name, value, comment) of every scalar constant."""
    components = contract["components"]
    token_type = components["securitySchemes"]["patTokenType"]
    consts: list[tuple[str, Any, str]] = [
        ("AUTHORIZATION_HEADER", "Authorization", "patBearer: `Authorization: Bearer <PAT>`"),
        ("TOKEN_TYPE_HEADER", token_type["name"], "patTokenType's header"),
        ("TOKEN_TYPE", token_type["x-token-type"], "the only value patTokenType takes"),
        ("REQUEST_ID_HEADER", _header_name(contract, "XSnowflakeRequestId"), "on every answer"),
        ("RETRY_AFTER_HEADER", _header_name(contract, "RetryAfter"), "on 429 and 503"),
        ("IDEMPOTENCY_KEY_HEADER", components["parameters"]["IdempotencyKey"]["name"], ""),
        (
            "IDEMPOTENCY_KEY_PATTERN",
            components["parameters"]["IdempotencyKey"]["schema"]["pattern"],
            "",
        ),
    ]
    for schema in ID_SCHEMAS:
        name = "".join(f"_{c}" if c.isupper() else c.upper() for c in schema).lstrip("_")
        consts.append((f"{name}_PATTERN", components["schemas"][schema]["pattern"], ""))
    return consts


def _operation_source(op: dict[str, Any]) -> str:
    req = op["request"]
    responses = "".join(
        f"        Response({status}, {media!r}, {model!r}),\n"
        for status, media, model in op["responses"]
    )
    fields = [
        f"operation_id={op['operation_id']!r}",
        f"method={op['method']!r}",
        f"path={op['path']!r}",
        f"tag={op['tag']!r}",
        f"summary={op['summary']!r}",
        f"proposed={op['proposed']!r}",
        f"request_model={req['model']!r}",
        f"request_media_type={req['media']!r}",
        f"request_extensions={req['ext']!r}",
        f"request_description={req['description']!r}",
        f"payload_schema={req['payload']!r}",
        f"chunk_operation={op['chunk_operation']!r}",
        f"parameters={op['parameters']!r}",
        f"proposed_parameters={op['proposed_parameters']!r}",
    ]
    body = "".join(f"        {field},\n" for field in fields)
    return f"    Operation(\n{body}        responses=(\n{responses}        ),\n    ),\n"


def take_enums(models_source: str) -> tuple[str, str]:
    """Move the `ENUMS` classes out of the generated models' source.

    Returns the models' source, which now imports them from the contract module, and the
    classes' own source, for `render`.
    """
    lines = models_source.splitlines(keepends=True)
    classes = [
        node
        for node in ast.parse(models_source).body
        if isinstance(node, ast.ClassDef) and node.name in ENUMS
    ]
    missing = set(ENUMS) - {node.name for node in classes}
    if missing:
        raise ValueError(f"the generated models define no {sorted(missing)}")
    taken = []
    for node in sorted(classes, key=lambda n: n.lineno, reverse=True):
        start, end = node.lineno - 1, node.end_lineno or node.lineno
        taken.insert(0, "".join(lines[start:end]))
        del lines[start:end]
    future = lines.index("from __future__ import annotations\n") + 1
    imports = "".join(f"from cortex_gs_contract import {name} as {name}\n" for name in ENUMS)
    lines.insert(future, imports)
    return "".join(lines), "\n\n".join(taken)


def render(contract: dict[str, Any], header: str, enums: str) -> str:
    """The generated module's source (formatted afterwards by ruff); `enums` is the enum
    classes' source from `take_enums`."""
    ops = operations(contract)
    lines = [header, PREAMBLE, enums, contract_budgets.CLASSES]
    for name, value, comment in _constants(contract):
        lines.append(f"{name} = {value!r}" + (f"  # {comment}" if comment else ""))
    lines.append("")
    lines.extend(contract_budgets.render(contract))
    lines.append("OPERATIONS: dict[str, Operation] = {op.operation_id: op for op in (")
    lines.extend(_operation_source(op) for op in ops)
    lines.append(")}")
    lines.append('"""Every operation of the contract by operation id, in the contract\'s order."""')
    lines.append("")
    chunked = {op["operation_id"]: op["chunk_operation"] for op in ops if op["chunk_operation"]}
    lines.append(f"CHUNK_OPERATIONS: dict[str, str] = {chunked!r}")
    lines.append('"""Chunked route\'s operation id -> its chunk descriptor\'s ``operation``."""')
    lines.append("")
    names = [
        *ENUMS,
        "Operation",
        "Response",
        "OPERATIONS",
        "CHUNK_OPERATIONS",
        *contract_budgets.NAMES,
        *(n for n, _, _ in _constants(contract)),
    ]
    lines.append(f"__all__ = {sorted(names)!r}")
    return "\n".join(lines) + "\n"
