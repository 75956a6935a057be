"""Which contract the kit checks, and where in it each operation is written.

Today's view (the default) is the contract without the additions the server team has not
built yet (``x-status: proposed``); ``--with-proposals`` checks the whole document, so the
team can see which proposals they already serve. Locations are JSON pointers into the
contract plus the line of the source file, so a report line leads straight to the text.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
CONTRACT_PATH = REPO_ROOT / "openapi" / "cortex_gs.yaml"
# The generated "today view" of the repo's contract (``make generate``: proposals removed).
TODAY_VIEW_PATH = REPO_ROOT / "generated" / "openapi" / "cortex_gs.today.yaml"
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def today_view(document: dict[str, Any]) -> dict[str, Any]:
    """Today's view of a contract other than the repo's (whose view is generated), made by
    the project's own definition of "today" (``scripts/contract_views.py``)."""
    module_path = REPO_ROOT / "scripts" / "contract_views.py"
    if not module_path.is_file():
        raise FileNotFoundError(
            f"cannot derive today's view without {module_path}; pass --with-proposals"
        )
    name = "contract_check._contract_views"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, module_path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while it loads
        spec.loader.exec_module(module)
    return dict(module.today_view(document))


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
            document, view = today_view(full), "today"
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

    def resolve(self, node: Any) -> Any:
        """``node`` with local ``$ref`` s followed (a response, a link, a schema)."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if not ref.startswith("#/") or ref in seen:
                return node
            seen.add(ref)
            node = self.document
            for part in ref[2:].split("/"):
                node = node.get(part.replace("~1", "/").replace("~0", "~"), {})
        return node

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
