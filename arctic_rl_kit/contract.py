"""Which contract the kit checks, and where in it each operation is written.

Today's view (the default) is the contract without the additions the server team has not
built yet (``x-status: proposed``); ``--with-proposals`` checks the whole document, so the
team can see which proposals they already serve. Locations are JSON pointers into the
contract plus the line of the source file, so a report line leads straight to the text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from arctic_rl.shared import key_lines
from arctic_rl_kit.views import today_view

# Both views ship as data of the generated contract package (``make generate`` writes them),
# so the kit reads the same documents from a checkout and from an installed wheel.
CONTRACT_DATA = resources.files("cortex_gs_contract")
CONTRACT_PATH = Path(str(CONTRACT_DATA / "cortex_gs.yaml"))
TODAY_VIEW_PATH = Path(str(CONTRACT_DATA / "cortex_gs.today.yaml"))
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


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
        elif path is None:
            document, view = yaml.safe_load(TODAY_VIEW_PATH.read_text(encoding="utf-8")), "today"
        else:
            document, view = dict(today_view(full)), "today"
        contract = cls(document=document, source=source, view=view)
        contract._lines = key_lines(source)
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
