"""`make setup` lets the user choose the torch build: TORCH_SPEC is the requirement and
TORCH_INDEX the index it comes from; the default stays the pinned CPU-friendly one."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def planned(*variables: str) -> list[str]:
    """The commands `make setup` would run for the venv (dry run, nothing installed)."""
    done = subprocess.run(
        ["make", "-n", "-B", ".venv/.installed", *variables],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.splitlines()


def torch_line(lines: list[str]) -> str:
    (line,) = [entry for entry in lines if "pip install" in entry and "torch" in entry]
    return line


def test_the_torch_index_and_spec_are_the_users_choice():
    line = torch_line(planned("TORCH_INDEX=file:///srv/torch-cpu", "TORCH_SPEC=torch==2.13.0+cpu"))
    assert line.endswith("--index-url 'file:///srv/torch-cpu' 'torch==2.13.0+cpu'")


def test_by_default_torch_comes_pinned_from_pips_own_indexes():
    line = torch_line(planned())
    assert line.endswith("--disable-pip-version-check  'torch==2.13.0'")
    assert "--index-url" not in line
