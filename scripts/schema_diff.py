"""Schema compatibility, the half of spec_diff.py that compares two JSON Schemas.

Requests may only widen (a client built from the old contract sends what it always
sent), responses may only narrow (it reads what it always read). ``SchemaDiffer`` walks
two schemas side by side and records what would break such a client; spec_diff.py's
differ extends it with operations, parameters, bodies, responses and security.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

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
class Spec:
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
class SchemaDiffer:
    """Compares schemas of two contracts, collecting findings."""

    old: Spec
    new: Spec
    findings: list[Finding] = field(default_factory=list)
    _visiting: set[tuple[str, str, str]] = field(default_factory=set)

    def add(self, where: str, what: str) -> None:
        self.findings.append(Finding(where, what))

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
    def _keyed(spec: Spec, variants: list[Any]) -> Iterator[tuple[str, Any]]:
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
        # A request must keep accepting what it did; a response must not return more. So
        # for requests the old types must fit the new ones, for responses the other way.
        if direction == "request":
            wider, narrower = old_types, new_types
            to_any, beyond = f"type narrowed from any to {sorted(new_types)}", "no longer accepts"
        else:
            wider, narrower = new_types, old_types
            to_any, beyond = f"type widened from {sorted(old_types)} to any", "may now return"
        if narrower and not wider:
            self.add(where, to_any)
            return
        outside = {t for t in wider if not _covered(t, narrower)}
        if narrower and outside:
            self.add(where, f"{beyond} type {sorted(outside)}")

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
