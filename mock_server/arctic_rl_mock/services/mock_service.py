"""The mock's behaviour behind the routes: the job lifecycle and the data-plane requests.

Handlers translate HTTP into calls on :class:`MockService`; this module owns the job
lifecycle and queues requests. Around it: :mod:`arctic_rl_mock.services.idempotency` (at-most-once
under ``Idempotency-Key``), :mod:`arctic_rl_mock.services.pages` (polls and waits),
:mod:`arctic_rl_mock.services.chunks` (chunk groups), :mod:`arctic_rl_mock.services.worker` (the
thread that runs
requests on a backend) and :mod:`arctic_rl_mock.services.control` (what the control plane shows).
The store is blocking: every call to it from here runs in a thread, off the event loop.

Exactly once across crashes: a request is stored in the same transaction as what makes a
retry find it (its idempotency record, or its chunk group's binding), and only then
queued; at start-up the service reconciles what a killed process left behind.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from typing import Any

from cortex_gs_contract import ErrorCode, JobState, RequestState

from arctic_rl import wire
from arctic_rl_mock.backends import Backend
from arctic_rl_mock.errors import ApiError, request_error
from arctic_rl_mock.services import limits, recovery
from arctic_rl_mock.services.chunk_group import Chunk, decode, read_request_chunk
from arctic_rl_mock.services.chunks import NO_CHUNK_DIGEST, ChunkGroups
from arctic_rl_mock.services.exports import ExportSigner
from arctic_rl_mock.services.idempotency import IdempotencyKeys, Runner, record_for
from arctic_rl_mock.services.pages import RequestPages
from arctic_rl_mock.services.retention import unknown_request
from arctic_rl_mock.services.worker import Worker
from arctic_rl_mock.settings import ON_LOOP_BYTES, Settings
from arctic_rl_mock.store import Store
from arctic_rl_mock.web.disk_errors import StorageFaults

log = logging.getLogger("arctic_rl_mock")

JOB_FLOW = (JobState.pending, JobState.placing, JobState.initializing, JobState.running)
WORKER_STOP_TIMEOUT_S = 30

Answer = tuple[int, dict[str, Any]]


def new_id(prefix: str) -> str:
    """Ids matching the contract's patterns (no ``:``; short enough for logs)."""
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def accepted(request_id: str, job_id: str) -> dict[str, Any]:
    """The body of a 202 AcceptedRequest."""
    return {"request_id": request_id, "job_id": job_id}


class MockService:
    """Owns the store, the worker, the chunk groups and the job lifecycle tasks."""

    def __init__(
        self,
        settings: Settings,
        backend_factory: Callable[[], Backend],
        store: Store,
        storage_faults: StorageFaults | None = None,
    ) -> None:
        """``storage_faults``: the app's (default: one of this service's own)."""
        self.settings = settings
        self.store = store
        self.pages = RequestPages(store)
        self.worker = Worker(settings, store, backend_factory, self.pages.notify)
        faults = storage_faults or StorageFaults()
        self.chunks = ChunkGroups(settings, store, self._submit_group, faults)
        self.exports = ExportSigner(store)
        self.keys = IdempotencyKeys(store)
        self._lifecycle: set[asyncio.Task[None]] = set()

    # -- startup / shutdown ----------------------------------------------------------
    async def start(self) -> None:
        """Reconcile what a previous run left behind, start the worker, resume the rest."""
        self.pages.bind(asyncio.get_running_loop())
        pending = await asyncio.to_thread(self._recover)
        self.worker.start()
        for request_id in pending:
            self.worker.run_request(request_id)
        for job in self.store.jobs.list_jobs():
            if job["status"] in JOB_FLOW[:-1]:
                self._start_lifecycle(job["job_id"], job["status"])

    def _recover(self) -> list[str]:
        """Store thread: make the store consistent after a crash; the pending requests.

        A complete group without a request (an older mock stored the final chunk first)
        gets one; one whose frame does not verify is dropped. Requests a restart cut off
        run again (`recovery`); the pending ones are queued again. What finished
        requests left behind is removed, and retention prunes what is past its bounds.
        """
        store = self.store
        for job_id, group_id in store.groups.reconcile():
            assembler = wire.ChunkAssembler(kind="request_chunk")
            try:
                for chunk in store.groups.read_chunks(job_id, group_id):
                    assembler.add(chunk)
                decode(assembler.buffer)
            except (wire.WireError, ApiError, OSError) as exc:
                log.warning("dropping chunk group %s of job %s: %s", group_id, job_id, exc)
                store.groups.drop_group(job_id, group_id)
                continue
            store.groups.submit_stored_group(job_id, group_id, new_id("req"))
            log.info(
                "chunk group %s of job %s was complete: its request is queued", group_id, job_id
            )
        pending = recovery.resume_interrupted(store)
        store.retention.drop_orphans()
        self.worker.pruner.prune()
        return pending

    async def stop(self) -> None:
        """Stop lifecycle tasks and the worker (after the request it is running)."""
        for task in list(self._lifecycle):
            task.cancel()
        await asyncio.to_thread(self.worker.stop, WORKER_STOP_TIMEOUT_S)
        await asyncio.to_thread(self.store.close)

    # -- jobs ------------------------------------------------------------------------
    async def create_job(self, sub_jobs: list[dict[str, Any]], experiment_name: str | None) -> str:
        """Insert the job and start walking it towards ``running``."""
        settings = self.settings
        owner = (settings.user_name, settings.role_name) if settings.auth else None
        job_id = new_id("job")
        record = record_for(200, {"job_id": job_id})
        await asyncio.to_thread(
            self.store.jobs.create_job, job_id, sub_jobs, experiment_name, owner, record
        )
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
            if not await asyncio.to_thread(self.store.jobs.move_job, job_id, current, nxt):
                return
            current = nxt

    def job_or_404(self, job_id: str) -> dict[str, Any]:
        """The job row (held in memory: no store read), or 404 ``job_not_found``."""
        job = self.store.jobs.get_job(job_id)
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

    async def cancel_job(self, job_id: str) -> None:
        """Cancel a live job and its queued requests; idempotent once cancelled."""
        job = self.job_or_404(job_id)
        if job["status"] in (JobState.terminated, JobState.failed):
            raise ApiError(409, ErrorCode.invalid_state, f"job {job_id} is {job['status']}")
        if job["status"] == JobState.cancelled:
            return
        error = request_error(RequestState.cancelled, "request cancelled")
        cancelled = await asyncio.to_thread(self.store.requests.cancel_job, job_id, error)
        for request_id in cancelled:
            self._forget_cancelled(request_id)
        self.worker.release_job(job_id)

    async def cancel_request(self, job_id: str, request_id: str) -> bool:
        """The ``cancel-request`` operation: only requests that have not started yet (one
        retention pruned had finished: nothing to cancel)."""
        error = request_error(RequestState.cancelled, "request cancelled")
        found, cancelled = await asyncio.to_thread(
            self.store.requests.cancel_request, job_id, request_id, error
        )
        if not found:
            answer = await asyncio.to_thread(unknown_request, self.store, job_id, request_id)
            if answer.code != ErrorCode.request_expired:
                raise answer
        if cancelled:
            self._forget_cancelled(request_id)
        return cancelled

    def _forget_cancelled(self, request_id: str) -> None:
        self.worker.forget_input(request_id)
        self.pages.notify(request_id)

    # -- requests --------------------------------------------------------------------
    async def submit(self, job_id: str, kind: str, body: dict[str, Any]) -> str:
        """Record a JSON request and queue it."""
        return await self._create_request(new_id("req"), job_id, kind, {"body": body})

    async def _create_request(
        self, request_id: str, job_id: str, kind: str, payload: dict[str, Any], value: Any = None
    ) -> str:
        """Store the request with the idempotency record of its 202 (one transaction),
        then queue it (``value``: its decoded input, if already at hand)."""
        record = record_for(202, accepted(request_id, job_id), request_id)
        await asyncio.to_thread(
            self.store.requests.create_request, request_id, job_id, kind, payload, record
        )
        self.pages.expect(request_id)
        self.worker.run_request(request_id, None if value is None else lambda: value)
        return request_id

    def submitter(self, job_id: str, kind: str, body: dict[str, Any]) -> Runner:
        """What queues a JSON request once its job runs (run under ``Idempotency-Key``)."""

        async def run() -> tuple[int, Any]:
            self.running_job(job_id)
            return 202, accepted(await self.submit(job_id, kind, body), job_id)

        return run

    async def _submit_group(self, chunk: Chunk, value: Any) -> str:
        """A completed group: its final chunk, its request and its binding in one commit.

        The final chunk's file is written first; a crash before the commit leaves only
        that file (removed at start-up), so the resent final chunk completes the group.
        """
        request_id = new_id("req")
        await asyncio.to_thread(
            self.store.groups.finish_group,
            chunk.job_id,
            chunk.group_id,
            chunk.descriptor.as_dict(),
            chunk.op_key,
            (NO_CHUNK_DIGEST, chunk.body),
            request_id,
        )
        self.pages.expect(request_id)
        self.worker.run_request(request_id, lambda: value)
        return request_id

    async def submit_frame(self, job_id: str, kind: str, frame: bytes | memoryview) -> str:
        """A bare DSSST1 frame: validated now, kept on disk until it runs.

        A bare frame has no chunk group: only an ``Idempotency-Key`` (the ``forward``
        operation) makes a resend of it idempotent; otherwise each one is a new
        execution, as on the service.
        """
        value = await asyncio.to_thread(decode, frame)
        limits.check_request(self.settings, self.running_job(job_id), kind, value)
        request_id = new_id("req")
        name = await asyncio.to_thread(self.store.files.write_input, request_id, frame)
        try:
            return await self._create_request(request_id, job_id, kind, {"frame": name}, value)
        except Exception:  # no row names the input (a full disk, say): it goes too
            await asyncio.to_thread(self.store.files.drop_input, request_id)
            raise

    async def accept_body(self, job_id: str, kind: str, body: bytes | memoryview) -> Answer:
        """A binary route's body: a chunk envelope, or (older clients) the bare frame.

        A small body is parsed on the event loop (`ON_LOOP_BYTES`), a large one in a thread.
        """
        if len(body) < ON_LOOP_BYTES:
            received = read_request_chunk(body)
        else:
            received = await asyncio.to_thread(read_request_chunk, body)
        if received is not None:
            return await self.chunks.accept(job_id, kind, received)
        return 202, accepted(await self.submit_frame(job_id, kind, body), job_id)

    async def idempotent(
        self, scope: str, key: str | None, body: Any, run: Runner
    ) -> tuple[int, Any]:
        """The Idempotency-Key promise around ``run`` (see
        :mod:`arctic_rl_mock.services.idempotency`);
        today's service does not know the header, so there every call runs."""
        if not self.settings.serves_proposals:
            key = None
        return await self.keys.run(scope, key, body, run)
