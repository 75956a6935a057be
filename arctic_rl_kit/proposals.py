"""What the proposals add: every element of the contract marked ``x-status: proposed``,
named one way, listed once, with the routes it appears in.

Each element is named ``<kind> `<name>```, and ``of `<owner>``` where it belongs to another
element: ``route `POST /{job_id}/sync-weights```, ``header `Idempotency-Key```, ``query
parameter `wait_s```, ``schema `TrainBatch```, ``field `grad_norm` of `TrainMetrics```,
``response `Finished```, ``registry entry `losses.verl_grpo` of `Processing```. An element
declared in several places (a parameter in the components and on an operation) is one
proposal that lists every place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arctic_rl_kit.views import METHODS, is_proposed, pointer, reachable_from

_SECTIONS = {
    "schemas": "schema",
    "parameters": "parameter",
    "headers": "header",
    "responses": "response",
    "requestBodies": "request body",
}


@dataclass(frozen=True)
class Operation:
    """One route of the contract, as the proposals page links to it."""

    operation_id: str
    tag: str
    label: str  # "POST /{job_id}/sync-weights"


@dataclass
class Proposal:
    """One proposed element; ``where`` and ``used_by`` list every place it appears."""

    kind: str
    name: str
    owner: str | None
    rationale: str
    where: list[str] = field(default_factory=list)  # JSON pointers of its declarations
    used_by: list[Operation] = field(default_factory=list)  # the routes it appears in

    @property
    def label(self) -> str:
        """``field `grad_norm` of `TrainMetrics```: the one name of this element."""
        owner = f" of `{self.owner}`" if self.owner else ""
        return f"{self.kind} `{self.name}`{owner}"

    @property
    def schema(self) -> str | None:
        """The component schema this element is or belongs to, if any."""
        if self.kind == "schema":
            return self.name
        return self.owner if self.kind in ("field", "enum values", "registry entry") else None


def header_name(name: str) -> str:
    """One spelling for a header (HTTP names are case-insensitive): ``X-Snowflake-Request-Id``."""
    return "-".join(part[:1].upper() + part[1:].lower() for part in name.split("-"))


def operations(contract: Mapping[str, Any]) -> dict[tuple[str, str], Operation]:
    """Every operation, by (path, method), in document order."""
    found: dict[tuple[str, str], Operation] = {}
    for path, item in (contract.get("paths") or {}).items():
        for method in METHODS:
            node = item.get(method) if isinstance(item, Mapping) else None
            if isinstance(node, Mapping):
                tags = node.get("tags") or [""]
                found[(path, method)] = Operation(
                    str(node.get("operationId", "")), str(tags[0]), f"{method.upper()} {path}"
                )
    return found


def _header_names(contract: Mapping[str, Any]) -> dict[str, str]:
    """The name a ``components/headers`` entry is sent as, from the responses using it."""
    names: dict[str, str] = {}

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            headers = node.get("headers")
            if isinstance(headers, Mapping):
                for name, header in headers.items():
                    ref = header.get("$ref", "") if isinstance(header, Mapping) else ""
                    if ref.startswith("#/components/headers/"):
                        names.setdefault(ref.rsplit("/", 1)[1], str(name))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(contract)
    return names


def _parameter(node: Mapping[str, Any]) -> tuple[str, str]:
    """(kind, name) of a parameter: a header parameter is a header like any other."""
    if node.get("in") == "header":
        return "header", header_name(str(node["name"]))
    return f"{node.get('in')} parameter", str(node["name"])


def _component(
    parts: tuple[str, ...], node: Mapping[str, Any], headers: Mapping[str, str]
) -> tuple[str, str, str | None]:
    """(kind, name, owner) of an element under ``components``."""
    section, name, rest = parts[1], parts[2], parts[3:]
    kind = _SECTIONS.get(section, section)
    if not rest:
        if section == "headers":
            return "header", header_name(headers.get(name, name)), None
        if section == "parameters" and "name" in node:
            return (*_parameter(node), None)
        return kind, name, None
    if section == "schemas" and "properties" in rest:
        return "field", ".".join(part for part in rest if part != "properties"), name
    if len(rest) == 3 and rest[0] == "content" and rest[2] == "schema":
        return f"{kind} schema", name, None
    if section == "schemas" and rest[0] == "x-registries" and "name" in node:
        return "registry entry", f"{rest[1]}.{node['name']}", name
    return "part", "/".join(rest), name


def _describe(
    parts: tuple[str, ...], node: Mapping[str, Any], headers: Mapping[str, str]
) -> tuple[str, str, str | None]:
    """(kind, name, owner) of the proposed element at ``parts``."""
    if parts[0] == "components" and len(parts) >= 3:
        return _component(parts, node, headers)
    if parts[0] == "paths" and len(parts) >= 3 and parts[2] in METHODS:
        route = f"{parts[2].upper()} {parts[1]}"
        if len(parts) == 3:
            return "route", route, None
        if "name" in node and "in" in node:
            return (*_parameter(node), None)
        return "part", "/".join(parts[3:]), route
    if parts[0] == "info" and len(parts) == 2 and parts[1].startswith("x-"):
        return "table", parts[1], None
    return "element", pointer(parts), None


def _operation_ids(node: Any) -> set[str]:
    """Every string in ``node`` (a table of the ``info``: the operations it names)."""
    if isinstance(node, Mapping):
        return set().union(*map(_operation_ids, node.values()))
    if isinstance(node, list):
        return set().union(*map(_operation_ids, node))
    return {node} if isinstance(node, str) else set()


def _owner_path(parts: tuple[str, ...]) -> list[str]:
    """``components/schemas/A/properties/mode`` -> ``[A, mode]``; elsewhere the pointer."""
    if parts[:2] == ("components", "schemas"):
        return [part for part in parts[2:] if part != "properties"]
    return [pointer(parts)]


class _Collector:
    """Walks the contract once, merging the places of each proposal under its name."""

    def __init__(self, contract: Mapping[str, Any]) -> None:
        self.contract = contract
        self.headers = _header_names(contract)
        self.operations = operations(contract)
        components = contract.get("components") or {}
        self.reach = {
            key: reachable_from(components, contract["paths"][key[0]][key[1]])
            for key in self.operations
        }
        self.found: dict[str, Proposal] = {}

    def users(self, parts: tuple[str, ...]) -> list[Operation]:
        """The routes an element at ``parts`` appears in."""
        if parts[0] == "paths" and len(parts) >= 3:
            own = self.operations.get((parts[1], parts[2]))
            return [own] if own else []
        if parts[0] == "components" and len(parts) >= 3:
            ref = pointer(parts[:3])
            return [op for key, op in self.operations.items() if ref in self.reach[key]]
        if parts[0] == "info":
            named = _operation_ids(self.contract["info"][parts[1]])
            return [op for op in self.operations.values() if op.operation_id in named]
        return []

    def add(self, parts: tuple[str, ...], node: Mapping[str, Any], enum: bool) -> None:
        kind, name, owner = _describe(parts, node, self.headers)
        if enum:
            values = ", ".join(map(str, node["x-proposed-enum"]))
            kind, name, owner = "enum values", values, ".".join(_owner_path(parts))
        rationale = " ".join(str(node.get("x-rationale", "")).split())
        item = Proposal(kind, name, owner, rationale)
        item = self.found.setdefault(item.label, item)
        item.where.append(pointer(parts))
        item.rationale = item.rationale or rationale
        item.used_by.extend(op for op in self.users(parts) if op not in item.used_by)

    def walk(self, node: Any, parts: tuple[str, ...]) -> None:
        if isinstance(node, Mapping):
            if is_proposed(node):
                self.add(parts, node, enum=False)
            if "x-proposed-enum" in node:
                self.add(parts, node, enum=True)
            for key, value in node.items():
                if key != "x-today":
                    self.walk(value, (*parts, str(key)))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                self.walk(item, (*parts, str(index)))


def proposals(contract: Mapping[str, Any]) -> list[Proposal]:
    """Every proposal in the contract, in document order, outermost first, each once."""
    collector = _Collector(contract)
    collector.walk(contract, ())
    order = list(collector.operations.values())
    for item in collector.found.values():
        item.used_by.sort(key=order.index)
    return list(collector.found.values())


def delta_markdown(contract: Mapping[str, Any]) -> str:
    """A Markdown page listing what the proposals add to today's service."""
    items = proposals(contract)
    total = len(operations(contract))
    lines = [
        "# What the proposals add",
        "",
        "Generated from `openapi/cortex_gs.yaml` by `make generate`; do not edit. Each row is one",
        "element marked `x-status: proposed`; today's service is",
        "`generated/openapi/cortex_gs.today.yaml` (the same contract with these removed).",
        "",
        f"{len(items)} proposals.",
        "",
        "| element | appears in | rationale |",
        "|---|---|---|",
    ]
    for item in items:
        cells = (item.label, appears_in(item, total, lambda op: f"`{op.label}`"), item.rationale)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    lines.append("")
    return "\n".join(lines)


def appears_in(item: Proposal, total: int, show: Callable[[Operation], str]) -> str:
    """The routes a proposal appears in, each through ``show``; "every route" when all."""
    if total and len(item.used_by) == total:
        return f"every route ({total})"
    return ", ".join(show(op) for op in item.used_by) or "-"
