"""Report breaking changes between two versions of the contract.

``make spec-diff BASE=<ref>`` compares the contract at a git ref with the working tree;
``make spec-diff`` also compares today's view of the working tree's contract (every
``x-status: proposed`` element removed, see arctic_rl_kit/views.py) with the full contract, so
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

A response schema marked ``x-opt-in: <parameter>`` is answered only to requests that send
that parameter; when the parameter is new and optional, an old client never sends it, so
the schema's ``x-today`` form (what that client can receive) is what is compared.

Schemas linked from binary bodies with ``x-dssst1-schema`` (what travels inside DSSST1
frames), ``x-dssst1-envelope``, ``x-dssst1-metadata`` or ``x-json-schema`` (JSON sent as
bytes) are compared like JSON bodies. Exit status: 0 when nothing breaks, 1 when
something does, 2 when a contract cannot be loaded.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from arctic_rl_kit import views as contract_views

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schema_diff import Direction, Finding, SchemaDiffer, Spec

SPEC = Path("openapi/cortex_gs.yaml")
BODY_LINKS = ("x-dssst1-schema", "x-dssst1-envelope", "x-dssst1-metadata", "x-json-schema")


class _Differ(SchemaDiffer):
    """Walks two contracts side by side, collecting findings."""

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
            old_params = [*old_path_params, *(old_op.get("parameters") or [])]
            new_params = [*new_path_params, *(new_op.get("parameters") or [])]
            self.parameters(where, old_params, new_params)
            self.request_body(where, old_op.get("requestBody"), new_op.get("requestBody"))
            opt_ins = self._new_optional_parameters(old_params, new_params)
            self.responses(
                where, old_op.get("responses") or {}, new_op.get("responses") or {}, opt_ins
            )
            self.security(where, old_op, new_op)
        return sorted(set(self.findings))

    def _params(self, spec: Spec, params: list[Any]) -> dict[tuple[str, str], dict[str, Any]]:
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

    def _new_optional_parameters(self, old: list[Any], new: list[Any]) -> frozenset[str]:
        """Names of the optional parameters ``new`` adds: a client of ``old`` never sends them."""
        old_params = self._params(self.old, old)
        return frozenset(
            name
            for (place, name), param in self._params(self.new, new).items()
            if (place, name) not in old_params and not param.get("required")
        )

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

    def responses(
        self,
        where: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        opt_ins: frozenset[str] = frozenset(),
    ) -> None:
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
            new_content = _as_answered_without(new_resp.get("content") or {}, opt_ins)
            self.content(label, old_resp.get("content") or {}, new_content, "response")

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


def _as_answered_without(content: Mapping[str, Any], opt_ins: frozenset[str]) -> dict[str, Any]:
    """Response content as a client that sends none of ``opt_ins`` receives it.

    A response schema marked ``x-opt-in: <parameter>`` is answered only to a request that
    sends that parameter; when the parameter is new and optional, an old client never does,
    so the schema's ``x-today`` form is what it can receive (a submit's proposed ``wait_s``).
    """
    out: dict[str, Any] = {}
    for media, spec in content.items():
        schema = spec.get("schema") if isinstance(spec, Mapping) else None
        if (
            isinstance(schema, Mapping)
            and schema.get("x-opt-in") in opt_ins
            and "x-today" in schema
        ):
            spec = {**spec, "schema": schema["x-today"]}
        out[media] = spec
    return out


def breaking_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Finding]:
    """Every breaking change from contract ``old`` to contract ``new`` (both parsed dicts)."""
    return _Differ(Spec(old), Spec(new)).run()


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
    old_ops = Spec(old).operations()
    for path, method in sorted(key for key in Spec(new).operations() if key not in old_ops):
        print(f"compatible: new operation {method.upper()} {path}")
    if not findings:
        print(f"spec-diff: no breaking changes between {old_name} and {new_name}")
        return 0
    lines = grouped(findings)
    print(
        f"spec-diff: {len(findings)} breaking change(s), {len(lines)} distinct, between "
        f"{old_name} and {new_name}:"
    )
    for line in lines:
        print(f"  - {line}")
    return 1


_RESPONSE_WHERE = re.compile(r"^(?P<operation>.+?) response (?P<status>\S+) (?P<part>.+)$")


def grouped(findings: list[Finding]) -> list[str]:
    """One line per change: the same change to the same part of several responses (an
    enum shared by every error answer, say) is listed once, with where it happens."""
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    lines: list[str | tuple[str, str]] = []
    for finding in findings:
        match = _RESPONSE_WHERE.match(finding.where)
        if match is None:
            lines.append(str(finding))
            continue
        key = (match["part"], finding.what)
        if key not in groups:
            groups[key] = []
            lines.append(key)
        groups[key].append((match["operation"], match["status"]))
    return [line if isinstance(line, str) else _group_line(line, groups[line]) for line in lines]


def _group_line(key: tuple[str, str], places: list[tuple[str, str]]) -> str:
    part, what = key
    if len(places) == 1:
        operation, status = places[0]
        return f"{operation} response {status} {part}: {what}"
    statuses: dict[str, list[str]] = {}
    for operation, status in places:
        statuses.setdefault(operation, []).append(status)
    where = "; ".join(f"{op} {', '.join(codes)}" for op, codes in statuses.items())
    return f"{part}: {what} (in {len(places)} responses: {where})"


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
