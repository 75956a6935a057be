"""The seam between the client and the wire: `Transport`, and `CortexTransport` over HTTP.

JSON routes go through the generated `cortex_gs_client` functions; DSSST1 bodies are
streamed through the same underlying httpx client, one chunk frame at a time, so a large
batch is never held twice in memory. Every mutating call carries a key fixed once per
logical call (an Idempotency-Key, or the chunk group id for uploads), so a retry after a
dropped connection can never run the work twice.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import importlib
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Protocol, runtime_checkable
from urllib.parse import quote

import httpx
import stamina

from arctic_rl._errors import (
    APIConnectionError,
    ArcticRLError,
    BadRequestError,
    ChunkGroupError,
    JobFailedError,
    RateLimitError,
    RequestFailedError,
    RequestTimeoutError,
    ServerError,
    ValidationError,
    error_from_response,
)
from arctic_rl._progress import Progress, ProgressFactory

__all__ = [
    "TERMINAL_JOB_STATES",
    "CortexTransport",
    "Transport",
    "normalize_state",
]

log = logging.getLogger("arctic_rl")

TOKEN_TYPE_HEADER = "X-Snowflake-Authorization-Token-Type"
TOKEN_TYPE = "PROGRAMMATIC_ACCESS_TOKEN"
REQUEST_ID_HEADER = "x-snowflake-request-id"

POLL_INITIAL_S = 0.5
POLL_FACTOR = 1.25
POLL_MAX_S = 6.0
MAX_RETRY_AFTER_S = 60.0
UPLOAD_SLICE = 1 << 20
CHUNK_HEADROOM = 8 * 1024

# A job that is done (older servers' word) will not run again either.
TERMINAL_JOB_STATES = frozenset({"cancelled", "terminated", "failed", "completed"})
_IN_FLIGHT_REQUEST_STATES = frozenset({"pending", "running", "streaming", "unknown"})
_STATE_ALIASES = {
    "done": "completed",
    "complete": "completed",
    "succeeded": "completed",
    "success": "completed",
    "canceled": "cancelled",
    "cancelling": "cancelled",
    "canceling": "cancelled",
    "error": "failed",
}

# Binary routes; the value says whether the body must always be a chunk envelope.
CHUNKED_ROUTES = {"forward-backward": "fwd-bwd", "forward-no-grad": "fwd-no-grad"}
# Operations the service answers inline. Their acknowledgement may name a request (the one a
# cancel-request cancelled), which is not a handle to poll.
INLINE_OPERATIONS = frozenset(
    {"cancel-request", "reset-prefix-cache", "tail-logs", "router-replay-discard"}
)


def normalize_state(raw: Any) -> str:
    """One vocabulary for job and request states across server generations."""
    state = str(raw or "unknown").strip().lower()
    for prefix in ("job_state_", "request_state_"):
        state = state.removeprefix(prefix)
    return _STATE_ALIASES.get(state, state)


@runtime_checkable
class Transport(Protocol):
    """What the client needs from the service; swap in a fake to test the client alone."""

    async def create_job(self, body: Mapping[str, Any], *, idempotency_key: str) -> str: ...
    async def get_job(self, job_id: str) -> dict[str, Any]: ...
    async def list_jobs(self, status: str | None = None) -> list[dict[str, Any]]: ...
    async def cancel_job(self, job_id: str) -> dict[str, Any]: ...
    async def wait_job_running(self, job_id: str, timeout: float) -> dict[str, Any]: ...
    async def list_checkpoints(self, job_id: str) -> list[dict[str, Any]]: ...
    async def delete_checkpoint(self, job_id: str, checkpoint_id: str) -> None: ...
    async def call_binary(self, job_id: str, route: str, value: Any) -> Any: ...
    async def call_json(self, job_id: str, route: str, body: Mapping[str, Any]) -> Any: ...
    async def aclose(self) -> None: ...


def _retry_hook(exc: Exception) -> bool | float:
    """Retry connection failures, 429 and 5xx; wait as long as Retry-After says."""
    if isinstance(exc, RateLimitError | ServerError):
        if exc.status == 501:
            return False
        if exc.retry_after is not None:
            return min(exc.retry_after, MAX_RETRY_AFTER_S)
        return True
    return isinstance(exc, httpx.TransportError)


# JSON routes: route -> (api tag module, operation module, body model class, has idempotency key)
_JSON_ROUTES: dict[str, tuple[str, str, str, bool]] = {
    "step": ("training", "step", "StepRequest", True),
    "save": ("checkpoints", "save_checkpoint", "SaveRequest", True),
    "load": ("checkpoints", "load_checkpoint", "LoadRequest", True),
    "log-probs": ("sampling", "log_probs", "LogProbsRequest", False),
    "sync-weights": ("sampling", "sync_weights", "SyncWeightsRequest", True),
    "operation": ("operations", "run_operation", "OperationRequest", True),
}


class CortexTransport:
    """HTTP transport to Cortex GS (or the mock): retries, chunked uploads, polling."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        verify_tls: bool = True,
        chunk_bytes: int = 60 * 1024 * 1024,
        poll_timeout: float = 1800.0,
        long_poll_s: float = 10.0,
        max_retries: int = 10,
        retry_timeout: float = 600.0,
        progress: ProgressFactory | None = None,
        httpx_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        from cortex_gs_client import AuthenticatedClient

        self.base_url = base_url.rstrip("/")
        self.chunk_bytes = chunk_bytes
        self.poll_timeout = poll_timeout
        self.long_poll_s = long_poll_s
        self._max_retries = max_retries
        self._retry_timeout = retry_timeout
        self._progress = progress or ProgressFactory(enabled=False, min_bytes=0)
        self._timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        httpx_args: dict[str, Any] = {}
        if httpx_transport is not None:
            httpx_args["transport"] = httpx_transport
        self._client = AuthenticatedClient(
            base_url=self.base_url,
            token=token,
            headers={TOKEN_TYPE_HEADER: TOKEN_TYPE},
            timeout=self._timeout,
            verify_ssl=verify_tls,
            raise_on_unexpected_status=False,
            httpx_args=httpx_args,
        )
        self._http = self._client.get_async_httpx_client()

    def __repr__(self) -> str:
        return f"CortexTransport(base_url={self.base_url!r})"

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- plumbing -------------------------------------------------------------------

    async def _retrying(
        self, send: Callable[[], Awaitable[httpx.Response]], *, gone_ok: bool = False
    ) -> httpx.Response:
        """Run `send()` (one HTTP exchange) with retries; raise typed errors on failure.

        `gone_ok`: a 404 on a retry means our earlier attempt already deleted the thing.
        """
        try:
            async for attempt in stamina.retry_context(
                on=_retry_hook,
                attempts=self._max_retries,
                timeout=self._retry_timeout,
                wait_initial=POLL_INITIAL_S,
                wait_max=POLL_MAX_S * 2,
            ):
                with attempt:
                    response: httpx.Response = await send()
                    if gone_ok and attempt.num > 1 and response.status_code == 404:
                        return response
                    _raise_for_status(response)
                    return response
        except httpx.TransportError as exc:
            raise APIConnectionError(
                f"cannot reach {self.base_url}: {type(exc).__name__}: {exc}"
            ) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    async def _generated(
        self,
        tag: str,
        op: str,
        *,
        gone_ok: bool = False,
        timeout: httpx.Timeout | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        """Send a generated operation's request (its own builder) with retries.

        The generated builder fixes method, path, query and JSON body; the response is
        handled here so that an unexpected body (a proxy's HTML 502) still maps to a typed error.
        """
        module = importlib.import_module(f"cortex_gs_client.api.{tag}.{op}")
        request = module._get_kwargs(**kwargs)
        if timeout is not None:
            request["timeout"] = timeout
        return await self._retrying(lambda: self._http.request(**request), gone_ok=gone_ok)

    @staticmethod
    def _model(name: str, body: Mapping[str, Any]) -> Any:
        models = importlib.import_module("cortex_gs_client.models")
        return getattr(models, name).from_dict(dict(body))

    @staticmethod
    def _enum(name: str, value: str) -> Any:
        return getattr(importlib.import_module("cortex_gs_client.models"), name)(value)

    # -- control plane ----------------------------------------------------------------

    async def create_job(self, body: Mapping[str, Any], *, idempotency_key: str) -> str:
        response = await self._generated(
            "jobs",
            "create_job",
            body=self._model("CreateJobRequest", body),
            idempotency_key=idempotency_key,
        )
        return str(response.json()["job_id"])

    async def get_job(self, job_id: str) -> dict[str, Any]:
        return dict((await self._generated("jobs", "get_job", job_id=job_id)).json())

    async def list_jobs(self, status: str | None = None) -> list[dict[str, Any]]:
        kwargs: dict[str, Any] = {}
        if status is not None:  # the generated builder takes the enum, not its value
            kwargs["status"] = self._enum("JobState", normalize_state(status))
        # Proto3 JSON leaves an empty list out.
        return list(
            _json_body(await self._generated("jobs", "list_jobs", **kwargs)).get("jobs") or []
        )

    async def get_capacity(self) -> dict[str, Any]:
        return dict((await self._generated("jobs", "get_capacity")).json())

    async def cancel_job(self, job_id: str) -> dict[str, Any]:
        """Cancel; today's service answers 200 with an empty body (``{}`` here)."""
        return dict(_json_body(await self._generated("jobs", "cancel_job", job_id=job_id)))

    async def list_checkpoints(self, job_id: str) -> list[dict[str, Any]]:
        response = await self._generated("checkpoints", "list_checkpoints", job_id=job_id)
        return list(_json_body(response).get("checkpoints") or [])

    async def delete_checkpoint(self, job_id: str, checkpoint_id: str) -> None:
        await self._generated(
            "checkpoints",
            "delete_checkpoint",
            job_id=job_id,
            checkpoint_id=checkpoint_id,
            gone_ok=True,
        )

    async def wait_job_running(self, job_id: str, timeout: float) -> dict[str, Any]:
        """Poll the job until it runs; a job that ends first raises JobFailedError."""
        deadline = time.monotonic() + timeout
        delay = POLL_INITIAL_S
        with self._progress.wait(f"waiting for job {job_id}") as bar:
            while True:
                job = await self.get_job(job_id)
                state = normalize_state(job.get("status"))
                bar.status(state)
                if state == "running":
                    return job
                if state in TERMINAL_JOB_STATES:
                    raise JobFailedError(
                        f"job {job_id} is {state}: {job.get('reason') or 'no reason given'}",
                        code=state,
                    )
                if time.monotonic() + delay > deadline:
                    raise RequestTimeoutError(
                        f"job {job_id} still {state} after {timeout:.0f} s", code=state
                    )
                await asyncio.sleep(delay)
                delay = min(delay * POLL_FACTOR, POLL_MAX_S)

    # -- data plane -------------------------------------------------------------------

    async def call_json(self, job_id: str, route: str, body: Mapping[str, Any]) -> Any:
        """Submit a JSON data-plane request (one key per logical call) and wait for it."""
        tag, op, model, keyed = _JSON_ROUTES[route]
        kwargs: dict[str, Any] = {"job_id": job_id, "body": self._model(model, body)}
        if keyed:
            kwargs["idempotency_key"] = uuid.uuid4().hex
        accepted = _json_body(await self._generated(tag, op, **kwargs))
        if route == "operation" and (
            body.get("operation_type") in INLINE_OPERATIONS or "request_id" not in accepted
        ):
            return accepted  # an inline operation's answer, opaque
        return await self.wait_request(job_id, _request_id(route, accepted), desc=route)

    async def call_binary(self, job_id: str, route: str, value: Any) -> Any:
        """Send a DSSST1 value to a binary route and return the decoded result."""
        accepted = await self.upload(job_id, route, value)
        return await self.wait_request(job_id, _request_id(route, accepted), desc=route)

    async def upload(self, job_id: str, route: str, value: Any) -> dict[str, Any]:
        """Stream `value` as chunk frames under one chunk-group id and return the answer.

        The group id is the server's idempotency key for the logical call: every retry, the
        one permitted replay (409 chunk_group_restart_required) and the refill of missing
        chunks (409 chunk_group_missing_chunks) reuse it, so the work is scheduled once.
        """
        group_id = uuid.uuid4().hex
        only: set[int] | None = None
        replayed = refilled = False
        while True:
            try:
                return await self._send_group(job_id, route, value, group_id, only)
            except ChunkGroupError as exc:
                if exc.code == "chunk_group_restart_required" and not replayed:
                    replayed, only = True, None
                    log.info("arctic_rl: server lost chunk group %s; replaying it", group_id)
                elif exc.code == "chunk_group_missing_chunks" and not refilled:
                    refilled, only = True, _missing_indexes(exc.details)
                    log.info("arctic_rl: resending chunks %s of group %s", only, group_id)
                else:
                    raise

    async def _send_group(
        self, job_id: str, route: str, value: Any, group_id: str, only: set[int] | None
    ) -> dict[str, Any]:
        """Encode lazily and POST each chunk (all, or `only` those plus the final one)."""
        from arctic_rl import wire

        chunks = wire.iter_chunks(
            value,
            kind="request_chunk",
            max_bytes=self.chunk_bytes,
            chunk_group_id=group_id,
            operation=CHUNKED_ROUTES.get(route, route),
            force=route in CHUNKED_ROUTES,
        )
        answer: dict[str, Any] = {}
        bar: Progress | None = None
        try:
            for idx, chunk in enumerate(chunks):
                size, total = _frame_size(chunk)
                if only is not None and idx not in only and idx != total - 1:
                    continue
                if bar is None:
                    bar = self._progress.upload(f"{route} upload", size)
                answer = await self._post_bytes(job_id, route, chunk, bar)
        finally:
            if bar is not None:
                bar.close()
        return answer

    async def _post_bytes(
        self, job_id: str, route: str, data: bytes, bar: Progress
    ) -> dict[str, Any]:
        # No Idempotency-Key: the chunk descriptor (group id + frame hash) is the key.
        headers = {"Content-Type": "application/octet-stream", "Content-Length": str(len(data))}
        url = f"/{quote(job_id, safe='')}/{route}"

        async def body() -> AsyncIterator[bytes]:
            view = memoryview(data)
            for start in range(0, len(view), UPLOAD_SLICE):
                piece = view[start : start + UPLOAD_SLICE]
                yield bytes(piece)
                bar.update(len(piece))

        async def send() -> httpx.Response:
            return await self._http.post(url, content=body(), headers=headers)

        # A non-final chunk's answer is not documented beyond carrying no request_id: it
        # may be empty.
        return dict(_json_body(await self._retrying(send)))

    async def _get_request(
        self, job_id: str, request_id: str, cursor: str | None, wait_s: float
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"max_events": 64}
        if cursor:
            kwargs["cursor"] = cursor
        if wait_s > 0:
            kwargs["wait_s"] = round(min(wait_s, 20.0), 3)
            # The server may hold a long poll for wait_s: the read timeout must outlast it.
            held = self._timeout.as_dict()
            held["read"] = (held["read"] or 0.0) + kwargs["wait_s"]
            kwargs["timeout"] = httpx.Timeout(**held)
        response = await self._generated(
            "requests", "get_request", job_id=job_id, request_id=request_id, **kwargs
        )
        return dict(_json_body(response))

    async def wait_request(self, job_id: str, request_id: str, *, desc: str = "request") -> Any:
        """Poll a request to its end, collecting result chunks; return the decoded result."""
        result_chunks = _ResultChunks()
        cursor: str | None = None
        delay = POLL_INITIAL_S
        deadline = time.monotonic() + self.poll_timeout
        with self._progress.wait(f"{desc} {request_id}") as bar:
            while True:
                wait_s = min(self.long_poll_s, max(0.0, deadline - time.monotonic()))
                started = time.monotonic()
                try:
                    status = await self._get_request(job_id, request_id, cursor, wait_s)
                except (ValidationError, BadRequestError):
                    if wait_s <= 0 or self.long_poll_s <= 0:
                        raise
                    log.info("arctic_rl: server refuses wait_s; polling instead")
                    self.long_poll_s = 0.0
                    continue
                events = status.get("events") or []
                for event in events:
                    if event.get("type") == "result_chunk":
                        result_chunks.add(event)
                # "" means nothing is queued right now: keep reading from where we are.
                next_cursor = str(status.get("next_cursor") or "")
                cursor = next_cursor or cursor
                state = normalize_state(status.get("status"))
                bar.status(state)
                if state == "completed":
                    if result_chunks.started or (next_cursor and not status.get("result")):
                        if result_chunks.complete:
                            return result_chunks.value()
                        if next_cursor:
                            continue  # more result pages to read
                        raise ArcticRLError(
                            f"request {request_id} completed without all its result chunks",
                            code="missing_chunks",
                        )
                    # A success without a result (proto3 may omit it) is an empty result.
                    return _decode_result(status.get("result") or {})
                if state not in _IN_FLIGHT_REQUEST_STATES:
                    raise _request_failure(request_id, state, status)
                if events and next_cursor:
                    continue  # drain pages without sleeping
                if time.monotonic() > deadline:
                    raise RequestTimeoutError(
                        f"request {request_id} still {state} after {self.poll_timeout:.0f} s",
                        code=state,
                    )
                if wait_s > 0 and time.monotonic() - started >= wait_s / 2:
                    continue  # the server held the poll: no extra sleep needed
                await asyncio.sleep(delay)
                delay = min(delay * POLL_FACTOR, POLL_MAX_S)


class _ResultChunks:
    """Result-chunk events -> one verified frame (each payload hash checked on arrival)."""

    def __init__(self) -> None:
        self._assembler: Any = None
        self._seen: set[int] = set()

    @property
    def started(self) -> bool:
        return self._assembler is not None

    @property
    def complete(self) -> bool:
        return self._assembler is not None and bool(self._assembler.complete)

    def add(self, event: Mapping[str, Any]) -> None:
        from arctic_rl import wire

        idx = int(event.get("chunk_idx", -1))
        if idx in self._seen:
            return  # a re-read page; already have it
        payload = base64.b64decode(event["payload_b64"])
        expected = event.get("payload_sha256")
        if expected and hashlib.sha256(payload).hexdigest() != expected:
            raise ArcticRLError(f"result chunk {idx} failed its sha256 check", code="hash_mismatch")
        if self._assembler is None:
            self._assembler = wire.ChunkAssembler(kind="result_chunk")
        descriptor = self._assembler.add(payload)
        self._seen.add(int(_get(descriptor, "chunk_idx", idx)))

    def value(self) -> Any:
        return self._assembler.value()


def _get(obj: Any, name: str, default: Any) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _frame_size(chunk: bytes) -> tuple[int, int]:
    """(whole frame size, chunk count) of an envelope; a bare frame is its own single chunk."""
    from arctic_rl import wire

    try:
        desc = wire.read_chunk_descriptor(chunk)
    except wire.WireError:
        return len(chunk), 1
    return int(desc["frame_size_bytes"]), int(desc["total_chunks"])


def _missing_indexes(details: Any) -> set[int] | None:
    """Chunk indexes named by a chunk_group_missing_chunks error (None: resend everything)."""
    found = {
        d["loc"][-1]
        for d in details or []
        if isinstance(d, Mapping) and d.get("loc") and isinstance(d["loc"][-1], int)
    }
    return found or None


def _decode_result(result: Any) -> Any:
    if isinstance(result, Mapping) and result.get("wire_format") == "DSSST1":
        from arctic_rl import wire

        return wire.loads(base64.b64decode(result["payload_b64"]))
    return result


def _request_failure(request_id: str, state: str, status: Mapping[str, Any]) -> RequestFailedError:
    """Today ``error`` is a string (``""`` when none); an older mock sent an Error object."""
    error = status.get("error")
    if isinstance(error, Mapping):
        return RequestFailedError(
            str(error.get("message") or f"request {request_id} ended {state}"),
            code=error.get("code") or state,
            request_id=error.get("request_id"),
            details=error.get("details"),
        )
    message = f"request {request_id} ended {state}" + (f": {error}" if error else "")
    return RequestFailedError(message, code=status.get("error_code") or state)


def _request_id(route: str, accepted: Mapping[str, Any]) -> str:
    """The handle to poll; an acceptance without one is the service breaking its contract."""
    if not accepted.get("request_id"):
        raise ArcticRLError(
            f"{route} was accepted without a request_id: {dict(accepted)!r}", code="no_request_id"
        )
    return str(accepted["request_id"])


def _json_body(response: httpx.Response) -> Any:
    """The JSON answer, or ``{}`` for an empty one (cancel, a non-final chunk)."""
    if not response.content.strip():
        return {}
    return response.json()


def _raise_for_status(response: httpx.Response) -> None:
    if response.status_code < 400:
        return
    try:
        body: Any = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        body = response.text
    raise error_from_response(response.status_code, body, response.headers)
