"""Lint the contract's two views and render them, plus the proposals, as static HTML pages.

`make docs` writes, under site/:
- cortex_gs.html: the full contract (today's service plus the `x-status: proposed` additions);
- cortex_gs.today.html: today's service alone (the view `make generate` writes to
  generated/openapi/cortex_gs.today.yaml, derived here afresh from the contract);
- proposals.html: one table of what the proposals add, with each rationale.

The pages are what the server team reviews, so they must open without network access: the
Redoc scripts are inlined (--inlineBundle) and the pinned Redocly CLI runs from the local
node_modules. `npm ci` (from package-lock.json) runs only when node_modules is missing, so
after the first install this works offline.
"""

from __future__ import annotations

import argparse
import html
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

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
# ...and strings today's page must not contain: proposed operations and headers.
ABSENT_TODAY = ("sync_weights", "forward_no_grad", "log_probs", "Idempotency-Key")


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


def _build(spec: Path, output: Path, title: str) -> str:
    """Lint `spec`, render it to `output`, and answer the page's HTML."""
    lint(spec)
    _run([
        str(REDOCLY), "build-docs", str(spec),
        "--config", str(CONFIG),
        "--output", str(output),
        "--inlineBundle",
        "--title", title,
    ])  # fmt: skip
    return output.read_text(encoding="utf-8")


def _check(page: Path, text: str, expected: tuple[str, ...], absent: tuple[str, ...]) -> None:
    missing = [item for item in expected if item not in text]
    present = [item for item in absent if item in text]
    if not text or missing or present:
        raise SystemExit(f"{page} looks wrong: missing {missing}, unexpected {present}")


def proposals_html(contract: dict) -> str:
    """One self-contained page listing what the proposals add (the Markdown page, as HTML)."""
    inline = MarkdownIt("commonmark").renderInline  # the rationales are Markdown
    rows = "\n".join(
        f"<tr><td>{html.escape(item.kind)}</td><td><code>{html.escape(item.summary)}</code></td>"
        f"<td>{inline(item.rationale)}</td></tr>"
        for item in contract_views.proposals(contract)
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>Cortex GS: what the proposals add</title>"
        "<style>body{font-family:sans-serif;margin:2em}td,th{border:1px solid #ccc;"
        "padding:4px;vertical-align:top}table{border-collapse:collapse}</style></head><body>"
        "<h1>What the proposals add</h1><p>Each row is one element of "
        f'<a href="{FULL_PAGE}">the full contract</a> marked <code>x-status: proposed</code>; '
        f'<a href="{TODAY_PAGE}">today\'s view</a> is the contract without them.</p>'
        "<table><tr><th>kind</th><th>element</th><th>rationale</th></tr>\n"
        f"{rows}\n</table></body></html>\n"
    )


def render(site: Path = SITE) -> list[Path]:
    """Lint and render both views and the proposals page under `site`; answer the pages."""
    site.mkdir(parents=True, exist_ok=True)
    contract = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    full, today, delta = site / FULL_PAGE, site / TODAY_PAGE, site / PROPOSALS_PAGE
    _check(full, _build(SPEC, full, "Cortex GS training service"), EXPECTED_FULL, ())
    with tempfile.TemporaryDirectory(prefix="cortex-gs-today-") as scratch:
        today_spec = Path(scratch) / "cortex_gs.today.yaml"
        today_spec.write_text(
            yaml.safe_dump(contract_views.today_view(contract), sort_keys=False), encoding="utf-8"
        )
        text = _build(today_spec, today, "Cortex GS training service (today)")
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
