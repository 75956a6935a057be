"""Lint the contract's two views and render them, plus the proposals, as static HTML pages.

`make docs` writes, under site/:
- cortex_gs.html: the full contract (today's service plus the `x-status: proposed` additions);
- cortex_gs.today.html: today's service alone (the view `make generate` writes to
  generated/openapi/cortex_gs.today.yaml, derived here afresh from the contract);
- proposals.html: what the proposals add, each element once, with its rationale and links
  to it and to the routes it appears in on the full contract's page.

Redoc would show the `x-` extensions as raw JSON; before rendering, each is folded into its
element's description instead (see `display_copy`): a labelled list for the scalar ones
(`x-status`, `x-rationale`, `x-chunk-operation`, ...), a table with labelled columns for the
structured ones (`x-token-layout`, `x-result`, `x-today`), and a key/value table for any
extension this script does not know.

The pages are what the server team reviews, so they must open without network access: the
Redoc scripts are inlined (--inlineBundle) and the pinned Redocly CLI runs from the local
node_modules. `npm ci` (from package-lock.json) runs only when node_modules is missing, so
after the first install this works offline.
"""

from __future__ import annotations

import argparse
import copy
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt

from arctic_rl_kit import proposals as contract_proposals
from arctic_rl_kit import views as contract_views

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "cortex_gs.yaml"
CONFIG = ROOT / "openapi" / "redocly.yaml"
REDOCLY = ROOT / "node_modules" / ".bin" / "redocly"
SITE = ROOT / "site"
FULL_PAGE = "cortex_gs.html"
TODAY_PAGE = "cortex_gs.today.html"
PROPOSALS_PAGE = "proposals.html"
# Strings each rendered page must contain, proving the operations made it onto the page.
EXPECTED_FULL = ("create_job", "forward_backward", "get_request", "Idempotency-Key", "sync_weights")
EXPECTED_TODAY = ("create_job", "forward_backward", "get_request", "generate_stream")
# ...and names today's page must not contain as whole words: proposed operations and headers
# (today's grpo field `old_log_probs_shifted` is not the `log_probs` operation).
ABSENT_TODAY = ("sync_weights", "forward_no_grad", "log_probs", "Idempotency-Key")


# ------------------------------------------------------------------ extensions as prose
# Mapping keys that are names (a header called x-snowflake-request-id), not extensions.
NAME_MAPS = frozenset({
    "paths", "properties", "patternProperties", "headers", "examples", "links", "variables",
    "mapping", "content", "responses", "schemas", "parameters", "requestBodies",
    "securitySchemes", "callbacks", "encoding", "webhooks", "pathItems",
})  # fmt: skip
# Values that are data, never annotated.
DATA_KEYS = frozenset({"example", "examples", "default", "enum", "const"})
# The label each scalar extension reads under.
SCALAR_LABELS = {
    "x-status": "Status",
    "x-rationale": "Why it is proposed",
    "x-proposed-enum": "Proposed enum values",
    "x-chunk-operation": "Chunk-group operation",
    "x-opt-in": "Only when the request sends",
    "x-token-type": "Token type",
    "x-json-schema": "JSON body schema",
    "x-dssst1-schema": "DSSST1 payload schema",
    "x-dssst1-envelope": "DSSST1 chunk envelope",
    "x-dssst1-metadata": "DSSST1 operation metadata",
}
TABLE_TITLES = {
    "x-token-layout": "Per-token layout",
    "x-result": "Polled result",
    "x-today": "What today's service has instead",
}


def _inline(value: Any) -> str:
    """One table cell or list value: references by name, lists comma-joined, one line."""
    if isinstance(value, str) and value.startswith(contract_views.COMPONENTS_PREFIX):
        return f"`{value.rsplit('/', 1)[1]}`"
    if isinstance(value, list):
        return ", ".join(_inline(item) for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return " ".join(str(value).split()).replace("|", "\\|")


def _code(value: Any) -> str:
    """A cell that is code or data, not prose (patterns, tensor shapes, names)."""
    if isinstance(value, list):
        return ", ".join(_code(item) for item in value)
    text = _inline(value)
    return f"`{text}`" if "`" not in text and not text.startswith("`") else text


def _cell(name: str, value: Any) -> str:
    """Prose stays prose (a description); any other value reads as code."""
    return _inline(value) if name.rsplit(".", 1)[-1] == "description" else _code(value)


def _flat(node: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """A mapping's leaves as (dotted key, value) rows."""
    rows: list[tuple[str, Any]] = []
    for key, value in node.items():
        if isinstance(value, Mapping) and "$ref" not in value:
            rows.extend(_flat(value, f"{prefix}{key}."))
        else:
            rows.append((f"{prefix}{key}", value["$ref"] if isinstance(value, Mapping) else value))
    return rows


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    """A Markdown table of cells already written as Markdown."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _token_layout(value: Mapping[str, Any]) -> list[str]:
    rows = [
        ("inputs", value.get("inputs", "-"), value.get("rule"), value.get("applies_to")),
        ("outputs", value.get("outputs", "-"), value.get("outputs_rule"), ["logprobs", "entropy"]),
    ]
    rows = [
        (kind, _inline(layout), _code(rule) if rule else "-", _code(names) if names else "-")
        for kind, layout, rule, names in rows
    ]
    return _table(("tensors", "layout", "rule", "applies to"), rows)


def _extension_table(key: str, value: Mapping[str, Any]) -> list[str]:
    """The table for one structured extension, labelled after it."""
    title = TABLE_TITLES.get(key, "Extension")
    if key == "x-token-layout":
        body = _token_layout(value)
    elif key == "x-result":
        row = (_inline(value.get("format", "-")), _inline(value.get("schema", "-")))
        body = _table(("format", "schema"), [row])
    else:
        rows = [(_inline(name), _cell(name, item)) for name, item in _flat(value)]
        body = _table(("property", "today") if key == "x-today" else ("key", "value"), rows)
    return ["", f"**{title}** (`{key}`):", "", *body]


def extension_markdown(extensions: Mapping[str, Any]) -> str:
    """The Markdown one element's extensions read as: labelled items, then tables."""
    items = [
        f"- **{SCALAR_LABELS.get(key, key)}** (`{key}`): {_inline(value)}"
        for key, value in extensions.items()
        if not isinstance(value, Mapping)
    ]
    tables = [
        line
        for key, value in extensions.items()
        if isinstance(value, Mapping)
        for line in _extension_table(key, value)
    ]
    return "\n".join(items + tables)


def _fold(node: Any, names: bool = False) -> Any:
    """A copy of ``node`` with every extension moved into its element's description."""
    if isinstance(node, list):
        return [_fold(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    extensions: dict[str, Any] = {}
    for key, value in node.items():
        if not names and key.startswith("x-"):
            extensions[key] = value
        elif key in DATA_KEYS and not names:
            out[key] = copy.deepcopy(value)
        else:
            out[key] = _fold(value, names=not names and key in NAME_MAPS)
    if extensions:
        before = str(out.get("description", "")).rstrip()
        out["description"] = f"{before}\n\n{extension_markdown(extensions)}\n".lstrip()
    return out


def display_copy(contract: Mapping[str, Any]) -> dict[str, Any]:
    """The contract as Redoc shows it: each extension folded into a description."""
    return _fold(contract)


# ------------------------------------------------------------------ rendering
def _env() -> dict[str, str]:
    """No telemetry or update checks: the build must not need (or leak to) the network."""
    env = dict(os.environ)
    env.update(REDOCLY_TELEMETRY="off", REDOCLY_SUPPRESS_UPDATE_NOTICE="true")
    return env


def _run(args: list[str]) -> None:
    """Run one command from the repo root, failing with its output."""
    result = subprocess.run(args, cwd=ROOT, env=_env(), capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"failed ({result.returncode}): {' '.join(args[:3])} ...")


def ensure_redocly() -> None:
    """Install the pinned Redocly CLI from package-lock.json if it is not there yet."""
    if REDOCLY.exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm not found: install Node.js 20.19+ to render the docs")
    _run([npm, "ci", "--no-audit", "--no-fund"])


def lint(spec: Path = SPEC) -> None:
    """Lint one view of the contract with openapi/redocly.yaml; any error fails."""
    ensure_redocly()
    _run([str(REDOCLY), "lint", "--config", str(CONFIG), str(spec)])


def _build(contract: Mapping[str, Any], output: Path, title: str) -> str:
    """Lint `contract`, render its display copy to `output`, and answer the page's HTML."""
    with tempfile.TemporaryDirectory(prefix="cortex-gs-docs-") as scratch:
        spec, shown = Path(scratch) / "contract.yaml", Path(scratch) / "display.yaml"
        spec.write_text(yaml.safe_dump(dict(contract), sort_keys=False), encoding="utf-8")
        shown.write_text(yaml.safe_dump(display_copy(contract), sort_keys=False), "utf-8")
        lint(spec)
        _run([
            str(REDOCLY), "build-docs", str(shown),
            "--config", str(CONFIG),
            "--output", str(output),
            "--inlineBundle",
            "--title", title,
        ])  # fmt: skip
    return output.read_text(encoding="utf-8")


def _check(page: Path, text: str, expected: tuple[str, ...], absent: tuple[str, ...]) -> None:
    missing = [item for item in expected if item not in text]
    present = [item for item in absent if re.search(rf"\b{re.escape(item)}\b", text)]
    if not text or missing or present:
        raise SystemExit(f"{page} looks wrong: missing {missing}, unexpected {present}")


def route_link(operation: contract_proposals.Operation) -> str:
    """Where Redoc shows an operation on the full page: `#/<tag>/<operationId>`."""
    return f"{FULL_PAGE}#/{operation.tag.lower()}/{operation.operation_id.lower()}"


def schema_link(name: str) -> str:
    """Where Redoc shows a component schema (the `schemaDefinitionsTagName` section)."""
    return f"{FULL_PAGE}#/schemas/{name.lower()}"


def _anchor(href: str, text: str) -> str:
    return f'<a href="{html.escape(href)}">{text}</a>'


def _element_cell(item: contract_proposals.Proposal, inline: Any) -> str:
    """The element's name, linked to where it is shown: its route, or its schema."""
    text = inline(item.label)
    if item.kind == "route" and len(item.used_by) == 1:
        return _anchor(route_link(item.used_by[0]), text)
    if item.schema:
        return _anchor(schema_link(item.schema), text)
    return text


def proposals_html(contract: dict) -> str:
    """One self-contained page listing what the proposals add, each element once."""
    inline = MarkdownIt("commonmark").renderInline  # labels and rationales are Markdown
    total = len(contract_proposals.operations(contract))

    def route(op: contract_proposals.Operation) -> str:
        return _anchor(route_link(op), f"<code>{html.escape(op.label)}</code>")

    rows = "\n".join(
        f"<tr><td>{_element_cell(item, inline)}</td>"
        f"<td>{contract_proposals.appears_in(item, total, route)}</td>"
        f"<td>{inline(item.rationale)}</td></tr>"
        for item in contract_proposals.proposals(contract)
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>Cortex GS: what the proposals add</title>"
        "<style>body{font-family:sans-serif;margin:2em}td,th{border:1px solid #ccc;"
        "padding:4px;vertical-align:top}table{border-collapse:collapse}</style></head><body>"
        "<h1>What the proposals add</h1><p>Each row is one element of "
        f'<a href="{FULL_PAGE}">the full contract</a> marked <code>x-status: proposed</code>, '
        "with the routes it appears in; "
        f'<a href="{TODAY_PAGE}">today\'s view</a> is the contract without them.</p>'
        "<table><tr><th>element</th><th>appears in</th><th>rationale</th></tr>\n"
        f"{rows}\n</table></body></html>\n"
    )


def render(site: Path = SITE) -> list[Path]:
    """Lint and render both views and the proposals page under `site`; answer the pages."""
    site.mkdir(parents=True, exist_ok=True)
    contract = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    full, today, delta = site / FULL_PAGE, site / TODAY_PAGE, site / PROPOSALS_PAGE
    _check(full, _build(contract, full, "Cortex GS training service"), EXPECTED_FULL, ())
    text = _build(contract_views.today_view(contract), today, "Cortex GS training service (today)")
    _check(today, text, EXPECTED_TODAY, ABSENT_TODAY)
    delta.write_text(proposals_html(contract), encoding="utf-8")
    return [full, today, delta]


def main(argv: list[str] | None = None) -> int:
    """Entry point for `make docs`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=SITE, help="where to write the pages")
    args = parser.parse_args(argv)
    for page in render(args.site):
        print(f"wrote {page.relative_to(ROOT) if page.is_relative_to(ROOT) else page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
