"""Which contract the kit checks, and where in it each operation is written.

Today's view (the default) is the contract without the additions the server team has not
built yet (``x-status: proposed``); ``--with-proposals`` checks the whole document, so the
team can see which proposals they already serve. Locations are JSON pointers into the
contract plus the line of the source file, so a report line leads straight to the text.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
CONTRACT_PATH = REPO_ROOT / "openapi" / "cortex_gs.yaml"
# The generated "today view" of the contract (proposals stripped), when the repo has one;
# without it the kit strips the proposals itself (:func:`strip_proposals`).
TODAY_VIEW_PATH = REPO_ROOT / "generated" / "openapi" / "cortex_gs.today.yaml"
PROPOSED = "proposed"
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def strip_proposals(document: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``document`` without anything marked ``x-status: proposed``.

    Operations, parameters, properties (and their ``required`` entries), responses and
    links that are proposed disappear, as do links to a vanished operation. Component
    schemas stay (an unused one is harmless; removing one still referenced would not be).
    """
    view = copy.deepcopy(document)
    _strip(view, keep_children=False)
    while _drop_dangling_refs(view, view):
        pass  # a removed reference can leave another one dangling
    operations = {op["operationId"] for _, _, op in iter_operations(view)}
    for _, _, op in iter_operations(view):
        for response in op.get("responses", {}).values():
            links = response.get("links", {}) if isinstance(response, dict) else {}
            for name in [
                n for n, link in links.items() if link.get("operationId") not in operations
            ]:
                del links[name]
    return view


def _resolves(document: dict[str, Any], ref: str) -> bool:
    node: Any = document
    for part in ref.removeprefix("#/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _dangling(document: dict[str, Any], node: Any) -> bool:
    ref = node.get("$ref") if isinstance(node, dict) else None
    return isinstance(ref, str) and ref.startswith("#/") and not _resolves(document, ref)


def _drop_dangling_refs(document: dict[str, Any], node: Any) -> bool:
    """Remove every item or entry that is only a reference to something stripped."""
    changed = False
    if isinstance(node, dict):
        for key in list(node):
            if _dangling(document, node[key]):
                del node[key]
                if isinstance(node.get("required"), list) and key in node["required"]:
                    node["required"].remove(key)
                changed = True
            else:
                changed |= _drop_dangling_refs(document, node[key])
    elif isinstance(node, list):
        kept = [item for item in node if not _dangling(document, item)]
        changed = len(kept) != len(node)
        node[:] = kept
        for item in node:
            changed |= _drop_dangling_refs(document, item)
    return changed


def _is_proposed(node: Any) -> bool:
    return isinstance(node, dict) and node.get("x-status") == PROPOSED


def _strip(node: Any, *, keep_children: bool) -> None:
    """Remove proposed children of ``node`` in place, recursively (component schemas are
    walked but never removed themselves: ``keep_children`` marks that level)."""
    if isinstance(node, dict):
        for key in list(node):
            child = node[key]
            if _is_proposed(child) and not keep_children:
                del node[key]
                if isinstance(node.get("required"), list) and key in node["required"]:
                    node["required"].remove(key)
                continue
            _strip(child, keep_children=key == "schemas")
        required = node.get("required")
        properties = node.get("properties")
        if isinstance(required, list) and isinstance(properties, dict):
            node["required"] = [name for name in required if name in properties]
    elif isinstance(node, list):
        node[:] = [item for item in node if not _is_proposed(item)]
        for item in node:
            _strip(item, keep_children=False)


def iter_operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(path, method, operation)`` for every operation of ``document``."""
    return [
        (path, method, op)
        for path, item in document.get("paths", {}).items()
        for method, op in item.items()
        if method in HTTP_METHODS and isinstance(op, dict)
    ]


def pointer(*parts: str) -> str:
    """A JSON pointer (RFC 6901) from raw key names."""
    return "#/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


@dataclass
class Contract:
    """The document the kit checks, with the source it came from for locations."""

    document: dict[str, Any]
    source: Path
    view: str  # "today" or "full"
    _lines: dict[tuple[str, ...], int] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, *, with_proposals: bool, path: Path | None = None) -> Contract:
        """Today's view by default; the full contract with ``with_proposals``."""
        source = path or CONTRACT_PATH
        if not source.is_file():
            raise FileNotFoundError(f"contract not found: {source} (pass --contract PATH)")
        full = yaml.safe_load(source.read_text(encoding="utf-8"))
        if with_proposals:
            document, view = full, "full"
        elif path is None and TODAY_VIEW_PATH.is_file():
            document, view = yaml.safe_load(TODAY_VIEW_PATH.read_text(encoding="utf-8")), "today"
        else:
            document, view = strip_proposals(full), "today"
        contract = cls(document=document, source=source, view=view)
        contract._lines = _key_lines(source.read_text(encoding="utf-8"))
        return contract

    def operations(self) -> list[tuple[str, str, dict[str, Any]]]:
        """``(path, method, operation)`` of every operation in this view."""
        return iter_operations(self.document)

    def operation_ids(self) -> set[str]:
        return {op["operationId"] for _, _, op in self.operations()}

    def location(self, path: str, method: str, *more: str) -> str:
        """``file:LINE #/paths/...`` for an operation (or a part of it, e.g. a response)."""
        parts = ("paths", path, method.lower(), *more)
        line = None
        for depth in range(len(parts), 0, -1):  # the deepest part the source spells out
            line = self._lines.get(parts[:depth])
            if line is not None:
                break
        where = self.source.name if line is None else f"{self.source.name}:{line}"
        return f"{where} {pointer(*parts)}"

    def documented_statuses(self, path: str, method: str) -> set[str]:
        """The response keys the operation documents (``"200"``, ``"4XX"``, ``"default"``)."""
        op = self.document["paths"][path][method.lower()]
        return {str(code) for code in op.get("responses", {})}


def _key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Line (1-based) of every mapping key under ``paths``, by its key path."""
    lines: dict[tuple[str, ...], int] = {}

    def walk(node: yaml.Node, at: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                here = (*at, str(key.value))
                lines[here] = key.start_mark.line + 1
                walk(value, here)

    root = yaml.compose(text)
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if key.value == "paths":
                lines[("paths",)] = key.start_mark.line + 1
                walk(value, ("paths",))
    return lines
