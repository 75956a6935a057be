"""The guides' "try it locally first" commands, run as written in a fresh venv built from
the wheel, outside the checkout: the installed ``cortex-gs-mock`` starts, prints the very
settings the guide shows, and the installed SDK trains against it with them.

The venv is a user's: torch first (the build the project's venv runs, from this machine's
pip configuration), then the wheel, whose dependencies pip resolves itself; nothing is
borrowed from the project's venv. About a minute, most of it installing torch.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
import torch
import yaml
from wheels import build_wheel, make_venv

from .readme_blocks import block_after

PLACEHOLDER = "/path/to/arctic-rl"  # what the guides' pip line installs from
DOCUMENTED_PORT = "8765"
IMPORT_MOCK = "import arctic_rl_mock; print(arctic_rl_mock.__file__)"
RECIPE_CALLS = Path(__file__).with_name("real_vocab_calls.py")
MOCK_VOCABULARY = 524_288  # the reference backend's ids (docs/skyrl.md)


@dataclass(frozen=True)
class UserVenv:
    venv: Path
    wheel: Path
    home: Path  # a scratch folder outside the checkout, the cwd of every command
    before_extra: subprocess.CompletedProcess[str] | None = None  # importing the mock then

    def env(self, **extra: str) -> dict[str, str]:
        """The user's shell: this venv first on PATH, nothing from the checkout."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        return {
            **env,
            "PATH": f"{self.venv / 'bin'}:{env['PATH']}",
            "OMP_NUM_THREADS": "1",
            **extra,
        }

    def run(self, argv: list[str | Path], timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, cwd=self.home, env=self.env(), capture_output=True, text=True, timeout=timeout
        )


def _pip(user: UserVenv, *args: str | Path) -> None:
    done = user.run([user.venv / "bin" / "pip", "--disable-pip-version-check", "-q", *args])
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def user_venv(tmp_path_factory: pytest.TempPathFactory) -> UserVenv:
    """torch, then the wheel without extras (what importing the mock says then is kept)."""
    wheel = build_wheel(tmp_path_factory.mktemp("wheel"))
    scratch = tmp_path_factory.mktemp("user")
    venv = make_venv(scratch / "venv", with_pip=True)
    user = UserVenv(venv, wheel, scratch)
    _pip(user, "install", f"torch=={torch.__version__}")
    _pip(user, "install", wheel)
    return replace(user, before_extra=user.run([venv / "bin" / "python", "-c", IMPORT_MOCK]))


def _free_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return str(sock.getsockname()[1])


@dataclass(frozen=True)
class StartedMock:
    name: str  # whose guide: skyrl or verl
    output: str  # everything printed up to the guide's token line
    port: str
    env: dict[str, str]  # the guide's exports


@pytest.fixture(params=["skyrl", "verl"])
def started(request: pytest.FixtureRequest, user_venv: UserVenv) -> Iterator[StartedMock]:
    """The guide's install-and-start block, run by bash in the user's venv (port moved)."""
    block = block_after(f"{request.param}-try-mock")
    port = _free_port()
    script = block.replace(PLACEHOLDER, str(user_venv.wheel))
    script = script.replace(f"--port {DOCUMENTED_PORT}", f"--port {port}")
    assert str(user_venv.wheel) in script and f"--port {port}" in script
    exports = dict(re.findall(r"^export (\w+)=(\S+)", block, re.M))
    proc = subprocess.Popen(
        ["bash", "-euc", script],
        cwd=user_venv.home,
        env=user_venv.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # the mock is bash's child: stop the whole group
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("token:"):
                break
        assert lines and lines[-1].startswith("token:"), "".join(lines)[-3000:]
        yield StartedMock(request.param, "".join(lines), port, exports)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=60)


def _documented(started: StartedMock) -> tuple[str, dict[str, str]]:
    """The guide's settings block for its framework, at the port the test used: as the
    mock prints it, and as the settings it holds."""
    marker = "skyrl-try-yaml" if started.name == "skyrl" else "verl-try-overrides"
    text = block_after(marker).replace(f":{DOCUMENTED_PORT}", f":{started.port}")
    if started.name == "skyrl":
        text = text.split("\n", 1)[1]  # less its file-name comment
        return text, yaml.safe_load(text)["cortex"]
    return text, dict(re.findall(r"remote_backend\.cortex\.(\w+)=(\S+)", text))


def test_importing_the_mock_without_its_extra_names_the_extra(user_venv: UserVenv) -> None:
    done = user_venv.before_extra
    assert done is not None and done.returncode == 1
    assert "needs the 'mock' extra" in done.stderr
    assert "install it from the checkout or wheel" in done.stderr
    assert f'python -m pip install "{PLACEHOLDER}[mock]"' in done.stderr  # the guides' line


def test_the_installed_mock_prints_the_guide_settings_and_trains_with_them(
    started: StartedMock, user_venv: UserVenv
) -> None:
    printed, documented = _documented(started)
    assert printed in started.output
    assert f"base_url http://127.0.0.1:{started.port}\n" in started.output
    assert all(value not in started.output for value in started.env.values())  # no token
    # The README's SDK lines, their cortex settings replaced by the guide's, in the venv.
    readme = block_after("sdk-python")
    sdk = re.sub(r"cortex=\{.*?\}", f"cortex={documented!r}", readme, count=1, flags=re.S)
    assert repr(documented) in sdk
    done = subprocess.run(
        [user_venv.venv / "bin" / "python", "-c", sdk],
        cwd=user_venv.home,
        env=user_venv.env(**started.env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "'global_steps': 1" in done.stdout and "'results': [" in done.stdout
    installed = user_venv.run([user_venv.venv / "bin" / "python", "-c", IMPORT_MOCK])
    assert Path(installed.stdout.strip()).is_relative_to(user_venv.venv)


def test_recipe_shaped_calls_with_a_real_tokenizers_ids_train_as_the_guide_says(
    started: StartedMock, user_venv: UserVenv
) -> None:
    """The framework's own shapes, with ids from the top of a 151,646-id vocabulary and
    4,096 tokens a row, sent by the wheel's SDK with the guide's settings: no tokenizer
    step. The loss is what the advantages make it only if every log-prob lined up."""
    _, documented = _documented(started)
    done = subprocess.run(
        [user_venv.venv / "bin" / "python", RECIPE_CALLS, started.name, json.dumps(documented)],
        cwd=user_venv.home,
        env=user_venv.env(**started.env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["loss"] == pytest.approx(-0.75, abs=1e-4)
    assert report["global_steps"] == 1
    lowest, highest = report["old_log_probs"]
    assert -100.0 < lowest < highest <= 0.0
    sampled = report["sampled"]
    assert [len(tokens) for tokens in sampled] == [4, 4]
    assert all(0 <= token < MOCK_VOCABULARY for tokens in sampled for token in tokens)
