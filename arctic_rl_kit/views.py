"""The two views of the contract: today's service alone, and the full one with proposals
(what the proposals add, element by element, is listed by ``arctic_rl_kit.proposals``).

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


def pointer(parts: tuple[str, ...]) -> str:
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


def reachable_from(components: Mapping[str, Any], node: Any) -> set[str]:
    """The components ``node`` reaches, directly or through other components."""
    seen: set[str] = set()
    queue = [_component_of(ref) for ref in references(node)]
    while queue:
        ref = queue.pop()
        if ref in seen:
            continue
        seen.add(ref)
        _, _, section, name = ref.split("/", 3)
        target = (components.get(section) or {}).get(name.replace("~1", "/").replace("~0", "~"))
        queue.extend(_component_of(inner) for inner in references(target))
    return seen


def _reachable(doc: Mapping[str, Any]) -> set[str]:
    """Components reachable from everything outside ``components`` (paths, info, ...)."""
    components = doc.get("components") or {}
    roots = {key: value for key, value in doc.items() if key != "components"}
    # Security schemes are used by name, not by reference.
    schemes = {
        f"{COMPONENTS_PREFIX}securitySchemes/{name}"
        for name in components.get("securitySchemes") or {}
    }
    return schemes | reachable_from(components, roots)


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


def leftover_markers(node: Any, parts: tuple[str, ...] = ()) -> list[str]:
    """Where a proposal marker survives (for checking today's view)."""
    found: list[str] = []
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key in MARKERS:
                found.append(f"{pointer(parts)}/{key}")
            found.extend(leftover_markers(value, (*parts, str(key))))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found.extend(leftover_markers(item, (*parts, str(index))))
    elif isinstance(node, str) and "proposed:start" in node:
        found.append(pointer(parts))
    return found
