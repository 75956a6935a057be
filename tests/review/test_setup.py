"""`make setup` lets the user choose the torch build: TORCH_SPEC is the requirement and
TORCH_INDEX the index it comes from; the default stays the pinned CPU-friendly one. Without a
GPU, a plan that pulls the CUDA build stops setup before anything is installed."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ._make import ROOT, clean_env


def planned(*variables: str) -> list[str]:
    """The commands `make setup` would run for the default venv (dry run, nothing
    installed), with the Makefile's defaults and ``variables`` alone."""
    done = subprocess.run(
        ["make", "-n", "-B", ".venv/.installed", *variables],
        cwd=ROOT,
        env=clean_env(),
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


# ------------------------------------------------- the CUDA build is refused without a GPU
CHOICE = ROOT / "scripts" / "torch_choice.py"


def fake_wheel(where: Path, name: str, version: str, *requires: str) -> None:
    """A minimal, valid wheel: enough metadata for pip to resolve it."""
    dist = f"{name.replace('-', '_')}-{version}"
    metadata = "\n".join([
        "Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
        *(f"Requires-Dist: {item}" for item in requires), "",
    ])  # fmt: skip
    files = {
        f"{dist}.dist-info/METADATA": metadata,
        f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    files[f"{dist}.dist-info/RECORD"] = "".join(f"{path},,\n" for path in files) + (
        f"{dist}.dist-info/RECORD,,\n"
    )
    with zipfile.ZipFile(where / f"{dist}-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a new virtual environment, as `make setup` runs the check in."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    return venv / ("Scripts" if os.name == "nt" else "bin") / "python"


def choose(python: Path, find_links: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """The check `make setup` runs, on a machine without a GPU, offline: only `find_links`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull  # neither this machine's indexes nor its wheel store
    return subprocess.run(
        [str(python), str(CHOICE), "--gpu", "absent", *options, "--",
         "--no-index", "--find-links", str(find_links), "torch==2.13.0"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip


def test_without_a_gpu_the_cuda_build_stops_setup_before_installing(fresh_python, tmp_path):
    fake_wheel(tmp_path, "torch", "2.13.0", "nvidia-cublas-cu12==12.8.4.1", "filelock")
    fake_wheel(tmp_path, "nvidia-cublas-cu12", "12.8.4.1")
    fake_wheel(tmp_path, "filelock", "3.20.0")
    done = choose(fresh_python, tmp_path)
    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.splitlines()
    assert "nvidia-cublas-cu12 12.8.4.1" in line
    for choice in ("TORCH_INDEX=", "TORCH_SPEC=", "TORCH_ALLOW_CUDA=1", "docs/setup.md"):
        assert choice in line
    installed = subprocess.run(
        [fresh_python, "-m", "pip", "show", "nvidia-cublas-cu12"], capture_output=True
    )
    assert installed.returncode != 0, "the check must not install anything"


def test_a_cuda_local_version_is_refused_and_allow_cuda_lets_it_through(fresh_python, tmp_path):
    fake_wheel(tmp_path, "torch", "2.13.0+cu128")
    assert choose(fresh_python, tmp_path).returncode == 3
    allowed = choose(fresh_python, tmp_path, "--allow-cuda")
    assert (allowed.returncode, allowed.stderr) == (0, "")


def test_a_cpu_build_passes_silently(fresh_python, tmp_path):
    fake_wheel(tmp_path, "torch", "2.13.0", "filelock")
    fake_wheel(tmp_path, "filelock", "3.20.0")
    done = choose(fresh_python, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_setup_runs_the_check_with_the_same_pip_arguments_as_the_install():
    lines = planned("TORCH_INDEX=file:///srv/torch-cpu", "TORCH_ALLOW_CUDA=1")
    (check,) = [line for line in lines if "torch_choice.py" in line]
    assert check.endswith("--allow-cuda -- --index-url 'file:///srv/torch-cpu' 'torch==2.13.0'")
    assert lines.index(check) < lines.index(torch_line(lines))
