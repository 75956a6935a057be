"""Refuse, before anything is downloaded, a torch install that would pull the CUDA build onto
a machine without a GPU.

`make setup` runs this with the same pip options and requirement it then installs torch
with (`python scripts/torch_choice.py -- [--index-url URL] 'torch==2.13.0'`). Where no GPU is
found, it asks pip what it would install (`pip install --dry-run --report`, which resolves
from package metadata and installs nothing) and stops with one line saying how to choose if
that includes CUDA runtime packages (`nvidia-*`) or a CUDA build of torch (a `+cu` local
version). A CPU build, or any machine with a GPU, passes silently.

Standard library only: it runs in the fresh virtual environment before anything is installed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

EXIT_OK = 0
EXIT_CUDA = 3
GPU_CHOICES = ("auto", "present", "absent")
HOW_TO_CHOOSE = (
    "rerun with TORCH_INDEX=<PyTorch's CPU-only index, from the install selector on "
    "PyTorch's website> or TORCH_SPEC=<a CPU build>, or TORCH_ALLOW_CUDA=1 to install it "
    "anyway (see docs/setup.md)"
)


def has_gpu() -> bool:
    """Whether an NVIDIA GPU answers (`nvidia-smi -L` runs and succeeds)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def planned(pip_args: Sequence[str]) -> list[tuple[str, str]]:
    """(name, version) of every distribution `pip install <pip_args>` would install."""
    with tempfile.TemporaryDirectory(prefix="torch-choice-") as scratch:
        report = Path(scratch) / "report.json"
        command = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet"]
        command += ["--disable-pip-version-check", "--report", str(report), *pip_args]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(done.returncode)
        items = json.loads(report.read_text(encoding="utf-8")).get("install", [])
    return [(item["metadata"]["name"], item["metadata"]["version"]) for item in items]


def cuda_parts(packages: Iterable[tuple[str, str]]) -> list[str]:
    """The packages that belong to a CUDA build: NVIDIA runtime wheels, `+cu` local versions."""
    return [
        f"{name} {version}"
        for name, version in packages
        if name.lower().replace("_", "-").startswith("nvidia-") or "+cu" in version
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for `make setup`; the arguments after `--` are pip's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--gpu", choices=GPU_CHOICES, default="auto", help="auto: ask nvidia-smi (default)"
    )
    parser.add_argument(
        "--allow-cuda", action="store_true", help="accept a CUDA build without a GPU"
    )
    parser.add_argument("pip_args", nargs=argparse.REMAINDER, help="-- then pip's arguments")
    args = parser.parse_args(argv)
    pip_args = args.pip_args[1:] if args.pip_args[:1] == ["--"] else args.pip_args
    if not pip_args:
        parser.error("give pip's arguments after --, for example: -- 'torch==2.13.0'")
    gpu = has_gpu() if args.gpu == "auto" else args.gpu == "present"
    if gpu or args.allow_cuda:
        return EXIT_OK
    cuda = cuda_parts(planned(pip_args))
    if not cuda:
        return EXIT_OK
    shown = ", ".join(cuda[:3]) + (f" and {len(cuda) - 3} more" if len(cuda) > 3 else "")
    print(
        f"setup: no GPU found, but pip would install the CUDA build of torch ({shown}; "
        f"several GB; nothing is installed): {HOW_TO_CHOOSE}",
        file=sys.stderr,
    )
    return EXIT_CUDA


if __name__ == "__main__":
    sys.exit(main())
