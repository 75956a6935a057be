"""The `mock` extra's version ranges, proved at both ends (``make extras-bounds``; by hand).

The extra asks for ranges, so pip can keep what a framework's environment already has;
this builds one scratch venv with each requirement of the extra at its lower bound and
one with the newest versions the ranges allow, and runs the mock's smoke tests in each.
Everything else (torch, pytest, the project itself) comes from the project's venv, placed
after the scratch venv's own packages on ``sys.path``, so only the extra's packages (and
what they pull in) differ from the venv the suite runs in.

    python scripts/extras_bounds.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
import venv
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
SMOKE_TESTS = ["tests/mock/test_cli.py", "tests/mock/test_e2e.py", "tests/mock/test_guide.py"]
EXTRA = "mock"


def extra_requirements(pyproject: Path = ROOT / "pyproject.toml") -> list[Requirement]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return [Requirement(line) for line in project["optional-dependencies"][EXTRA]]


def lowest(requirement: Requirement) -> str:
    """The requirement pinned at its lower bound (a range without one is refused)."""
    floors = [s.version for s in requirement.specifier if s.operator == ">="]
    if len(floors) != 1:
        raise SystemExit(f"{requirement}: the {EXTRA} extra needs one lower bound (>=)")
    return f"{requirement.name}=={floors[0]}"


def build(where: Path, pins: list[str], upgrade: bool) -> Path:
    """A venv holding ``pins`` (and what they need), then the project's venv after its own
    packages (added once pip is done, so pip resolves in the scratch venv alone)."""
    venv.create(where, with_pip=True, clear=True)
    python = where / "bin" / "python"
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *(["--upgrade"] if upgrade else []), *pins], check=True)
    purelib = subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip()
    # An import line: addsitedir also runs the project venv's own .pth files (its editable
    # installs), which a plain path line would not.
    project = sysconfig.get_paths()["purelib"]
    (Path(purelib) / "project-venv.pth").write_text(f"import site; site.addsitedir({project!r})\n")
    return python


def prove(name: str, python: Path, pins: list[str]) -> bool:
    """Run the smoke tests with ``python``; say which versions they ran on."""
    names = [Requirement(p).name for p in pins]
    show = (
        f"import importlib.metadata as m, json; print(json.dumps([m.version(n) for n in {names}]))"
    )
    versions = json.loads(subprocess.check_output([python, "-c", show], text=True))
    print(f"{name}: {dict(zip(names, versions, strict=True))}", flush=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    tests = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SMOKE_TESTS]
    return subprocess.run(tests, cwd=ROOT, env={**env, "OMP_NUM_THREADS": "1"}).returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--keep", type=Path, help="build the venvs here and keep them")
    args = parser.parse_args(argv)
    requirements = extra_requirements()
    ends = {
        "lowest": ([lowest(r) for r in requirements], False),
        "highest": ([str(r) for r in requirements], True),
    }
    with tempfile.TemporaryDirectory(prefix="extras-bounds-") as scratch:
        base = args.keep or Path(scratch)
        failed = [
            name
            for name, (pins, upgrade) in ends.items()
            if not prove(name, build(base / name, pins, upgrade), pins)
        ]
    print(f"{EXTRA} extra: " + (f"FAILED at {', '.join(failed)}" if failed else "both ends pass"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
