"""The README's fenced blocks, read by heading."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


README = (ROOT / "README.md").read_text(encoding="utf-8")


# The guides the README links to hold the framework commands the tests below run.
GUIDES = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))


def block_after(marker: str) -> str:
    """The fenced block that follows ``<!-- readme-test: marker -->`` in the README or a guide."""
    pattern = rf"<!-- readme-test: {marker} -->\s*```\w*\n(.*?)```"
    found = re.search(pattern, README, re.S) or re.search(pattern, GUIDES, re.S)
    assert found, f"neither README nor docs/ has a block marked {marker!r}"
    return found.group(1)
