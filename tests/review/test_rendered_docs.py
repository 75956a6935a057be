"""The rendered contract reads well: every `x-` extension becomes a labelled list item or a
table with labelled columns (never Redoc's raw JSON), Markdown renders, and the proposals
page names each element one way, lists it once and links into the rendered contract.

The pages are built from the real contract with the pinned Redocly CLI (`make docs`)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml
from markdown_it import MarkdownIt
from repo_scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
SPEC = yaml.safe_load((ROOT / "openapi" / "cortex_gs.yaml").read_text(encoding="utf-8"))
render_docs = load_script("render_docs")
# Keys whose entries are names (a header called x-snowflake-request-id), not extensions.
NAMES = {"paths", "properties", "headers", "content", "responses", "schemas", "parameters"}
NAMES |= {"requestBodies", "securitySchemes", "links", "examples", "variables", "mapping"}


class Tables(HTMLParser):
    """Every <table> of a page as (header cells, body rows), and every link target."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[list[str], list[list[str]]]] = []
        self.hrefs: list[str] = []
        self._cell: list[str] | None = None
        self._row: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append(([], []))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a":
            self.hrefs.extend(value for name, value in attrs if name == "href" and value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self.tables:
            header, body = self.tables[-1]
            if header:
                body.append(self._row)
            else:
                header.extend(self._row)

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def parse(page: str) -> Tables:
    parser = Tables()
    parser.feed(page)
    return parser


def markdown(text: str) -> Tables:
    """A description as HTML, tables included (as Redoc renders them, see the info page)."""
    return parse(MarkdownIt("commonmark").enable("table").render(text))


def table_with(tables: Tables, header: list[str]) -> list[list[str]]:
    (body,) = [body for head, body in tables.tables if head == header]
    return body


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    render_docs.render(out)
    return out


@pytest.fixture(scope="module")
def shown(site: Path) -> dict[str, Any]:
    """The document the rendered full page hands to Redoc."""
    page = (site / render_docs.FULL_PAGE).read_text(encoding="utf-8")
    found = re.search(r"const __redoc_definition = (.*?);\n\s*const __redoc_options", page, re.S)
    assert found, "the page carries no definition"
    return json.loads(found.group(1))


def server_rendered(site: Path, name: str) -> str:
    """The part of a page Redoc renders on the server (before its scripts)."""
    page = (site / name).read_text(encoding="utf-8")
    return page[: page.index('<script type="module">')]


def extensions_left(node: Any, names: bool = False, where: str = "#") -> list[str]:
    if isinstance(node, list):
        return [hit for i, item in enumerate(node) for hit in extensions_left(item, False, where)]
    if not isinstance(node, dict):
        return []
    hits = [f"{where}/{key}" for key in node if not names and key.startswith("x-")]
    for key, value in node.items():
        if key not in ("example", "examples", "default", "enum"):
            hits += extensions_left(value, not names and key in NAMES, f"{where}/{key}")
    return hits


# ------------------------------------------------------------------ extensions
def test_no_extension_is_left_for_redoc_to_dump_as_json(shown: dict[str, Any]) -> None:
    assert extensions_left(SPEC), "the contract itself uses extensions"
    assert extensions_left(shown) == []


def test_the_token_layout_is_a_table_with_labelled_columns(shown: dict[str, Any]) -> None:
    description = shown["components"]["schemas"]["TrainBatch"]["description"]
    assert '{"' not in description and "{'" not in description
    tables = markdown(description)
    rows = table_with(tables, ["tensors", "layout", "rule", "applies to"])
    assert [row[:2] for row in rows] == [["inputs", "token-aligned"], ["outputs", "shifted"]]
    assert "input_ids[:, T - w + j]" in rows[0][2]
    assert "rollout_is_weights" in rows[0][3]


def test_a_polled_result_and_todays_header_are_tables(shown: dict[str, Any]) -> None:
    operation = shown["paths"]["/{job_id}/forward-backward"]["post"]
    rows = table_with(markdown(operation["description"]), ["format", "schema"])
    assert rows == [["dssst1", "ForwardBackwardResult"]]
    header = shown["components"]["headers"]["XSnowflakeRequestId"]["description"]
    today = dict(table_with(markdown(header), ["property", "today"]))
    assert today["required"] == "no"
    assert today["schema.type"] == "string"


def test_scalar_extensions_are_labelled_and_their_markdown_renders(shown: dict) -> None:
    operation = shown["paths"]["/{job_id}/sync-weights"]["post"]
    page = MarkdownIt("commonmark").render(operation["description"])
    assert "<strong>Status</strong> (<code>x-status</code>): proposed" in page
    assert "<strong>Why it is proposed</strong>" in page
    assert "<code>weight-sync</code>" in page  # the rationale's backticks became code
    assert "`" not in page


def test_an_unknown_extension_is_still_a_key_value_table() -> None:
    shown = render_docs.display_copy({"info": {"x-new": {"limit": 3, "when": {"on": [1, 2]}}}})
    assert "x-new" not in shown["info"]
    rows = table_with(markdown(shown["info"]["description"]), ["key", "value"])
    assert rows == [["limit", "3"], ["when.on", "1, 2"]]


def test_the_limits_and_error_codes_render_as_tables_on_the_page(site: Path) -> None:
    tables = parse(server_rendered(site, render_docs.FULL_PAGE))
    headers = [head for head, _ in tables.tables]
    assert ["limit", "value", "refused with"] in headers
    assert ["code", "status", "meaning"] in headers
    assert "`" not in "".join(cell for _, body in tables.tables for row in body for cell in row)


# ------------------------------------------------------------------ the proposals page
def routes_on_the_page(site: Path, shown: dict[str, Any]) -> set[str]:
    """Redoc's hash routes on the full page: `#/<tag>/<operationId>` for each operation of a
    tag the page's menu shows, `#/schemas/<name>` for each schema once the menu has a
    Schemas section (Redoc's slugs are the lower-cased names)."""
    menu = set(re.findall(r'href="(/[^"]*)"', server_rendered(site, render_docs.FULL_PAGE)))
    routes = {
        f"/{operation['tags'][0]}/{operation['operationId']}".lower()
        for item in shown["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and f"/{operation['tags'][0]}".lower() in menu
    }
    if "/schemas" in menu:
        routes |= {f"/schemas/{name}".lower() for name in shown["components"]["schemas"]}
    return routes


def test_every_link_of_the_proposals_page_leads_to_an_element_of_the_contract(
    site: Path, shown: dict[str, Any]
) -> None:
    page = parse((site / render_docs.PROPOSALS_PAGE).read_text(encoding="utf-8"))
    into = [href for href in page.hrefs if href.startswith(f"{render_docs.FULL_PAGE}#")]
    routes = routes_on_the_page(site, shown)
    assert len(into) > 40
    assert sorted({href.split("#", 1)[1] for href in into} - routes) == []
    assert f"{render_docs.FULL_PAGE}#/schemas/trainbatch" in into
    assert f"{render_docs.FULL_PAGE}#/sampling/sync_weights" in into


def test_each_proposal_is_listed_once_named_one_way(site: Path) -> None:
    page = parse((site / render_docs.PROPOSALS_PAGE).read_text(encoding="utf-8"))
    rows = table_with(page, ["element", "appears in", "rationale"])
    elements = [row[0] for row in rows]
    assert len(elements) == len(set(elements))
    assert len([name for name in elements if "wait_s" in name]) == 1
    for expected in (
        "header X-Snowflake-Request-Id",
        "header Idempotency-Key",
        "header Retry-After",
        "query parameter wait_s",
        "route POST /{job_id}/sync-weights",
        "field grad_norm of TrainMetrics",
        "schema TrainBatch",
        "registry entry losses.verl_grpo of Processing",
        "registry entry post_processors.compute_entropy_and_logprobs of Processing",
    ):
        assert expected in elements
    forms = {re.sub(r" .*", "", name) for name in elements}
    assert forms <= {
        "route", "header", "query", "schema", "field", "response", "request", "table", "registry"
    }  # fmt: skip
    assert "table x-cost-budgets" in elements


def test_a_proposal_lists_every_route_it_appears_in(site: Path) -> None:
    page = parse((site / render_docs.PROPOSALS_PAGE).read_text(encoding="utf-8"))
    rows = {row[0]: row[1] for row in table_with(page, ["element", "appears in", "rationale"])}
    wait_s = rows["query parameter wait_s"].split(", ")
    # declared once in the components (the submits) and once on get_request
    assert "GET /{job_id}/requests/{request_id}" in wait_s
    assert "POST /{job_id}/forward-backward" in wait_s
    assert rows["header X-Snowflake-Request-Id"].startswith("every route")
