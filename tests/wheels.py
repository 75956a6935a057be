"""The project's wheel, built from the sources, and fresh venvs outside the checkout to
install it into: shared by the tests of the installed kit and the installed mock.

Offline: the wheel is built without build isolation (the project venv's setuptools) from a
scratch copy of what a build reads (a build writes build/ and egg-info in place).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = (
    "pyproject.toml",
    "README.md",
    "arctic_rl-import-hook.pth",
    "arctic_rl",
    "arctic_rl_kit",
    "mock_server",
    "generated",
)
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]


def build_wheel(dest: Path) -> Path:
    """The wheel of the working tree's sources, built in ``dest``."""
    src = dest / "src"
    src.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=ignore)
        else:
            shutil.copy2(path, src / name)
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", dest, src],
        check=True,
        timeout=300,
    )
    (built,) = dest.glob("arctic_rl-*.whl")
    return built


def make_venv(dest: Path, *, with_pip: bool) -> Path:
    """A fresh venv of this interpreter at ``dest``; ``with_pip``: its own pip, as a user's."""
    flags = [] if with_pip else ["--without-pip"]
    subprocess.run([sys.executable, "-m", "venv", *flags, dest], check=True, timeout=120)
    return dest


def purelib(venv: Path) -> Path:
    """The venv's site-packages."""
    done = subprocess.run(
        [
            venv / "bin" / "python",
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(done.stdout.strip())
