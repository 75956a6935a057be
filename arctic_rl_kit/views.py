"""The two views of the contract: today's service alone, and what the proposals add.

openapi/cortex_gs.yaml describes the service as it answers today plus additions marked
``x-status: proposed`` (each with an ``x-rationale``). A reviewer needs to read today's service
without the proposals, and the proposals on their own; both are derived here from the one
source, so they can never disagree with it.

Markers this module understands:

- ``x-status: proposed`` on any object (an operation, a parameter, a header, a response, a
  schema, a property, a link): today's view drops it. A dropped property also leaves its
  schema's ``required`` list. ``x-today`` on such an object holds what exists today instead,
  and today's view puts that in its place (for example a header that is optional today and
  proposed to be always sent).
- ``x-proposed-enum: [values]`` next to an ``enum``: those values are proposed; today's view
  removes them from the enum.
- ``<!-- proposed:start -->`` ... ``<!-- proposed:end -->`` in a description: prose about
  proposals, dropped from today's view.

References to a dropped component are dropped with it (a ``$ref`` to a proposed header or
parameter disappears from every response and operation), as are links to a dropped
operation; components that only proposals used are pruned.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

PROPOSED = "proposed"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
COMPONENTS_PREFIX = "#/components/"
_PROSE_BLOCK = re.compile(r"<!-- proposed:start -->.*?<!-- proposed:end -->", re.DOTALL)
_BLANK_RUN = re.compile(r"\n{3,}")
# Marker keys that only make sense next to a proposal; none may survive in today's view.
MARKERS = ("x-status", "x-rationale", "x-today", "x-proposed-enum")


class ViewError(ValueError):
    """The contract uses a marker in a way the today view cannot honour."""


def is_proposed(node: Any) -> bool:
    """Whether a contract node is marked as a proposal."""
    return isinstance(node, Mapping) and node.get("x-status") == PROPOSED


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _pointer(parts: tuple[str, ...]) -> str:
    return "#/" + "/".join(_escape(part) for part in parts)


def references(node: Any) -> Iterator[str]:
    """Every component a node points at: ``$ref`` values and vendor links such as
    ``x-dssst1-schema`` or ``x-result.schema`` (any string naming ``#/components/...``)."""
    if isinstance(node, Mapping):
        for value in node.values():
            yield from references(value)
    elif isinstance(node, list):
        for item in node:
            yield from references(item)
    elif isinstance(node, str) and node.startswith(COMPONENTS_PREFIX):
        yield node


def _component_of(ref: str) -> str:
    """``#/components/schemas/X/properties/y`` -> ``#/components/schemas/X``."""
    return "/".join(ref.split("/")[:4])


def _reachable(doc: Mapping[str, Any]) -> set[str]:
    """Components reachable from everything outside ``components`` (paths, info, ...)."""
    components = doc.get("components") or {}
    roots = {key: value for key, value in doc.items() if key != "components"}
    # Security schemes are used by name, not by reference.
    seen = {
        f"{COMPONENTS_PREFIX}securitySchemes/{name}"
        for name in components.get("securitySchemes") or {}
    }
    queue = [_component_of(ref) for ref in references(roots)]
    while queue:
        ref = queue.pop()
        if ref in seen:
            continue
        seen.add(ref)
        _, _, section, name = ref.split("/", 3)
        target = (components.get(section) or {}).get(name.replace("~1", "/").replace("~0", "~"))
        queue.extend(_component_of(inner) for inner in references(target))
    return seen


@dataclass
class _Stripper:
    """Removes proposals from one deep copy of the contract."""

    removed: set[str]
    removed_operations: set[str]

    def keep(self, value: Any) -> tuple[bool, Any]:
        """(whether to keep a node, the node today) for one mapping value or list item."""
        if is_proposed(value):
            if "x-today" in value:
                return True, value["x-today"]
            return False, None
        if isinstance(value, Mapping) and value.get("$ref") in self.removed:
            return False, None
        return True, value

    def strip(self, node: Any) -> Any:
        if isinstance(node, list):
            kept = []
            for item in node:
                keep, today = self.keep(item)
                if keep:
                    kept.append(self.strip(today))
            return kept
        if not isinstance(node, Mapping):
            return node
        out, dropped_properties = self._strip_entries(node)
        for combinator in ("allOf", "anyOf", "oneOf"):
            if combinator in node and not out.get(combinator):
                raise ViewError(
                    f"every entry of a {combinator} is proposed; mark the schema instead"
                )
        _tidy_today(out, dropped_properties)
        if out.get("parameters") == [] and "parameters" in node:
            del out["parameters"]
        return out

    def _strip_entries(self, node: Mapping[str, Any]) -> tuple[dict[str, Any], set[str]]:
        """The mapping's entries today, and the names of the properties that went."""
        out: dict[str, Any] = {}
        dropped_properties: set[str] = set()
        for key, value in node.items():
            keep, today = self.keep(value)
            if not keep:
                if key in METHODS and isinstance(value, Mapping) and "operationId" in value:
                    self.removed_operations.add(str(value["operationId"]))
                continue
            out[key] = self.strip(today)
            if key == "properties" and isinstance(today, Mapping):
                dropped_properties |= set(today) - set(out[key])
        return out, dropped_properties


def _tidy_today(out: dict[str, Any], dropped_properties: set[str]) -> None:
    """What a stripped mapping no longer needs: required names that went, proposed enum
    values, proposal prose in its description."""
    if dropped_properties and isinstance(out.get("required"), list):
        out["required"] = [name for name in out["required"] if name not in dropped_properties]
        if not out["required"]:
            del out["required"]
    if "x-proposed-enum" in out:
        proposed_values = out.pop("x-proposed-enum")
        out.pop("x-rationale", None)
        if "enum" not in out:
            raise ViewError("x-proposed-enum needs an enum beside it")
        out["enum"] = [value for value in out["enum"] if value not in proposed_values]
    if isinstance(out.get("description"), str):
        out["description"] = _BLANK_RUN.sub("\n\n", _PROSE_BLOCK.sub("", out["description"]))


def _drop_links(node: Any, operations: set[str]) -> None:
    """Remove response links that lead to an operation today's service does not have."""
    if isinstance(node, dict):
        links = node.get("links")
        if isinstance(links, dict):
            for name in [n for n, link in links.items() if link.get("operationId") in operations]:
                del links[name]
            if not links:
                del node["links"]
        for value in node.values():
            _drop_links(value, operations)
    elif isinstance(node, list):
        for item in node:
            _drop_links(item, operations)


TODAY_NOTE = (
    "**Today's view.** This is `openapi/cortex_gs.yaml` with every proposal removed:"
    " the service as it answers today, nothing more."
    " It is generated by `make generate`; do not edit it.\n\n"
)


def today_view(contract: Mapping[str, Any]) -> dict[str, Any]:
    """The contract as today's service alone: every proposal removed, nothing left dangling."""
    doc = copy.deepcopy(dict(contract))
    removed: set[str] = set()
    for section, items in (doc.get("components") or {}).items():
        for name, node in items.items():
            if is_proposed(node) and "x-today" not in node:
                removed.add(f"{COMPONENTS_PREFIX}{section}/{_escape(name)}")
    before = _reachable(doc)
    stripper = _Stripper(removed=removed, removed_operations=set())
    today = stripper.strip(doc)
    today["paths"] = {
        path: item
        for path, item in today.get("paths", {}).items()
        if any(method in item for method in METHODS)
    }
    _drop_links(today, stripper.removed_operations)
    # Components only proposals used: reachable in the full contract, not in today's.
    after = _reachable(today)
    for ref in before - after:
        _, _, section, name = ref.split("/", 3)
        today["components"].get(section, {}).pop(name.replace("~1", "/").replace("~0", "~"), None)
    defined = _defined(today)
    dangling = sorted({ref for ref in references(today) if _component_of(ref) not in defined})
    if dangling:
        raise ViewError(f"today's view would reference removed components: {dangling}")
    info = today.setdefault("info", {})
    info["title"] = f"{info.get('title', 'Contract')} (today)"
    info["description"] = TODAY_NOTE + str(info.get("description", ""))
    return today


def _defined(doc: Mapping[str, Any]) -> set[str]:
    """Every component the document defines, as ``#/components/<section>/<name>``."""
    return {
        f"{COMPONENTS_PREFIX}{section}/{_escape(name)}"
        for section, items in (doc.get("components") or {}).items()
        for name in items
    }


@dataclass(frozen=True)
class Proposal:
    """One proposed element of the contract."""

    where: str
    kind: str
    summary: str
    rationale: str


def _kind(parts: tuple[str, ...]) -> str:
    if parts[0] == "paths":
        if len(parts) == 3:
            return "operation"
        return {"parameters": "parameter", "responses": "response"}.get(parts[-2], "operation part")
    if parts[0] == "components" and len(parts) == 3:
        return {
            "schemas": "schema",
            "parameters": "parameter",
            "headers": "header",
            "responses": "response",
            "requestBodies": "request body",
        }.get(parts[1], parts[1])
    if "properties" in parts:
        return "field"
    return "element"


def _label(parts: tuple[str, ...], node: Mapping[str, Any], header_names: Mapping[str, str]) -> str:
    """A short human name: `POST /{job_id}/sync-weights`, `StepResult.metrics`, ..."""
    if parts[0] == "paths" and len(parts) >= 3 and parts[2] in METHODS:
        text = f"{parts[2].upper()} {parts[1]}"
        if len(parts) > 3 and parts[3] != "parameters":
            text += " " + "/".join(parts[3:])
        if "name" in node:
            return _parameter_label(node)
        return text
    if parts[0] == "paths" and "parameters" in parts and "name" in node:
        return _parameter_label(node)
    if parts[:2] == ("components", "schemas"):
        return ".".join(part for part in parts[2:] if part != "properties")
    if parts[:2] == ("components", "parameters") and "name" in node:
        return _parameter_label(node)
    if parts[:2] == ("components", "headers"):
        return f"response header {header_names.get(parts[2], parts[2])}"
    return "/".join(parts)


def _parameter_label(node: Mapping[str, Any]) -> str:
    """``request header Idempotency-Key``, ``query parameter wait_s``: one name wherever
    the parameter is declared (an operation or the components)."""
    where = node.get("in")
    return (
        f"request header {node['name']}"
        if where == "header"
        else f"{where} parameter {node['name']}"
    )


def _header_names(contract: Mapping[str, Any]) -> dict[str, str]:
    """The header a ``components/headers`` entry is sent as, from the responses using it."""
    names: dict[str, str] = {}

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            headers = node.get("headers")
            if isinstance(headers, Mapping):
                for name, header in headers.items():
                    ref = header.get("$ref", "") if isinstance(header, Mapping) else ""
                    if ref.startswith(COMPONENTS_PREFIX + "headers/"):
                        names.setdefault(ref.rsplit("/", 1)[1], str(name))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(contract)
    return names


def proposals(contract: Mapping[str, Any]) -> list[Proposal]:
    """Every proposal in the contract, in document order, outermost first; one declared in
    two places (a parameter on an operation and in the components) is listed once."""
    found: list[Proposal] = []
    header_names = _header_names(contract)

    def walk(node: Any, parts: tuple[str, ...]) -> None:
        if isinstance(node, Mapping):
            if is_proposed(node):
                found.append(
                    Proposal(
                        where=_pointer(parts),
                        kind=_kind(parts),
                        summary=_label(parts, node, header_names),
                        rationale=" ".join(str(node.get("x-rationale", "")).split()),
                    )
                )
            if "x-proposed-enum" in node:
                found.append(
                    Proposal(
                        where=_pointer(parts),
                        kind="enum values",
                        summary=f"{_label(parts, node, header_names)}: {node['x-proposed-enum']}",
                        rationale=" ".join(str(node.get("x-rationale", "")).split()),
                    )
                )
            for key, value in node.items():
                if key != "x-today":
                    walk(value, (*parts, str(key)))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, (*parts, str(index)))

    walk(contract, ())
    unique: dict[tuple[str, str], Proposal] = {}
    for item in found:
        unique.setdefault((item.kind, item.summary), item)
    return list(unique.values())


def leftover_markers(node: Any, parts: tuple[str, ...] = ()) -> list[str]:
    """Where a proposal marker survives (for checking today's view)."""
    found: list[str] = []
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key in MARKERS:
                found.append(f"{_pointer(parts)}/{key}")
            found.extend(leftover_markers(value, (*parts, str(key))))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found.extend(leftover_markers(item, (*parts, str(index))))
    elif isinstance(node, str) and "proposed:start" in node:
        found.append(_pointer(parts))
    return found


def delta_markdown(contract: Mapping[str, Any]) -> str:
    """A Markdown page listing what the proposals add to today's service."""
    items = proposals(contract)
    lines = [
        "# What the proposals add",
        "",
        "Generated from `openapi/cortex_gs.yaml` by `make generate`; do not edit. Each row is one",
        "element marked `x-status: proposed`; today's service is",
        "`generated/openapi/cortex_gs.today.yaml` (the same contract with these removed).",
        "",
        f"{len(items)} proposals.",
        "",
        "| kind | element | rationale |",
        "|---|---|---|",
    ]
    for item in items:
        summary = item.summary.replace("|", "\\|")
        rationale = item.rationale.replace("|", "\\|")
        lines.append(f"| {item.kind} | `{summary}` | {rationale} |")
    lines.append("")
    return "\n".join(lines)
