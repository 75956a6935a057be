"""Issue #11's client bullets: answers outside the contract become typed errors.

A small scripted Cortex (``http.server`` on 127.0.0.1, real HTTP) gives the answers the
mock never gives: a redirect, an HTML login page with 200, a result that is not a DSSST1
frame, a gzip bomb. Each must end as an `ArcticRLError` subclass that carries the
answer's x-snowflake-request-id; none may pass for a success. The token must show in no
repr of anything reachable from the client, and plain http:// is refused off loopback.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import SecretStr

import arctic_rl
from arctic_rl import ArcticRLError, AsyncArcticRLClient, ConfigError
from arctic_rl.wire import ERROR_CODES

from .reliability_support import PAT_ENV, config

TOKEN = "pat-8d1f0c9b2e7a4f6d-never-shown"
PREFIX = "/api/v2/databases/DB/schemas/S/cortex-training"
JOB = {
    "job_id": "job-1",
    "status": "running",
    "sub_jobs": [{"sub_job_id": "job-1:training:0", "job_type": "training"}],
}
ACCEPTED = {"request_id": "req-1", "job_id": "job-1"}
JSON_TYPE = {"content-type": "application/json"}


@dataclass
class Answer:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: dict(JSON_TYPE))


def json_answer(status: int, value: Any, **headers: str) -> Answer:
    return Answer(status, json.dumps(value).encode(), {**JSON_TYPE, **headers})


Route = Callable[[], Answer]


class ScriptedCortex:
    """Answers the job routes a client needs to connect, plus what a test scripts.

    ``routes`` maps ``"METHOD /suffix"`` (after the service prefix) to a function giving
    the answer; ``seen`` lists every request line that arrived, in order.
    """

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes: dict[str, Route] = {
            "POST /": lambda: json_answer(200, {"job_id": "job-1"}),
            "GET /job-1": lambda: json_answer(200, JOB),
            "POST /job-1:cancel": lambda: Answer(200),
            **routes,
        }
        self.seen: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{PREFIX}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        cortex = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                path = self.path.split("?", 1)[0].removeprefix(PREFIX)
                key = f"{self.command} {path}"
                cortex.seen.append(key)
                route = cortex.routes.get(key)
                answer = route() if route else json_answer(404, {"message": "no such route"})
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            do_GET = do_POST = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> ScriptedCortex:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@pytest.fixture(autouse=True)
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PAT_ENV, TOKEN)


@pytest.fixture
def scripted() -> Iterator[Callable[..., ScriptedCortex]]:
    servers: list[ScriptedCortex] = []

    def start(routes: dict[str, Route] | None = None) -> ScriptedCortex:
        server = ScriptedCortex(routes or {})
        servers.append(server.__enter__())
        return server

    yield start
    for server in servers:
        server.__exit__()


def fwd_bwd(cortex: ScriptedCortex, **settings: Any) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        client = await AsyncArcticRLClient.connect(config(cortex.url, **settings))
        try:
            return await client.fwd_bwd({"input_ids": [[1, 2, 3]]})
        finally:
            await client.shutdown(cancel=False)

    return asyncio.run(run())


def connect(base_url: str, **settings: Any) -> None:
    async def run() -> None:
        client = await AsyncArcticRLClient.connect(config(base_url, **settings))
        await client.shutdown(cancel=False)

    asyncio.run(run())


# -- the token ------------------------------------------------------------------------


def _reachable(root: object, limit: int = 50_000) -> Iterator[object]:
    """Every object reachable from ``root`` through attributes, slots and containers.

    It stops at a `SecretStr` (whose repr is masked by design), at modules, classes and
    functions, and at objects of the event loop and the standard library's I/O.
    """
    seen: set[int] = set()
    stack = [root]
    while stack and len(seen) < limit:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, SecretStr | str | bytes | int | float | bool | type(None)):
            continue
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
            continue
        if isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)
            continue
        module = type(obj).__module__ or ""
        if not module.startswith(("arctic_rl", "cortex_gs", "httpx", "httpcore", "ssl")):
            continue
        if hasattr(obj, "multi_items"):  # httpx Headers / QueryParams
            stack.extend(value for item in obj.multi_items() for value in item)
        stack.extend(getattr(obj, "__dict__", {}).values())
        for cls in type(obj).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if hasattr(obj, slot):
                    stack.append(getattr(obj, slot))


def test_the_token_is_in_no_repr_reachable_from_the_client(scripted: Any) -> None:
    cortex = scripted()

    async def run() -> list[str]:
        client = await AsyncArcticRLClient.connect(config(cortex.url))
        try:
            await client.get_job()  # the httpx client exists and has sent the token
            return [repr(obj) for obj in _reachable(client)]
        finally:
            await client.shutdown(cancel=False)

    reprs = asyncio.run(run())
    assert len(reprs) > 50  # the walk went through the service, transport and httpx client
    assert any("ServiceTransport" in text for text in reprs)
    assert [text for text in reprs if TOKEN in text] == []


# -- answers outside the contract -----------------------------------------------------


def test_a_redirect_is_not_a_success(scripted: Any) -> None:
    """A 307 whose body looks like an acceptance must not be polled as one."""
    cortex = scripted(
        {
            "POST /job-1/forward-backward": lambda: json_answer(
                307,
                ACCEPTED,
                location="http://elsewhere.example/steal",
                **{"x-snowflake-request-id": "sf-307"},
            ),
            "GET /job-1/requests/req-1": lambda: json_answer(200, {**ACCEPTED, "status": "done"}),
        }
    )
    with pytest.raises(ArcticRLError) as caught:
        fwd_bwd(cortex)
    err = caught.value
    assert isinstance(err, arctic_rl.RedirectError)
    assert (err.status, err.request_id) == (307, "sf-307")
    assert err.location == "http://elsewhere.example/steal"
    assert "GET /job-1/requests/req-1" not in cortex.seen
    assert cortex.seen.count("POST /job-1/forward-backward") == 1  # not retried either


def test_an_html_success_is_a_typed_error(scripted: Any) -> None:
    page = b"<html><body>Sign in to continue</body></html>"
    cortex = scripted(
        {
            "POST /job-1/forward-backward": lambda: Answer(
                200, page, {"content-type": "text/html", "x-snowflake-request-id": "sf-html"}
            )
        }
    )
    with pytest.raises(ArcticRLError) as caught:
        fwd_bwd(cortex)
    err = caught.value
    assert isinstance(err, arctic_rl.UnexpectedAnswerError)
    assert (err.status, err.code, err.request_id) == (200, "not_json", "sf-html")
    assert "text/html" in str(err)


def test_a_result_that_is_no_frame_is_a_typed_error_with_the_wire_code(scripted: Any) -> None:
    inline = {
        "content_type": "application/octet-stream",
        "encoding": "base64",
        "wire_format": "DSSST1",
        "payload_b64": base64.b64encode(b"this is not a DSSST1 frame").decode(),
    }
    done = {**ACCEPTED, "status": "done", "result": inline, "events": [], "next_cursor": ""}
    cortex = scripted(
        {
            "POST /job-1/forward-backward": lambda: json_answer(202, ACCEPTED),
            "GET /job-1/requests/req-1": lambda: json_answer(
                200, done, **{"x-snowflake-request-id": "sf-frame"}
            ),
        }
    )
    with pytest.raises(ArcticRLError) as caught:
        fwd_bwd(cortex)
    err = caught.value
    assert isinstance(err, arctic_rl.ResultFrameError)
    assert err.wire_code in ERROR_CODES
    assert err.request_id == "sf-frame"
    assert "req-1" in str(err)


def _gzip_job(padding: int) -> Answer:
    """The job as JSON, then ``padding`` bytes of JSON whitespace, gzip-compressed."""
    body = gzip.compress(json.dumps(JOB).encode() + b" " * padding)
    headers = {**JSON_TYPE, "content-encoding": "gzip", "x-snowflake-request-id": "sf-gzip"}
    return Answer(200, body, headers)


def test_a_gzip_answer_within_the_cap_is_decoded(scripted: Any) -> None:
    cortex = scripted({"GET /job-1": lambda: _gzip_job(1000)})
    connect(cortex.url, max_answer_bytes=64 * 1024)
    assert "GET /job-1" in cortex.seen


def test_a_gzip_bomb_is_refused_past_the_cap(scripted: Any) -> None:
    bomb = _gzip_job(32 * 1024 * 1024)
    assert len(bomb.body) < 64 * 1024  # 32 MiB of answer from under 64 KiB on the wire
    cortex = scripted({"GET /job-1": lambda: bomb})
    with pytest.raises(ArcticRLError) as caught:
        connect(cortex.url, max_answer_bytes=1024 * 1024)
    err = caught.value
    assert isinstance(err, arctic_rl.AnswerTooLargeError)
    assert (err.code, err.request_id) == ("answer_too_large", "sf-gzip")
    assert cortex.seen.count("GET /job-1") == 1  # not retried


def test_the_answer_cap_defaults_to_a_bound() -> None:
    cap = config("http://127.0.0.1:1").cortex.max_answer_bytes
    assert 0 < cap <= 1024 * 1024 * 1024


# -- plain http -----------------------------------------------------------------------


def test_plain_http_off_loopback_is_refused_unless_allowed() -> None:
    remote = "http://10.20.30.40/api/v2/databases/DB/schemas/S/cortex-training"
    with pytest.raises(ConfigError, match="allow_insecure_http"):
        AsyncArcticRLClient(config(remote))
    AsyncArcticRLClient(config(remote, allow_insecure_http=True))  # explicit: built
    for loopback in ("localhost", "127.0.0.1", "[::1]"):
        AsyncArcticRLClient(config(f"http://{loopback}:8080{PREFIX}"))
    AsyncArcticRLClient(config(f"https://acct.example{PREFIX}"))


# -- what the hardened mock may now answer ----------------------------------------------


def test_a_408_for_a_dropped_slow_request_is_sent_again(scripted: Any) -> None:
    answers = iter([json_answer(408, {"message": "body too slow", "code": "request_timeout"})])
    cortex = scripted({"GET /job-1": lambda: next(answers, json_answer(200, JOB))})
    connect(cortex.url)
    assert cortex.seen.count("GET /job-1") == 2


@pytest.mark.parametrize(("count", "resent"), [(3, {4, 9, 11}), (500, None)])
def test_a_shortened_missing_chunks_list_means_resend_all(
    count: int, resent: set[int] | None
) -> None:
    from arctic_rl._error_answers import error_from_response
    from arctic_rl._upload import _missing_indexes

    body = {
        "message": "chunk group g is missing chunks",
        "code": "chunk_group_missing_chunks",
        "missing_chunk_count": count,
        "details": [{"loc": ["chunks", i], "msg": "missing"} for i in (4, 9, 11)],
    }
    err = error_from_response(409, body, {"x-snowflake-request-id": "sf-409"})
    assert isinstance(err, arctic_rl.ChunkGroupError)
    assert (err.missing_chunk_count, err.request_id) == (count, "sf-409")
    assert _missing_indexes(err) == resent
