"""The mock's server guards itself (#11): slow senders, half-open connections, auth first.

Everything runs against a real uvicorn on 127.0.0.1 (``LiveMock``) and talks raw sockets
where a well-behaved client library would hide the behaviour under test: a body sent a
byte at a time, a request line that never ends, connections that never send anything, a
large body that must not be read before the token is checked.
"""

from __future__ import annotations

import contextlib
import json
import logging
import select
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from arctic_rl_mock.settings import Settings
from cortex_gs_contract import REQUEST_ID_HEADER, RETRY_AFTER_HEADER, TOKEN_TYPE, TOKEN_TYPE_HEADER

from devtools.live_mock import LiveMock, auth_headers, serving_in_process

# How long a test waits for the server to act before it calls the guard missing; the
# limits under test are a second or two, so this only bounds a failing run.
GIVE_UP_S = 15.0


def guarded_mock(state_dir: Path, **limits: Any) -> LiveMock:
    """A started mock whose server limits are ``limits`` (lowered so the tests are quick)."""
    from arctic_rl_mock.web.server import ServerSettings  # the guards' settings (new in #11)

    return LiveMock(
        Settings(state_dir=state_dir, token="test-pat"), server=ServerSettings(**limits)
    ).start()


@pytest.fixture
def mock(tmp_path: Path) -> Iterator[LiveMock]:
    with serving_in_process(tmp_path / "state") as live:
        yield live


def connect(mock: LiveMock) -> socket.socket:
    return socket.create_connection(("127.0.0.1", mock.port), timeout=GIVE_UP_S)


def head(mock: LiveMock, method: str, path: str, headers: dict[str, str]) -> bytes:
    """A request line and headers for ``path`` under the mock's prefix."""
    lines = [f"{method} {mock.settings.prefix}{path} HTTP/1.1", "host: 127.0.0.1"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_until_closed(sock: socket.socket, give_up_s: float = GIVE_UP_S) -> bytes:
    """Everything the server sends until it closes the connection (fails if it never does)."""
    sock.settimeout(give_up_s)
    received = bytearray()
    while True:
        try:
            part = sock.recv(65536)
        except TimeoutError:
            pytest.fail(f"the server neither answered nor closed within {give_up_s} s")
        if not part:
            return bytes(received)
        received += part


def parse(raw: bytes) -> tuple[int, dict[str, str], Any]:
    """(status, lower-cased headers, JSON body) of one raw HTTP/1.1 answer."""
    head_part, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head_part.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in header_lines)
    return int(status_line.split()[1]), headers, json.loads(body)


def capacity_status(mock: LiveMock) -> int:
    """A well-behaved client's call on a fresh connection: its HTTP status."""
    response = httpx.get(mock.base_url + "/capacity", headers=mock.headers(), timeout=GIVE_UP_S)
    return response.status_code


def log_lines(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if text in r.getMessage()]


def trickle_until_dropped(mock: LiveMock, sock: socket.socket, unit: bytes, every_s: float) -> None:
    """Send ``unit`` every ``every_s`` until the server ends the connection, while another
    client is served; then read to the end (what was sent may be lost to the reset that
    closing on a client still sending provokes, so only the closing is checked here)."""
    started = time.monotonic()
    # A close that finds our last bytes unread reaches us as a reset: closed all the same.
    with ThreadPoolExecutor(1) as other_client, contextlib.suppress(ConnectionError):
        served_meanwhile = other_client.submit(capacity_status, mock)
        while not select.select([sock], [], [], every_s)[0]:
            assert time.monotonic() - started < GIVE_UP_S, "a trickling client was never dropped"
            sock.sendall(unit)
        read_until_closed(sock)
    assert served_meanwhile.result() == 200


def test_a_body_trickling_in_is_dropped_with_one_log_line_while_others_are_served(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="arctic_rl_mock")
    mock = guarded_mock(tmp_path, body_grace_s=1.0, body_min_rate=1000, body_idle_timeout_s=5)
    try:
        sock = connect(mock)
        headers = {**mock.headers(), "content-type": "application/json", "content-length": "10000"}
        sock.sendall(head(mock, "POST", "/", headers))
        trickle_until_dropped(mock, sock, b" ", every_s=0.05)  # 20 bytes a second
    finally:
        mock.stop()
    dropped = log_lines(caplog, "request body slower than 1000 bytes/s")
    assert len(dropped) == 1, dropped  # one line, not one a byte
    assert dropped[0].startswith("dropped POST ")


def test_a_stalled_body_is_answered_408_and_closed(tmp_path: Path) -> None:
    mock = guarded_mock(tmp_path, body_idle_timeout_s=0.5)
    try:
        sock = connect(mock)
        headers = {**mock.headers(), "content-type": "application/json", "content-length": "100"}
        sock.sendall(head(mock, "POST", "/", headers) + b'{"sub_job_configs": ')  # then nothing
        status, answer_headers, body = parse(read_until_closed(sock))
    finally:
        mock.stop()
    assert (status, body["error_code"]) == (408, "request_timeout"), body
    assert body["message"] == "request body stalled for 0.5 s (20 bytes received)"
    assert answer_headers["connection"] == "close"
    assert answer_headers[REQUEST_ID_HEADER.lower()] == body["request_id"]


def test_request_line_and_headers_that_never_finish_are_dropped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="arctic_rl_mock")
    mock = guarded_mock(tmp_path, header_timeout_s=1.0)
    try:
        silent = connect(mock)  # opens and never sends a byte
        trickling = connect(mock)
        trickling.sendall(f"GET {mock.settings.prefix}/capacity HTTP/1.1\r\nx-slow: ".encode())
        trickle_until_dropped(mock, trickling, b"a", every_s=0.1)  # a header byte at a time
        status, _, body = parse(read_until_closed(silent))
    finally:
        mock.stop()
    assert (status, body["error_code"]) == (408, "request_timeout")
    assert body["message"] == "request line and headers not complete within 1.0 s"
    assert len(log_lines(caplog, "no complete request line and headers")) == 1  # throttled


def test_connections_beyond_the_cap_get_a_clean_503_and_the_log_stays_short(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="arctic_rl_mock")
    cap, extra = 8, 24
    mock = guarded_mock(tmp_path, max_connections=cap, header_timeout_s=60)
    half_open = []
    try:
        half_open = [connect(mock) for _ in range(cap + extra)]  # none of them sends a byte
        refused = [parse(read_until_closed(s)) for s in half_open[cap:]]
        over_cap = httpx.get(mock.base_url + "/capacity", headers=mock.headers())
        for sock in half_open:
            sock.close()
        deadline = time.monotonic() + GIVE_UP_S
        while capacity_status(mock) != 200:  # the held slots free up as the sockets close
            assert time.monotonic() < deadline, "the mock stayed full after the sockets closed"
            time.sleep(0.05)
    finally:
        for sock in half_open:
            sock.close()
        mock.stop()
    assert {(status, body["error_code"]) for status, _, body in refused} == {(503, "unavailable")}
    assert all(headers[RETRY_AFTER_HEADER.lower()] == "1" for _, headers, _ in refused)
    assert (over_cap.status_code, over_cap.json()["error_code"]) == (503, "unavailable")
    assert over_cap.headers[REQUEST_ID_HEADER]
    assert len(log_lines(caplog, "refused a connection")) == 1  # 25 refusals, one line


def test_request_headers_over_the_cap_are_refused_and_the_connection_closed(
    tmp_path: Path,
) -> None:
    mock = guarded_mock(tmp_path, max_header_bytes=4096)
    try:
        sock = connect(mock)
        padded = {**mock.headers(), "x-padding": "a" * 8192}
        sock.sendall(head(mock, "GET", "/capacity", padded))
        answer = read_until_closed(sock)
        served_after = capacity_status(mock)
    finally:
        mock.stop()
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
    assert served_after == 200


def test_bad_json_without_a_token_is_401_not_400(mock: LiveMock) -> None:
    response = httpx.post(
        mock.base_url + "/", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 401, response.text
    body = response.json()
    assert (body["code"], body["error_code"]) == (401, "unauthorized")
    assert body["request_id"] == response.headers[REQUEST_ID_HEADER]
    assert body["message"] == "missing or invalid bearer token"


def test_a_large_body_without_a_token_is_refused_before_it_is_read(mock: LiveMock) -> None:
    declared = 58 * 1024 * 1024  # under the 60 MiB cap: only the token can refuse it
    sock = connect(mock)
    headers = {"content-type": "application/json", "content-length": str(declared)}
    sock.sendall(head(mock, "POST", "/", headers) + b"[" * 65536)  # the rest is never sent
    status, answer_headers, body = parse(read_until_closed(sock))
    sock.close()
    assert (status, body["error_code"]) == (401, "unauthorized")
    # Answered and closed with 64 KiB of 58 MiB sent: the body was not waited for or read.
    assert answer_headers["connection"] == "close"


def test_a_small_body_without_a_token_still_gets_its_401_cleanly(mock: LiveMock) -> None:
    body = b"[" * (512 * 1024)  # a client writing all of it before reading reads the 401
    response = httpx.post(mock.base_url + "/", content=body, headers={"content-type": "x"})
    assert response.status_code == 401
    assert response.headers["connection"] == "close"


@pytest.mark.parametrize(
    ("method", "path", "served"),
    [
        ("GET", "{prefix}/docs", 200),
        ("GET", "{prefix}/openapi.json", 200),
        ("GET", "/api/v2/no-such-route", 404),
        ("PUT", "{prefix}/capacity", 405),
    ],
)
def test_docs_404_and_405_ask_for_the_token_too(
    mock: LiveMock, method: str, path: str, served: int
) -> None:
    url = mock.root_url + path.format(prefix=mock.settings.prefix)
    anonymous = httpx.request(method, url)
    assert anonymous.status_code == 401, anonymous.text
    assert anonymous.json()["error_code"] == "unauthorized"
    assert httpx.request(method, url, headers=auth_headers(mock.token)).status_code == served


def test_a_wrong_token_type_is_401(mock: LiveMock) -> None:
    headers = {**mock.headers(), TOKEN_TYPE_HEADER: "OAUTH"}
    response = httpx.get(mock.base_url + "/capacity", headers=headers)
    assert response.status_code == 401
    assert response.json()["message"] == f"{TOKEN_TYPE_HEADER} must be {TOKEN_TYPE}"


def test_no_auth_serves_docs_and_operations_without_a_token(tmp_path: Path) -> None:
    with serving_in_process(tmp_path / "state", auth=False, token=None) as live:
        assert httpx.get(live.base_url + "/docs").status_code == 200
        assert httpx.get(live.base_url + "/capacity").status_code == 200


@pytest.mark.parametrize("path", ["/capacity", "/no-such-route"])
def test_two_authorization_headers_are_refused_before_routing(mock: LiveMock, path: str) -> None:
    """Whichever of the two carries the right token, and whether the route exists: 400."""
    right = f"Bearer {mock.token}"
    for first, second in ((right, "Bearer wrong"), ("Bearer wrong", right), (right, right)):
        lines = [
            f"GET {mock.settings.prefix}{path} HTTP/1.1",
            "host: 127.0.0.1",
            f"authorization: {first}",
            f"{TOKEN_TYPE_HEADER}: {TOKEN_TYPE}",
            f"authorization: {second}",
            "connection: close",
        ]
        with connect(mock) as sock:
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            status, headers, body = parse(read_until_closed(sock))
        assert (status, body["error_code"]) == (400, "duplicate_authorization"), body
        assert body["request_id"] == headers[REQUEST_ID_HEADER.lower()]
