"""Lint openapi/cortex_gs.yaml and render it to one static HTML page (site/cortex_gs.html).

The page is what the server team reviews, so it must open without network access: the
Redoc scripts are inlined (--inlineBundle) and the pinned Redocly CLI runs from the local
node_modules. `npm ci` (from package-lock.json) runs only when node_modules is missing, so
after the first install this works offline.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "cortex_gs.yaml"
CONFIG = ROOT / "openapi" / "redocly.yaml"
REDOCLY = ROOT / "node_modules" / ".bin" / "redocly"
OUTPUT = ROOT / "site" / "cortex_gs.html"
# Strings the rendered page must contain, proving the operations made it onto the page.
EXPECTED = ("create_job", "forward_backward", "get_request", "Idempotency-Key")


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


def lint() -> None:
    """Lint the contract with openapi/redocly.yaml; any error fails."""
    ensure_redocly()
    _run([str(REDOCLY), "lint", "--config", str(CONFIG), str(SPEC)])


def render(output: Path = OUTPUT) -> Path:
    """Lint the contract (errors fail the build), then write and sanity-check the page."""
    lint()
    output.parent.mkdir(parents=True, exist_ok=True)
    _run([
        str(REDOCLY), "build-docs", str(SPEC),
        "--config", str(CONFIG),
        "--output", str(output),
        "--inlineBundle",
        "--title", "Cortex GS training service",
    ])  # fmt: skip
    html = output.read_text(encoding="utf-8")
    missing = [text for text in EXPECTED if text not in html]
    if not html or missing:
        raise SystemExit(f"{output} looks wrong: missing {missing}")
    return output


def main(argv: list[str] | None = None) -> int:
    """Entry point for `make docs`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where to write the page")
    args = parser.parse_args(argv)
    page = render(args.output)
    print(f"wrote {page.relative_to(ROOT) if page.is_relative_to(ROOT) else page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
