"""The mock's behaviour behind the routes: jobs, requests, polling and idempotency.

Handlers translate HTTP into calls on :class:`MockService`; this module owns the job
lifecycle, at-most-once execution under ``Idempotency-Key``, and result paging. Chunk
groups are :mod:`mock_server.chunks`, the worker thread that runs requests on a backend
is :mod:`mock_server.worker`, and what the control plane shows is
:mod:`mock_server.control`.

Exactly once across crashes: a request is stored in the same transaction as what makes a
retry find it (its idempotency record, or its chunk group's binding), and only then
queued; at start-up the service reconciles what a killed process left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import re
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cortex_gs_contract import ErrorCode, JobState, RequestState

from arctic_rl import wire
from mock_server import limits, recovery
from mock_server.backends import Backend
from mock_server.chunks import (
    Chunk,
    ChunkGroups,
    KeyedLocks,
    decode,
    read_request_chunk,
    sha256_hex,
)
from mock_server.errors import ApiError, request_error
from mock_server.exports import ExportSigner
from mock_server.settings import Settings
from mock_server.store import IN_FLIGHT, IdempotencyRecord, Store
from mock_server.worker import Worker

log = logging.getLogger("mock_server")

JOB_FLOW = (JobState.pending, JobState.placing, JobState.initializing, JobState.running)
# Today's cap on one poll's events: larger asks are served this many, not refused.
MAX_EVENTS = 512
# Request kinds whose events are drained destructively (no client retry cursor).
STREAMED = ("generate_stream",)
WORKER_STOP_TIMEOUT_S = 30
_EVENT_CURSOR = re.compile(r"ev-(\d{1,12})")

Answer = tuple[int, dict[str, Any]]
Runner = Callable[[], Awaitable[tuple[int, Any]]]


def new_id(prefix: str) -> str:
    """Ids matching the contract's patterns (no ``:``; short enough for logs)."""
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


@dataclass
class _Claim:
    """The ``Idempotency-Key`` of the call being run: whatever state the call creates is
    stored in one transaction with the record that answers a retry (``take``)."""

    scope: str
    key: str
    body_hash: str
    taken: bool = False

    def take(self, status: int, response: Any, request_id: str | None) -> IdempotencyRecord:
        self.taken = True
        return IdempotencyRecord(self.scope, self.key, self.body_hash, status, response, request_id)


# Set by ``MockService.idempotent`` around the call it runs (a context variable, so the
# routes' runners need not pass it along; each asyncio task sees only its own).
_CLAIM: contextvars.ContextVar[_Claim | None] = contextvars.ContextVar("claim", default=None)


def _record(status: int, response: Any, request_id: str | None = None) -> IdempotencyRecord | None:
    """The record to store with the state this answer reports, when a key asked for one."""
    claim = _CLAIM.get()
    return None if claim is None or claim.taken else claim.take(status, response, request_id)


class MockService:
    """Owns the store, the worker, the chunk groups and the job lifecycle tasks."""

    def __init__(
        self, settings: Settings, backend_factory: Callable[[], Backend], store: Store
    ) -> None:
        self.settings = settings
        self.store = store
        self.worker = Worker(settings, store, backend_factory, self._notify)
        self.chunks = ChunkGroups(settings, store, self._submit_group)
        self.exports = ExportSigner(store)
        self._waiters: dict[str, asyncio.Event] = {}
        # One lock per (scope, key) in use, with how many calls hold or await it.
        # Calls under one Idempotency-Key run one at a time (the second then finds the
        # first one's record); calls under different keys never wait for each other.
        self._key_locks: KeyedLocks[tuple[str, str]] = KeyedLocks()
        self._lifecycle: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- startup / shutdown ----------------------------------------------------------
    async def start(self) -> None:
        """Start the worker; reconcile and resume what a previous run left behind."""
        self._loop = asyncio.get_running_loop()
        await asyncio.to_thread(self._reconcile)
        self.worker.start()
        for request_id in recovery.resume_interrupted(self.store):
            self.worker.run_request(request_id)
        for job in self.store.list_jobs():
            if job["status"] in JOB_FLOW[:-1]:
                self._start_lifecycle(job["job_id"], job["status"])

    def _reconcile(self) -> None:
        """Make the store consistent after a crash; a complete group without a request
        (an older mock stored the final chunk first) gets one, queued below with the rest
        of the pending requests; one whose frame does not verify is dropped."""
        for job_id, group_id in self.store.reconcile():
            assembler = wire.ChunkAssembler(kind="request_chunk")
            try:
                for chunk in self.store.read_chunks(job_id, group_id):
                    assembler.add(chunk)
                decode(assembler.buffer)
            except (wire.WireError, ApiError, OSError) as exc:
                log.warning("dropping chunk group %s of job %s: %s", group_id, job_id, exc)
                self.store.drop_group(job_id, group_id)
                continue
            self.store.submit_stored_group(job_id, group_id, new_id("req"))
            log.info(
                "chunk group %s of job %s was complete: its request is queued", group_id, job_id
            )

    async def stop(self) -> None:
        """Stop lifecycle tasks and the worker (after the request it is running)."""
        for task in list(self._lifecycle):
            task.cancel()
        await asyncio.to_thread(self.worker.stop, WORKER_STOP_TIMEOUT_S)
        self.store.close()

    # -- jobs ------------------------------------------------------------------------
    def create_job(self, sub_jobs: list[dict[str, Any]], experiment_name: str | None) -> str:
        """Insert the job and start walking it towards ``running``."""
        settings = self.settings
        owner = (settings.user_name, settings.role_name) if settings.auth else None
        job_id = new_id("job")
        record = _record(200, {"job_id": job_id})
        self.store.create_job(job_id, sub_jobs, experiment_name, owner, record)
        self.store.add_log(job_id, f"job {job_id} created with {len(sub_jobs)} sub-job(s)")
        self._start_lifecycle(job_id, JobState.pending)
        return job_id

    def _start_lifecycle(self, job_id: str, current: str) -> None:
        task = asyncio.get_running_loop().create_task(self._walk(job_id, current))
        self._lifecycle.add(task)
        task.add_done_callback(self._lifecycle.discard)

    async def _walk(self, job_id: str, current: str) -> None:
        """pending -> placing -> initializing, then the worker builds the model -> running."""
        for nxt in JOB_FLOW[JOB_FLOW.index(JobState(current)) + 1 :]:
            if self.settings.transition_delay_s:
                await asyncio.sleep(self.settings.transition_delay_s)
            if nxt == JobState.running:
                self.worker.init_job(job_id)
                return
            if not self.store.set_job_status(job_id, nxt, only_from=(current,)):
                return
            self.store.add_log(job_id, f"job is {nxt}")
            current = nxt

    def job_or_404(self, job_id: str) -> dict[str, Any]:
        """The job row, or 404 ``job_not_found``."""
        job = self.store.get_job(job_id)
        if job is None:
            raise ApiError(404, ErrorCode.job_not_found, f"job {job_id} not found")
        return job

    def running_job(self, job_id: str) -> dict[str, Any]:
        """The job row when it may take data-plane calls, else 404/409."""
        job = self.job_or_404(job_id)
        if job["status"] != JobState.running:
            raise ApiError(
                409, ErrorCode.job_not_running, f"job {job_id} is {job['status']}, not running"
            )
        return job

    def cancel_job(self, job_id: str) -> None:
        """Cancel a live job and its queued requests; idempotent once cancelled."""
        job = self.job_or_404(job_id)
        if job["status"] in (JobState.terminated, JobState.failed):
            raise ApiError(409, ErrorCode.invalid_state, f"job {job_id} is {job['status']}")
        if job["status"] == JobState.cancelled:
            return
        self.store.set_job_status(job_id, JobState.cancelled, "cancelled by user")
        self.store.add_log(job_id, "job cancelled by user")
        for request_id in self.store.requests_in((RequestState.pending,), job_id):
            self._set_cancelled(request_id)
        self.worker.release_job(job_id)

    def _set_cancelled(self, request_id: str) -> bool:
        error = request_error(RequestState.cancelled, "request cancelled")
        changed = self.store.set_request_status(
            request_id, RequestState.cancelled, error=error, only_from=(RequestState.pending,)
        )
        if changed:
            self.worker.forget_input(request_id)
            self._notify(request_id)
        return changed

    def cancel_request(self, job_id: str, request_id: str) -> bool:
        """The ``cancel-request`` operation: only requests that have not started yet."""
        self._request_or_404(job_id, request_id)
        return self._set_cancelled(request_id)

    # -- requests --------------------------------------------------------------------
    def submit(self, job_id: str, kind: str, body: dict[str, Any]) -> str:
        """Record a JSON request and queue it."""
        return self._create_request(new_id("req"), job_id, kind, {"body": body})

    def _create_request(
        self, request_id: str, job_id: str, kind: str, payload: dict[str, Any], value: Any = None
    ) -> str:
        """Store the request with the idempotency record of its 202 (one transaction),
        then queue it (``value``: its decoded input, if already at hand)."""
        record = _record(202, _accepted(request_id, job_id), request_id)
        self.store.create_request(request_id, job_id, kind, payload, record)
        self.worker.run_request(request_id, None if value is None else lambda: value)
        return request_id

    def submitter(self, job_id: str, kind: str, body: dict[str, Any]) -> Runner:
        """What queues a JSON request once its job runs (run under ``Idempotency-Key``)."""

        async def run() -> tuple[int, Any]:
            self.running_job(job_id)
            return 202, _accepted(self.submit(job_id, kind, body), job_id)

        return run

    async def _submit_group(self, chunk: Chunk, chunk_sha256: str, value: Any) -> str:
        """A completed group: its final chunk, its request and its binding in one commit.

        The final chunk's file is written first; a crash before the commit leaves only
        that file (removed at start-up), so the resent final chunk completes the group.
        """
        job_id, group_id = chunk.job_id, chunk.group_id
        await asyncio.to_thread(
            self.store.write_chunk_file, job_id, group_id, chunk.idx, chunk.body
        )
        request_id = new_id("req")
        self.store.finish_group(
            job_id, group_id, chunk.descriptor.as_dict(), chunk.op_key, chunk_sha256, request_id
        )
        self.worker.run_request(request_id, lambda: value)
        return request_id

    async def submit_frame(self, job_id: str, kind: str, frame: bytes) -> str:
        """A bare DSSST1 frame: validated now, kept on disk until it runs.

        A bare frame has no chunk group: only an ``Idempotency-Key`` (the ``forward``
        operation) makes a resend of it idempotent; otherwise each one is a new
        execution, as on the service.
        """
        value = await asyncio.to_thread(decode, frame)
        limits.check_request(self.settings, self.running_job(job_id), kind, value)
        request_id = new_id("req")
        path = self.worker.input_path(request_id)
        await asyncio.to_thread(_write_file, path, frame)
        return self._create_request(request_id, job_id, kind, {"frame": path.name}, value)

    async def accept_body(self, job_id: str, kind: str, body: bytes) -> Answer:
        """A binary route's body: a chunk envelope, or (older clients) the bare frame."""
        received = await asyncio.to_thread(read_request_chunk, body)
        if received is not None:
            return await self.chunks.accept(job_id, kind, received)
        return 202, _accepted(await self.submit_frame(job_id, kind, body), job_id)

    # -- polling ---------------------------------------------------------------------
    async def poll(
        self, job_id: str, request_id: str, cursor: str | None, max_events: int, wait_s: float
    ) -> dict[str, Any]:
        """One request-status page; waits up to ``wait_s`` for news when there is none.

        ``next_cursor`` is ``""`` unless more events are queued beyond this page (today's
        clients re-poll at once on a non-empty one). Streamed events are handed out once.
        """
        max_events = min(max_events, MAX_EVENTS)
        start = _cursor_start(cursor)
        row = self._request_or_404(job_id, request_id)
        if wait_s > 0 and row["status"] in IN_FLIGHT:
            row = await self._wait_for_news(job_id, request_id, start, wait_s)
        if row["kind"] in STREAMED:
            events, _ = self.store.drain_events(request_id, max_events)
            next_cursor = ""
        else:
            events, total = self.store.events(request_id, start, max_events)
            end = start + len(events)
            next_cursor = f"ev-{end}" if end < total else ""
        error = row["error"] or {}
        page = {
            "request_id": request_id,
            "status": row["status"],
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "result": row["result"] if row["result"] is not None else {},
            "error": str(error.get("message") or ""),
            "events": events,
            "next_cursor": next_cursor,
        }
        if error.get("code"):
            page["error_code"] = error["code"]
        return page

    async def finished_page(
        self, job_id: str, request_id: str, wait_s: float, max_events: int
    ) -> dict[str, Any] | None:
        """A submit's proposed ``wait_s``: the request's first poll page when it ends within
        ``wait_s`` seconds, else None (the submit then answers its usual 202)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        row = self._request_or_404(job_id, request_id)
        while row["status"] in IN_FLIGHT:
            left = deadline - loop.time()
            if left <= 0:
                return None
            row = await self._wait_for_news(job_id, request_id, 0, left)
        return await self.poll(job_id, request_id, None, max_events, 0.0)

    async def _wait_for_news(
        self, job_id: str, request_id: str, start: int, wait_s: float
    ) -> dict[str, Any]:
        """Long-poll: wait until the request changes or has unread events (or time runs out)."""
        # Register before re-reading, so a completion in between still wakes us.
        event = self._waiters.setdefault(request_id, asyncio.Event())
        row = self._request_or_404(job_id, request_id)
        _, total = self.store.events(request_id, start, 1)
        queued = total > (row["delivered"] if row["kind"] in STREAMED else start)
        if row["status"] in IN_FLIGHT and not queued:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), wait_s)
            row = self._request_or_404(job_id, request_id)
        return row

    def _request_or_404(self, job_id: str, request_id: str) -> dict[str, Any]:
        row = self.store.get_request(request_id)
        if row is None or row["job_id"] != job_id:
            raise ApiError(404, ErrorCode.request_not_found, f"request {request_id} not found")
        return row

    def _notify(self, request_id: str) -> None:
        """Wake long-polls of ``request_id``; safe to call from the worker thread."""
        if self._loop is None:
            return

        def wake() -> None:
            event = self._waiters.pop(request_id, None)
            if event is not None:
                event.set()

        self._loop.call_soon_threadsafe(wake)

    # -- idempotency -----------------------------------------------------------------

    async def idempotent(
        self, scope: str, key: str | None, body: Any, run: Runner
    ) -> tuple[int, Any]:
        """The Idempotency-Key promise around ``run`` (only successes are remembered)."""
        if key is None:
            return await run()
        body_hash = sha256_hex(_canonical(body))
        async with self._key_locks.hold((scope, key)):
            record = self.store.get_idempotent(scope, key)
            if record is not None:
                if record["body_hash"] != body_hash:
                    raise ApiError(
                        409,
                        ErrorCode.idempotency_key_conflict,
                        "Idempotency-Key was already used with a different body",
                    )
                return int(record["status"]), record["response"]
            claim = _Claim(scope, key, body_hash)
            token = _CLAIM.set(claim)
            try:
                status, response = await run()
            finally:
                _CLAIM.reset(token)
            if status < 300 and not claim.taken:
                # An answer that created nothing (an inline operation): remember it alone.
                self.store.put_idempotent(claim.take(status, response, None))
            return status, response


def _accepted(request_id: str, job_id: str) -> dict[str, Any]:
    """The body of a 202 AcceptedRequest."""
    return {"request_id": request_id, "job_id": job_id}


def _canonical(body: Any) -> bytes:
    """Key-order-independent JSON, so equal bodies hash equally for Idempotency-Key."""
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def _write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _cursor_start(cursor: str | None) -> int:
    """Cursors are ``ev-<index>``; any other (pattern-valid) cursor reads from the start.

    Forgiving on purpose: re-reading from the first event is always safe (pages are
    stable), while rejecting a schema-valid cursor would break the contract. The index
    has at most 12 digits (as log cursors): a larger one no SQLite integer holds.
    """
    match = _EVENT_CURSOR.fullmatch(cursor or "")
    return int(match.group(1)) if match else 0
