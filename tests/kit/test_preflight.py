"""The kit proves it talks to a Cortex GS endpoint that takes its token before it judges:
a refused token, a wrong path or a wrong host exits 2 with one line naming the variable or
the URL, and never passes (every route documents 401, so a rejected token would otherwise
"conform" everywhere)."""

from __future__ import annotations

import base64
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from arctic_rl_kit.cli import EXIT_CANNOT_RUN, execute, parse_args
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV, QUICK


def kit_exit(tmp_path: Path, url: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """The kit's status and what it wrote to stderr (stdout must stay empty)."""
    report_dir = tmp_path / "report"
    argv = ["--url", url, "--pat-env", PAT_ENV, "--report-dir", str(report_dir), *QUICK]
    status, report = execute(parse_args(argv))
    out = capsys.readouterr()
    assert report is None
    assert out.out == ""
    assert not report_dir.exists()  # nothing judged, nothing reported
    return status, out.err


def expired_looking_token() -> str:
    """A JWT-shaped token whose ``exp`` is long past."""
    parts = ({"alg": "RS256", "typ": "JWT"}, {"sub": "SOMEONE", "exp": 1_000_000_000})
    encoded = [base64.urlsafe_b64encode(json.dumps(p).encode()).rstrip(b"=") for p in parts]
    return b".".join([*encoded, b"c2lnbmF0dXJl"]).decode()


@pytest.mark.parametrize("token", ["kit-wrong-token-0123456789", expired_looking_token()])
def test_a_refused_token_exits_2_naming_the_variable(
    tmp_path: Path,
    clean_mock: LiveMock,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    token: str,
) -> None:
    monkeypatch.setenv(PAT_ENV, token)
    status, err = kit_exit(tmp_path, clean_mock.base_url, capsys)
    assert status == EXIT_CANNOT_RUN
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"refused the token in ${PAT_ENV}" in lines[0]
    assert f"set {PAT_ENV} to a valid" in lines[0]
    assert token not in err


def test_a_wrong_path_exits_2_naming_the_url(
    tmp_path: Path, clean_mock: LiveMock, capsys: pytest.CaptureFixture[str], token_env: str
) -> None:
    url = clean_mock.root_url + "/api/v2/databases/DB/schemas/S/not-cortex-training"
    status, err = kit_exit(tmp_path, url, capsys)
    assert status == EXIT_CANNOT_RUN
    assert len(err.strip().splitlines()) == 1, err
    assert f"GET {url}/ answered 404: {url} (--url) is not a Cortex GS endpoint" in err


def test_a_host_that_does_not_answer_exits_2_naming_the_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], token_env: str
) -> None:
    with socket.socket() as sock:  # a loopback port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/api/v2/databases/DB/schemas/S/cortex-training"
    status, err = kit_exit(tmp_path, url, capsys)
    assert status == EXIT_CANNOT_RUN
    assert len(err.strip().splitlines()) == 1, err
    assert f"cannot reach {url} (--url)" in err


class _WebPage(BaseHTTPRequestHandler):
    """Some other web server: every GET is a 200 HTML page."""

    def do_GET(self) -> None:
        body = b"<html><body>welcome</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def web_page() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _WebPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_host_that_is_not_cortex_gs_exits_2_naming_the_url(
    tmp_path: Path, web_page: str, capsys: pytest.CaptureFixture[str], token_env: str
) -> None:
    url = web_page + "/api/v2/databases/DB/schemas/S/cortex-training"
    status, err = kit_exit(tmp_path, url, capsys)
    assert status == EXIT_CANNOT_RUN
    assert len(err.strip().splitlines()) == 1, err
    assert "answered 200 with text/html, not a Cortex GS job list" in err
    assert f"{url} (--url) is not a Cortex GS endpoint" in err
