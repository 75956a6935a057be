"""Report breaking changes between two versions of the contract.

``make spec-diff BASE=<ref>`` compares the contract at a git ref with the working tree;
``make spec-diff`` also compares today's view of the working tree's contract (every
``x-status: proposed`` element removed, see contract_views.py) with the full contract, so
that no proposal can break a client of today's service. A change is breaking when a client
built from the old contract could fail against a server built from the new one:

- operations: removed, or their operationId renamed (generated function names change);
- parameters: removed, newly required, or their schema narrowed;
- request bodies: newly required, a media type removed, or a schema narrowed (a field
  removed or newly required, a type, enum or bound tightened, an allOf rule added);
- responses: a status code removed (a changed code shows as removed plus added), a media
  type or header removed, or a schema widened where clients read it (a field removed or
  no longer required, a type or enum value added, an allOf rule dropped);
- security: a new scheme required.

Schemas linked from binary bodies with ``x-dssst1-schema`` (what travels inside DSSST1
frames), ``x-dssst1-envelope``, ``x-dssst1-metadata`` or ``x-json-schema`` (JSON sent as
bytes) are compared like JSON bodies. Exit status: 0 when nothing breaks, 1 when
something does, 2 when a contract cannot be loaded.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contract_views  # a sibling module (scripts/ is not a package)

SPEC = Path("openapi/cortex_gs.yaml")
BODY_LINKS = ("x-dssst1-schema", "x-dssst1-envelope", "x-dssst1-metadata", "x-json-schema")
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
Direction = Literal["request", "response"]
# Bounds a request schema may not tighten: (keyword, True when a larger value is tighter).
_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")


@dataclass(frozen=True, order=True)
class Finding:
    """One breaking change: where it is and what a BASE client would trip over."""

    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


@dataclass
class _Spec:
    """A contract with its ``$ref`` resolver."""

    doc: Mapping[str, Any]

    def resolve(self, node: Any) -> Any:
        """Follow local ``$ref`` chains (``#/components/...``) to the node they name."""
        seen: set[str] = set()
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#/"):
                return node
            seen.add(ref)
            node = self.lookup(ref)
        return node

    def lookup(self, ref: str) -> Any:
        """The node a JSON pointer names, or {} when it names nothing."""
        node: Any = self.doc
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or part not in node:
                return {}
            node = node[part]
        return node

    def operations(self) -> dict[tuple[str, str], tuple[dict[str, Any], list[Any]]]:
        """(path, method) -> (operation, path-level parameters)."""
        out: dict[tuple[str, str], tuple[dict[str, Any], list[Any]]] = {}
        for path, item in (self.doc.get("paths") or {}).items():
            item = self.resolve(item)
            for method in METHODS:
                if isinstance(item.get(method), Mapping):
                    out[(path, method)] = (item[method], list(item.get("parameters") or []))
        return out


@dataclass
class _Differ:
    """Walks two contracts side by side, collecting findings."""

    old: _Spec
    new: _Spec
    findings: list[Finding] = field(default_factory=list)
    _visiting: set[tuple[str, str, str]] = field(default_factory=set)

    def add(self, where: str, what: str) -> None:
        self.findings.append(Finding(where, what))

    # -- operations ------------------------------------------------------------------
    def run(self) -> list[Finding]:
        old_ops, new_ops = self.old.operations(), self.new.operations()
        for key, (old_op, old_path_params) in old_ops.items():
            where = f"{key[1].upper()} {key[0]} ({old_op.get('operationId', '?')})"
            if key not in new_ops:
                self.add(where, "operation removed")
                continue
            new_op, new_path_params = new_ops[key]
            if old_op.get("operationId") != new_op.get("operationId"):
                self.add(
                    where,
                    f"operationId renamed to {new_op.get('operationId')!r} "
                    "(generated client functions change name)",
                )
            self.parameters(
                where,
                [*old_path_params, *(old_op.get("parameters") or [])],
                [*new_path_params, *(new_op.get("parameters") or [])],
            )
            self.request_body(where, old_op.get("requestBody"), new_op.get("requestBody"))
            self.responses(where, old_op.get("responses") or {}, new_op.get("responses") or {})
            self.security(where, old_op, new_op)
        return sorted(set(self.findings))

    def _params(self, spec: _Spec, params: list[Any]) -> dict[tuple[str, str], dict[str, Any]]:
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for param in params:  # operation-level entries override path-level ones
            param = spec.resolve(param)
            out[(str(param.get("in")), str(param.get("name")))] = param
        return out

    def parameters(self, where: str, old: list[Any], new: list[Any]) -> None:
        old_params, new_params = self._params(self.old, old), self._params(self.new, new)
        for key, param in old_params.items():
            label = f"{where} {key[0]} parameter {key[1]!r}"
            if key not in new_params:
                self.add(label, "parameter removed")
                continue
            if new_params[key].get("required") and not param.get("required"):
                self.add(label, "parameter became required")
            self.schema(label, param.get("schema"), new_params[key].get("schema"), "request")
        for key, param in new_params.items():
            if key not in old_params and param.get("required"):
                self.add(f"{where} {key[0]} parameter {key[1]!r}", "new required parameter")

    def request_body(self, where: str, old: Any, new: Any) -> None:
        old_body, new_body = self.old.resolve(old) or {}, self.new.resolve(new) or {}
        label = f"{where} request body"
        if not old_body:
            if new_body.get("required"):
                self.add(label, "new required request body")
            return
        if not new_body:
            self.add(label, "request body removed")
            return
        if new_body.get("required") and not old_body.get("required"):
            self.add(label, "request body became required")
        self.content(label, old_body.get("content") or {}, new_body.get("content") or {}, "request")

    def responses(self, where: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        for status, old_resp in old.items():
            label = f"{where} response {status}"
            if status not in new:
                self.add(label, "status code removed")
                continue
            old_resp, new_resp = self.old.resolve(old_resp), self.new.resolve(new[status])
            old_headers = old_resp.get("headers") or {}
            new_headers = {k.lower() for k in new_resp.get("headers") or {}}
            for name in old_headers:
                if name.lower() not in new_headers:
                    self.add(label, f"response header {name!r} removed")
            self.content(
                label, old_resp.get("content") or {}, new_resp.get("content") or {}, "response"
            )

    def content(
        self, label: str, old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction
    ) -> None:
        for media, old_media in old.items():
            if media not in new:
                self.add(label, f"media type {media!r} removed")
                continue
            new_media = new[media]
            self.schema(
                f"{label} [{media}]", old_media.get("schema"), new_media.get("schema"), direction
            )
            for ext in BODY_LINKS:
                old_ref, new_ref = old_media.get(ext), new_media.get(ext)
                if old_ref and not new_ref:
                    self.add(label, f"{ext} link removed")
                elif old_ref and new_ref:
                    self.schema(
                        f"{label} [{media} {ext}]", {"$ref": old_ref}, {"$ref": new_ref}, direction
                    )

    def security(self, where: str, old_op: Mapping[str, Any], new_op: Mapping[str, Any]) -> None:
        old_sec = old_op.get("security", self.old.doc.get("security")) or []
        new_sec = new_op.get("security", self.new.doc.get("security")) or []
        old_sets = [frozenset(req) for req in old_sec]
        for req in new_sec:  # each new alternative must be satisfiable by an old one
            if old_sets and not any(frozenset(req) <= old for old in old_sets):
                self.add(where, f"security now requires {sorted(req)}")
        if new_sec and not old_sec:
            self.add(where, "authentication now required")

    # -- schemas ---------------------------------------------------------------------
    def schema(self, where: str, old: Any, new: Any, direction: Direction) -> None:
        """Compare two schemas; requests may only widen, responses may only narrow."""
        if not isinstance(old, Mapping) or not isinstance(new, Mapping):
            return  # absent, or a boolean schema
        key = (str(old.get("$ref", id(old))), str(new.get("$ref", id(new))), direction)
        if key in self._visiting:  # recursive schemas: each pair once per walk
            return
        self._visiting.add(key)
        try:
            self._schema(where, self.old.resolve(old), self.new.resolve(new), direction)
        finally:
            self._visiting.discard(key)

    def _schema(self, where: str, old: Any, new: Any, direction: Direction) -> None:
        if not isinstance(old, Mapping) or not isinstance(new, Mapping):
            return
        if self._variants(where, old, new, direction):
            return
        self._all_of(where, old, new, direction)
        self._types(where, old, new, direction)
        self._enums(where, old, new, direction)
        if direction == "request":
            self._bounds(where, old, new)
        self._properties(where, old, new, direction)
        if "items" in old and "items" in new:
            self.schema(f"{where}[]", old["items"], new["items"], direction)
        old_extra, new_extra = old.get("additionalProperties"), new.get("additionalProperties")
        if isinstance(old_extra, Mapping) and isinstance(new_extra, Mapping):
            self.schema(f"{where}{{*}}", old_extra, new_extra, direction)
        elif direction == "request" and old_extra is not False and new_extra is False:
            if not old.get("properties") or old_extra is True:
                self.add(where, "no longer accepts additional properties")
        elif direction == "response" and old_extra is False and new_extra not in (False, None):
            self.add(where, "may now return additional properties")

    def _variants(
        self, where: str, old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction
    ) -> bool:
        """anyOf/oneOf: requests may not lose variants, responses may not gain them."""
        old_vars = old.get("oneOf") or old.get("anyOf")
        new_vars = new.get("oneOf") or new.get("anyOf")
        if not old_vars and not new_vars:
            return False
        old_map = dict(self._keyed(self.old, old_vars or [old]))
        new_map = dict(self._keyed(self.new, new_vars or [new]))
        missing, source = (
            (old_map.keys() - new_map.keys(), "removed")
            if direction == "request"
            else (new_map.keys() - old_map.keys(), "added")
        )
        for name in sorted(missing):
            self.add(where, f"{direction} variant {name} {source}")
        for name in sorted(old_map.keys() & new_map.keys()):
            self.schema(where, old_map[name], new_map[name], direction)
        return True

    def _all_of(
        self, where: str, old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction
    ) -> None:
        """allOf rules (conditions, mixins): requests may not gain them, responses not lose them.

        Rules are matched by their text; a ``$ref`` kept on both sides is compared in depth.
        """
        old_rules = {_canonical(r): r for r in old.get("allOf") or []}
        new_rules = {_canonical(r): r for r in new.get("allOf") or []}
        for key in old_rules.keys() & new_rules.keys():
            if isinstance(old_rules[key], Mapping) and "$ref" in old_rules[key]:
                self.schema(where, old_rules[key], new_rules[key], direction)
        if direction == "request":
            gained = len(new_rules.keys() - old_rules.keys())
            if gained:
                self.add(where, f"{gained} new allOf rule(s) constrain the request")
        else:
            lost = len(old_rules.keys() - new_rules.keys())
            if lost:
                self.add(where, f"{lost} allOf rule(s) the response satisfied were dropped")

    @staticmethod
    def _keyed(spec: _Spec, variants: list[Any]) -> Iterator[tuple[str, Any]]:
        """Name each variant by its $ref, else by its type(s), so both sides line up."""
        for index, variant in enumerate(variants):
            if isinstance(variant, Mapping) and "$ref" in variant:
                yield str(variant["$ref"]).rsplit("/", 1)[-1], variant
                continue
            types = _types_of(spec.resolve(variant))
            yield ("|".join(sorted(types)) if types else f"#{index}"), variant

    def _types(
        self, where: str, old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction
    ) -> None:
        old_types, new_types = _types_of(old), _types_of(new)
        if direction == "request":
            if new_types and not old_types:
                self.add(where, f"type narrowed from any to {sorted(new_types)}")
                return
            lost = {t for t in old_types if not _covered(t, new_types)}
            if new_types and lost:
                self.add(where, f"no longer accepts type {sorted(lost)}")
        else:
            if old_types and not new_types:
                self.add(where, f"type widened from {sorted(old_types)} to any")
                return
            gained = {t for t in new_types if not _covered(t, old_types)}
            if old_types and gained:
                self.add(where, f"may now return type {sorted(gained)}")

    def _enums(
        self, where: str, old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction
    ) -> None:
        old_enum, new_enum = _enum_of(old), _enum_of(new)
        if direction == "request":
            if new_enum is not None and old_enum is None:
                self.add(where, f"now restricted to {sorted(map(repr, new_enum))}")
            elif new_enum is not None and old_enum is not None and old_enum - new_enum:
                self.add(where, f"enum values removed: {sorted(map(repr, old_enum - new_enum))}")
        elif old_enum is not None:
            if new_enum is None:
                self.add(where, "no longer restricted to an enum")
            elif new_enum - old_enum:
                self.add(where, f"enum values added: {sorted(map(repr, new_enum - old_enum))}")

    def _bounds(self, where: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        for keyword in (*_LOWER_BOUNDS, *_UPPER_BOUNDS):
            before, after = old.get(keyword), new.get(keyword)
            if not isinstance(after, int | float) or isinstance(after, bool):
                continue
            if before is None:
                self.add(where, f"new bound {keyword}={after}")
            elif isinstance(before, int | float) and (
                after > before if keyword in _LOWER_BOUNDS else after < before
            ):
                self.add(where, f"{keyword} tightened from {before} to {after}")
        if new.get("pattern") and new.get("pattern") != old.get("pattern"):
            self.add(where, f"pattern changed to {new['pattern']!r}")

    def _properties(
        self, where: str, old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction
    ) -> None:
        old_props, new_props = old.get("properties") or {}, new.get("properties") or {}
        old_req, new_req = set(old.get("required") or []), set(new.get("required") or [])
        for name, old_prop in old_props.items():
            if name not in new_props:
                self.add(f"{where}.{name}", f"{direction} field removed")
                continue
            self.schema(f"{where}.{name}", old_prop, new_props[name], direction)
        if direction == "request":
            for name in sorted(new_req - old_req):
                self.add(
                    f"{where}.{name}",
                    "request field became required"
                    if name in old_props
                    else "new required request field",
                )
        else:
            for name in sorted(old_req - new_req):
                if name in new_props:
                    self.add(f"{where}.{name}", "response field no longer required")


def _types_of(schema: Mapping[str, Any]) -> set[str]:
    """JSON types a schema allows (3.1 type lists, 3.0 ``nullable``); empty means any."""
    raw = schema.get("type")
    types = {raw} if isinstance(raw, str) else set(raw or [])
    if schema.get("nullable"):
        types.add("null")
    if "const" in schema and not types:
        types.add(type(schema["const"]).__name__)
    return types


def _covered(kind: str, types: set[str]) -> bool:
    return kind in types or (kind == "integer" and "number" in types)


def _enum_of(schema: Mapping[str, Any]) -> set[Any] | None:
    if "enum" in schema:
        return {_hashable(v) for v in schema["enum"]}
    if "const" in schema:
        return {_hashable(schema["const"])}
    return None


def _canonical(value: Any) -> str:
    """One text per JSON value, whatever its key order."""
    return yaml.safe_dump(value, sort_keys=True)


def _hashable(value: Any) -> Any:
    return _canonical(value) if isinstance(value, dict | list) else value


def breaking_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Finding]:
    """Every breaking change from contract ``old`` to contract ``new`` (both parsed dicts)."""
    return _Differ(_Spec(old), _Spec(new)).run()


def load_at(ref: str, spec: Path = SPEC) -> dict[str, Any]:
    """The contract as committed at ``ref`` (``git show REF:path``)."""
    shown = subprocess.run(
        ["git", "show", f"{ref}:{spec.as_posix()}"], capture_output=True, text=True, check=False
    )
    if shown.returncode != 0:
        raise SystemExit(f"spec-diff: cannot read {spec} at {ref!r}: {shown.stderr.strip()}")
    return dict(yaml.safe_load(shown.stdout))


def _report(old: Mapping[str, Any], new: Mapping[str, Any], old_name: str, new_name: str) -> int:
    """Print the compatible additions and the breaking changes; 1 when something breaks."""
    findings = breaking_changes(old, new)
    old_ops = _Spec(old).operations()
    for path, method in sorted(key for key in _Spec(new).operations() if key not in old_ops):
        print(f"compatible: new operation {method.upper()} {path}")
    if not findings:
        print(f"spec-diff: no breaking changes between {old_name} and {new_name}")
        return 0
    print(f"spec-diff: {len(findings)} breaking change(s) between {old_name} and {new_name}:")
    for finding in findings:
        print(f"  - {finding}")
    return 1


def main(argv: list[str] | None = None) -> int:
    """Compare BASE's contract (or today's view) with the working tree's; exit 1 on breaks."""
    parser = argparse.ArgumentParser(prog="scripts/spec_diff.py", description=__doc__)
    parser.add_argument("--base", default="HEAD", help="git ref of the old contract")
    parser.add_argument("--spec", type=Path, default=SPEC, help="contract path in the repo")
    parser.add_argument(
        "--today",
        action="store_true",
        help="compare today's view of the working tree's contract with the full contract "
        "instead (a proposal must not break a client of today's service)",
    )
    args = parser.parse_args(argv)
    try:
        new = dict(yaml.safe_load(args.spec.read_text(encoding="utf-8")))
        if args.today:
            old, old_name = contract_views.today_view(new), "today's view"
        else:
            old, old_name = load_at(args.base, args.spec), args.base
    except (OSError, yaml.YAMLError, contract_views.ViewError) as exc:
        print(f"spec-diff: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    new_name = "the full contract" if args.today else "the working tree"
    return _report(old, new, old_name, new_name)


if __name__ == "__main__":
    raise SystemExit(main())
