"""make as a test runs it: with the Makefile's own defaults, whatever started the suite.

The suite may itself run under make (`make test PYTHON=python3.12 TORCH_ALLOW_CUDA=1`),
whose command line reaches every process below it, through MAKEFLAGS and as environment
variables of the same names; the Makefile's `NAME ?= default` would take them.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
OUTER_MAKE = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"} | set(re.findall(r"^(\w+)\s*\?=", MAKEFILE, re.M))


def clean_env() -> dict[str, str]:
    """This process's environment without what an outer make passed down."""
    return {k: v for k, v in os.environ.items() if k not in OUTER_MAKE}


def expanded(text: str) -> str:
    """``text`` as make expands it with the Makefile's defaults (make itself evaluates it:
    some names are computed, such as the venv's from PYTHON)."""
    quoted = text.replace("'", "'\\''")
    rule = f"_expanded:\n\t@printf '%s\\n' '{quoted}'\n"
    done = subprocess.run(
        ["make", "-s", "-f", "Makefile", "-f", "-", "_expanded"],
        input=rule,
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.removesuffix("\n")
