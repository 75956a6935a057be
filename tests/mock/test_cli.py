"""``python -m arctic_rl_mock`` as a real process: it says where it listens, hides the token,
and shouts when authentication is off."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from arctic_rl_mock.__main__ import main, parse_args

from devtools.live_mock import auth_headers
from devtools.mock_process import MockProcess

SECRET = "pat-secret-never-logged-42"


def cli_mock(tmp_path: Path, **options: Any) -> MockProcess:
    """The CLI on a free port, logging at info (where it says what it serves)."""
    return MockProcess(tmp_path / "state", database="DB1", schema="S1", log_level="info", **options)


def test_cli_serves_and_never_logs_the_token(tmp_path: Path) -> None:
    """The token given on the command line, where it is most at risk of being echoed."""
    with cli_mock(tmp_path, token=SECRET, args=("--token", SECRET)) as mock:
        base = mock.base_url
        assert httpx.get(base + "/capacity").status_code == 401
        assert httpx.get(base + "/capacity", headers=auth_headers(SECRET)).status_code == 200
    log = mock.log_file.read_text()
    assert base in log
    assert SECRET not in log
    assert "AUTHENTICATION DISABLED" not in log


def test_cli_no_auth_is_loud(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    served: list[object] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda server, **kw: served.append(server.config))
    caplog.set_level(logging.INFO, logger="arctic_rl_mock")
    assert main(["--no-auth", "--state-dir", str(tmp_path), "--port", "9"]) == 0
    assert len(served) == 1
    assert "AUTHENTICATION DISABLED" in caplog.text
    assert "http://127.0.0.1:9/api/v2/databases/RL_DB/schemas/PUBLIC/cortex-training" in caplog.text


def test_a_busy_port_prints_its_error_and_no_guide(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cmd = [sys.executable, "-m", "arctic_rl_mock", "--port", str(port), "--no-auth"]
        done = subprocess.run(
            [*cmd, "--state-dir", str(tmp_path)], capture_output=True, text=True, timeout=120
        )
    assert done.returncode != 0
    assert "address already in use" in done.stderr.lower()
    assert "base_url" not in done.stdout + done.stderr


def test_cli_refuses_to_start_without_token_or_no_auth(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CORTEX_GS_MOCK_TOKEN"}
    result = subprocess.run(
        [sys.executable, "-m", "arctic_rl_mock", "--state-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 2 and "--no-auth" in result.stderr
    assert "base_url needs: it sends no token" in result.stderr


def test_cli_arguments() -> None:
    args = parse_args(["--backend", "reference", "--transition-delay", "0.5", "--endpoint", "ep"])
    assert (args.backend, args.transition_delay, args.endpoint) == ("reference", 0.5, "ep")
    assert not args.no_auth


def test_help_tells_published_client_users_to_run_without_auth(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse_args(["--help"])
    assert stopped.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "``CortexConfig(base_url=...)``" in text
    assert "that path sends no token: run the mock with ``--no-auth`` for it" in text
    assert parse_args(["--request-latency", "0.2"]).request_latency == 0.2


def test_cli_service_switch(tmp_path: Path) -> None:
    """Today's service by default; ``--service proposed`` serves the proposals, and says so."""
    assert parse_args([]).service == "today"
    with pytest.raises(SystemExit):
        parse_args(["--service", "tomorrow"])
    with cli_mock(tmp_path, auth=False, service="proposed") as mock:
        answer = httpx.get(f"{mock.base_url}/capabilities")
        assert answer.status_code == 200 and answer.json()["service"] == "proposed"
    assert "proposed service" in mock.log_file.read_text()
