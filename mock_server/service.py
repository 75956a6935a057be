"""The mock's behaviour behind the routes: jobs, chunk groups, requests and the worker.

Routes translate HTTP into calls on :class:`MockService`; this module owns the rules
(job lifecycle, chunk-group semantics, at-most-once execution, result paging, streamed
generation) and hands model work to a :class:`~mock_server.backends.Backend` on one
worker thread, so torch never runs on the event loop and requests of a job execute in
submission order, as on a single trainer.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import logging
import queue
import re
import shutil
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arctic_rl import wire
from mock_server.backends import Backend, BackendError
from mock_server.errors import ApiError, request_error
from mock_server.settings import Settings
from mock_server.store import Store

log = logging.getLogger("mock_server")

JOB_FLOW = ("pending", "placing", "initializing", "running")
TERMINAL_JOB_STATES = ("cancelled", "terminated", "failed")
IN_FLIGHT = ("pending", "running", "streaming")
TERMINAL_REQUEST_STATES = ("done", "failed", "cancelled")
# Today's cap on one poll's events: larger asks are served this many, not refused.
MAX_EVENTS = 512

# Chunked routes: request kind -> descriptor ``operation`` names accepted for it.
CHUNK_OPERATIONS = {
    "forward_backward": ("fwd-bwd", "forward-backward", "forward_backward"),
    "forward_no_grad": ("fwd-no-grad", "forward-no-grad", "forward_no_grad"),
    "generate": ("generate",),
}
_GROUP_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
# Request kinds whose result is a DSSST1 frame (the others answer JSON).
BINARY_RESULTS = ("forward_backward", "forward_no_grad", "generate", "log_probs", "forward")
# Request kinds whose events are drained destructively (no client retry cursor).
STREAMED = ("generate_stream",)


def new_id(prefix: str) -> str:
    """Ids matching the contract's patterns (no ``:``; short enough for logs)."""
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def sha256_hex(data: bytes | memoryview) -> str:
    """Hex SHA-256, the contract's digest format."""
    return hashlib.sha256(data).hexdigest()


@dataclass
class _Pending:
    """A decoded request input handed from a route to the worker without a disk trip."""

    value: Callable[[], Any]


class MockService:
    """Owns the store, the backend, the worker thread and the job lifecycle tasks."""

    def __init__(
        self, settings: Settings, backend_factory: Callable[[], Backend], store: Store
    ) -> None:
        self.settings = settings
        self._backend_factory = backend_factory
        self._backend: Backend | None = None
        self._backend_ready = threading.Event()
        self._prepared: set[str] = set()
        self.store = store
        self._queue: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._inputs: dict[str, _Pending] = {}
        self._assemblers: dict[tuple[str, str], wire.ChunkAssembler] = {}
        self._group_locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._waiters: dict[str, asyncio.Event] = {}
        self._idempotency_lock = asyncio.Lock()
        self._lifecycle: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._worker: threading.Thread | None = None

    # -- startup / shutdown ----------------------------------------------------------
    async def start(self) -> None:
        """Start the worker; resume what a previous run left in flight."""
        self._loop = asyncio.get_running_loop()
        self._worker = threading.Thread(target=self._work, name="mock-worker", daemon=True)
        self._worker.start()
        for request_id in self.store.requests_in(("running", "streaming")):
            self.store.finish_request(
                request_id,
                "failed",
                error=request_error("internal_error", "interrupted by a mock server restart"),
            )
        for request_id in self.store.requests_in(("pending",)):
            row = self.store.get_request(request_id)
            if row is not None:
                self._queue.put(("run", request_id))
        for job in self.store.list_jobs():
            if job["status"] in JOB_FLOW[:-1]:
                self._start_lifecycle(job["job_id"], job["status"])

    async def stop(self) -> None:
        """Stop lifecycle tasks and the worker (after the request it is running)."""
        for task in list(self._lifecycle):
            task.cancel()
        self._queue.put(None)
        if self._worker is not None:
            await asyncio.to_thread(self._worker.join, 30)
        self.store.close()

    # -- jobs ------------------------------------------------------------------------
    def create_job(
        self,
        sub_jobs: list[dict[str, Any]],
        experiment_name: str | None,
        owner: tuple[str, str] | None = None,
    ) -> str:
        """Insert the job and start walking it towards ``running``."""
        job_id = new_id("job")
        self.store.create_job(job_id, sub_jobs, experiment_name, owner)
        self.store.add_log(job_id, f"job {job_id} created with {len(sub_jobs)} sub-job(s)")
        self._start_lifecycle(job_id, "pending")
        return job_id

    def _start_lifecycle(self, job_id: str, current: str) -> None:
        task = asyncio.get_running_loop().create_task(self._walk(job_id, current))
        self._lifecycle.add(task)
        task.add_done_callback(self._lifecycle.discard)

    async def _walk(self, job_id: str, current: str) -> None:
        """pending -> placing -> initializing, then the worker builds the model -> running."""
        for nxt in JOB_FLOW[JOB_FLOW.index(current) + 1 :]:
            if self.settings.transition_delay_s:
                await asyncio.sleep(self.settings.transition_delay_s)
            if nxt == "running":
                self._queue.put(("init", job_id))
                return
            if not self.store.set_job_status(job_id, nxt, only_from=(current,)):
                return
            self.store.add_log(job_id, f"job is {nxt}")
            current = nxt

    def job_or_404(self, job_id: str) -> dict[str, Any]:
        """The job row, or 404 ``job_not_found``."""
        job = self.store.get_job(job_id)
        if job is None:
            raise ApiError(404, "job_not_found", f"job {job_id} not found")
        return job

    def running_job(self, job_id: str) -> dict[str, Any]:
        """The job row when it may take data-plane calls, else 404/409."""
        job = self.job_or_404(job_id)
        if job["status"] != "running":
            raise ApiError(409, "job_not_running", f"job {job_id} is {job['status']}, not running")
        return job

    def cancel_job(self, job_id: str) -> None:
        """Cancel a live job and its queued requests; idempotent once cancelled."""
        job = self.job_or_404(job_id)
        if job["status"] in ("terminated", "failed"):
            raise ApiError(409, "invalid_state", f"job {job_id} is {job['status']}")
        if job["status"] == "cancelled":
            return
        self.store.set_job_status(job_id, "cancelled", "cancelled by user")
        self.store.add_log(job_id, "job cancelled by user")
        for request_id in self.store.requests_in(("pending",), job_id):
            self._set_cancelled(request_id)
        self._queue.put(("release", job_id))

    def _set_cancelled(self, request_id: str) -> bool:
        error = request_error("cancelled", "request cancelled")
        changed = self.store.finish_request(
            request_id, "cancelled", error=error, only_from=("pending",)
        )
        if changed:
            self._inputs.pop(request_id, None)
            self._notify(request_id)
        return changed

    def cancel_request(self, job_id: str, request_id: str) -> bool:
        """The ``cancel-request`` operation: only requests that have not started yet."""
        row = self.store.get_request(request_id)
        if row is None or row["job_id"] != job_id:
            raise ApiError(404, "request_not_found", f"request {request_id} not found")
        return self._set_cancelled(request_id)

    # -- requests --------------------------------------------------------------------
    def submit(
        self, job_id: str, kind: str, payload: dict[str, Any], value: _Pending | None = None
    ) -> str:
        """Record a request and queue it; ``value`` short-cuts decoding its input again."""
        request_id = new_id("req")
        self.store.create_request(request_id, job_id, kind, payload)
        if value is not None:
            self._inputs[request_id] = value
        self._queue.put(("run", request_id))
        return request_id

    async def submit_frame(self, job_id: str, kind: str, frame: bytes) -> str:
        """A bare DSSST1 frame: validated now, kept on disk until it runs.

        A bare frame has no chunk group, so nothing makes a resend of it idempotent:
        each one is a new execution, as on the service.
        """
        value = await asyncio.to_thread(_decode, frame)
        request_id = new_id("req")
        path = self._input_path(request_id)
        await asyncio.to_thread(_write_file, path, frame)
        self.store.create_request(request_id, job_id, kind, {"frame": path.name})
        self._inputs[request_id] = _Pending(lambda: value)
        self._queue.put(("run", request_id))
        return request_id

    def _input_path(self, request_id: str) -> Path:
        return self.store.root / "inputs" / f"{request_id}.bin"

    async def accept_body(self, job_id: str, kind: str, body: bytes) -> tuple[int, dict[str, Any]]:
        """A binary route's body: a chunk envelope, or (older clients) the bare frame."""
        if await self.is_chunk(body):
            return await self.accept_chunk(job_id, kind, body)
        return 202, {"request_id": await self.submit_frame(job_id, kind, body), "job_id": job_id}

    # -- chunk groups ----------------------------------------------------------------
    async def accept_chunk(
        self, job_id: str, kind: str, chunk: bytes
    ) -> tuple[int, dict[str, Any]]:
        """Apply the contract's chunk-group rules; (status, body) for the route."""
        desc = await asyncio.to_thread(wire.read_chunk_descriptor, chunk)
        if desc["kind"] != "request_chunk":
            raise ApiError(400, "chunk_mismatch", "expected a request_chunk frame")
        group_id = desc.get("chunk_group_id")
        if not isinstance(group_id, str) or not _valid_group_id(group_id):
            raise ApiError(400, "bad_structure", "request chunks need a valid chunk_group_id")
        operation = desc.get("operation")
        if operation is not None and operation not in CHUNK_OPERATIONS[kind]:
            raise ApiError(
                409,
                "chunk_group_conflict",
                f"chunk operation {operation!r} does not belong on this route",
                fields={"chunk_group_id": group_id},
            )
        key = (job_id, group_id)
        lock = self._group_locks.setdefault(key, asyncio.Lock())
        async with lock:
            return await self._accept_locked(job_id, kind, group_id, desc, chunk)

    async def _accept_locked(
        self, job_id: str, kind: str, group_id: str, desc: dict[str, Any], chunk: bytes
    ) -> tuple[int, dict[str, Any]]:
        idx, total = int(desc["chunk_idx"]), int(desc["total_chunks"])
        chunk_sha = await asyncio.to_thread(sha256_hex, chunk)
        op_key = f"{kind}:{desc.get('operation') or ''}"
        group = self.store.get_group(job_id, group_id)
        accepted = {"job_id": job_id, "chunk_group_id": group_id, "chunk_idx": idx}
        group_field = {"chunk_group_id": group_id}
        if group is None:
            if idx != 0:
                raise ApiError(
                    409,
                    "chunk_group_restart_required",
                    f"chunk group {group_id} is unknown; restart it at chunk 0",
                    fields=group_field,
                )
            have: dict[int, str] = {}
        else:
            same = (
                group["total_chunks"],
                group["frame_sha256"],
                group["frame_size"],
                group["operation"],
            )
            if same != (total, desc["frame_sha256"], desc["frame_size_bytes"], op_key):
                raise ApiError(
                    409,
                    "chunk_group_conflict",
                    f"chunk group {group_id} was started for a different frame",
                    fields=group_field,
                )
            have = group["chunks"]
            if idx in have and have[idx] != chunk_sha:
                raise ApiError(
                    409,
                    "chunk_group_conflict",
                    f"chunk {idx} of group {group_id} differs from the one accepted",
                    fields=group_field,
                )
            if group["request_id"] is not None:
                # At most once: a repeated final chunk resolves to the original execution.
                if idx == total - 1:
                    return 202, {"request_id": group["request_id"], "job_id": job_id}
                return 200, {**accepted, "received_chunks": total, "total_chunks": total}
            if idx in have:
                return 200, {**accepted, "received_chunks": len(have), "total_chunks": total}
        if idx == total - 1:
            missing = [i for i in range(total - 1) if i not in have]
            if missing:
                raise ApiError(
                    409,
                    "chunk_group_missing_chunks",
                    f"chunk group {group_id} is missing chunks {missing[:16]}",
                    fields=group_field,
                    details=[
                        {
                            "loc": ["body", "chunk_idx", i],
                            "msg": "chunk missing",
                            "type": "missing_chunk",
                        }
                        for i in missing
                    ],
                )
        assembler = await self._assembler(job_id, group_id)
        try:
            await asyncio.to_thread(assembler.add, chunk)
        except wire.WireError as exc:
            if exc.code == "chunk_mismatch":
                raise ApiError(
                    409, "chunk_group_conflict", exc.message, fields=group_field
                ) from exc
            if idx == total - 1 or exc.code == "hash_mismatch":
                # The final chunk failed verification: the group is dropped, per the contract.
                self._assemblers.pop((job_id, group_id), None)
                self.store.drop_group(job_id, group_id)
            raise ApiError(400, exc.code, exc.message) from exc
        await asyncio.to_thread(
            self.store.add_chunk, job_id, group_id, desc, op_key, chunk_sha, chunk
        )
        if not assembler.complete:
            received = len(have) + 1
            return 200, {**accepted, "received_chunks": received, "total_chunks": total}
        self._assemblers.pop((job_id, group_id), None)
        try:
            value = await asyncio.to_thread(_decode, assembler.buffer)
        except ApiError:
            self.store.drop_group(job_id, group_id)
            raise
        request_id = self.submit(job_id, kind, {"group": group_id}, _Pending(lambda: value))
        self.store.bind_group(job_id, group_id, request_id)
        return 202, {"request_id": request_id, "job_id": job_id}

    async def is_chunk(self, body: bytes) -> bool:
        """Binary bodies are bare frames unless their ``op`` holds a request_chunk."""
        try:
            op = await asyncio.to_thread(wire.read_metadata, body)
        except wire.WireError as exc:
            raise ApiError(400, exc.code, exc.message) from exc
        return "request_chunk" in op

    async def _assembler(self, job_id: str, group_id: str) -> wire.ChunkAssembler:
        """The group's in-memory assembler, rebuilt from stored chunks after a restart."""
        key = (job_id, group_id)
        assembler = self._assemblers.get(key)
        if assembler is None:
            assembler = wire.ChunkAssembler(kind="request_chunk")
            for stored in await asyncio.to_thread(self.store.read_chunks, job_id, group_id):
                assembler.add(stored)
            self._assemblers[key] = assembler
        return assembler

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
        streamed = row["kind"] in STREAMED
        if wait_s > 0 and row["status"] in IN_FLIGHT:
            # Register before re-reading, so a completion in between still wakes us.
            event = self._waiters.setdefault(request_id, asyncio.Event())
            row = self._request_or_404(job_id, request_id)
            _, total = self.store.events(request_id, start, 1)
            queued = total > (row["delivered"] if streamed else start)
            if row["status"] in IN_FLIGHT and not queued:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), wait_s)
                row = self._request_or_404(job_id, request_id)
        if streamed:
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

    def _request_or_404(self, job_id: str, request_id: str) -> dict[str, Any]:
        row = self.store.get_request(request_id)
        if row is None or row["job_id"] != job_id:
            raise ApiError(404, "request_not_found", f"request {request_id} not found")
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

    # -- the worker ------------------------------------------------------------------
    @property
    def backend(self) -> Backend:
        """The backend, once the worker has built it (waits for that)."""
        self._backend_ready.wait()
        if self._backend is None:
            raise BackendError("unavailable", "the mock's backend failed to start")
        return self._backend

    def _work(self) -> None:
        """Build the backend, then run queued requests one at a time, in order."""
        try:
            self._backend = self._backend_factory()
        except Exception:
            log.exception("could not build the %s backend", self.settings.backend)
        finally:
            self._backend_ready.set()
        while True:
            item = self._queue.get()
            if item is None:
                return
            action, ident = item
            try:
                if action == "release":
                    self._prepared.discard(ident)
                    self.backend.release_job(ident)
                elif action == "init":
                    self._init_job(ident)
                else:
                    self._run(ident)
            except Exception:  # the worker must survive anything a request does
                log.exception("worker failed on %s %s", action, ident)

    def _init_job(self, job_id: str) -> None:
        """The end of ``initializing``: build the model; a bad start fails the job."""
        job = self.store.get_job(job_id)
        if job is None or job["status"] != "initializing":
            return
        try:
            self._prepare(job)
        except Exception as exc:
            reason = getattr(exc, "message", None) or f"{type(exc).__name__} while initializing"
            if self.store.set_job_status(job_id, "failed", reason, only_from=("initializing",)):
                self.store.add_log(job_id, f"job failed: {reason}")
            return
        if self.store.set_job_status(job_id, "running", only_from=("initializing",)):
            self.store.add_log(job_id, "job is running")

    def _prepare(self, job: dict[str, Any]) -> None:
        """Backend state for the job, from ``source_checkpoint_info`` when given."""
        job_id = job["job_id"]
        if job_id in self._prepared:
            return
        self.backend.prepare_job(job_id, job["sub_jobs"])
        source = next(
            (
                s["source_checkpoint_info"]
                for s in job["sub_jobs"]
                if s.get("source_checkpoint_info")
            ),
            None,
        )
        if source is not None:
            owner = source.get("source_job_id") or job_id
            if self.store.get_checkpoint(owner, source["checkpoint_id"]) is None:
                raise BackendError(
                    "checkpoint_not_found",
                    f"source checkpoint {source['checkpoint_id']} of job {owner} not found",
                )
            self.backend.load_checkpoint(
                job_id, self.store.checkpoint_dir(owner, source["checkpoint_id"])
            )
        self._prepared.add(job_id)

    def _run(self, request_id: str) -> None:
        row = self.store.get_request(request_id)
        if row is None or row["status"] != "pending":
            return
        if not self.store.finish_request(request_id, "running", only_from=("pending",)):
            return
        self._notify(request_id)
        if self.settings.request_latency_s:
            time.sleep(self.settings.request_latency_s)
        job_id, kind = row["job_id"], row["kind"]
        try:
            job = self.store.get_job(job_id)
            if job is None or job["status"] != "running":
                status = job["status"] if job else "gone"
                raise BackendError("job_not_running", f"job {job_id} is {status}")
            self._prepare(job)
            output = self._execute(job_id, kind, request_id, row["input"])
            if kind in BINARY_RESULTS:
                result, events = self._pack_binary(output)
            else:
                result, events = output, []
            self.store.finish_request(request_id, "done", result=result, events=events)
            self.store.add_log(job_id, f"request {request_id} ({kind}) done")
        except (BackendError, wire.WireError, ApiError) as exc:
            code = str(getattr(exc, "code", "internal_error"))
            message = getattr(exc, "message", str(exc))
            self.store.finish_request(request_id, "failed", error=request_error(code, message))
            self.store.add_log(job_id, f"request {request_id} ({kind}) failed: {message}")
        except Exception as exc:
            log.exception("request %s (%s) crashed", request_id, kind)
            self.store.finish_request(
                request_id,
                "failed",
                error=request_error("internal_error", f"{type(exc).__name__} in the backend"),
            )
        finally:
            self._inputs.pop(request_id, None)
            self._cleanup_input(job_id, row["input"] or {})
            self._notify(request_id)

    def _input_value(self, request_id: str, job_id: str, payload: dict[str, Any]) -> Any:
        pending = self._inputs.pop(request_id, None)
        if pending is not None:
            return pending.value()
        if "group" in payload:  # after a restart: reassemble from the stored chunks
            assembler = wire.ChunkAssembler(kind="request_chunk")
            for chunk in self.store.read_chunks(job_id, payload["group"]):
                assembler.add(chunk)
            return _decode(assembler.buffer)
        return _decode(self._input_path(request_id).read_bytes())

    def _cleanup_input(self, job_id: str, payload: dict[str, Any]) -> None:
        if "group" in payload:
            self.store.drop_chunk_files(job_id, payload["group"])
        elif "frame" in payload:
            (self.store.root / "inputs" / payload["frame"]).unlink(missing_ok=True)

    def _execute(
        self, job_id: str, kind: str, request_id: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        """Dispatch one request to the backend; returns its result value."""
        body = payload.get("body") or {}
        backend = self.backend
        if kind in (*CHUNK_OPERATIONS, "forward"):
            value = self._input_value(request_id, job_id, payload)
            handler = {
                "forward_backward": backend.forward_backward,
                "forward_no_grad": backend.forward_no_grad,
                # today's ``forward`` operation: a forward-only pass, no gradients kept
                "forward": backend.forward_no_grad,
                "generate": backend.generate,
            }[kind]
            return handler(job_id, value)
        if kind == "generate_stream":
            return self._stream(job_id, request_id, body)
        if kind == "log_probs":
            return backend.log_probs(job_id, body)
        if kind == "step":
            return backend.step(job_id, body.get("learning_rate"))
        if kind == "sync_weights":
            return backend.sync_weights(job_id, body)
        if kind == "save_checkpoint":
            return self._save(job_id, request_id, body)
        if kind == "load_checkpoint":
            return self._load(job_id, body)
        raise BackendError("bad_value", f"unknown request kind {kind}")

    def _stream(self, job_id: str, request_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """generate-stream: one prompt at a time, each answer queued as an event at once."""
        self.store.finish_request(request_id, "streaming", only_from=("running",))
        completed = failed = 0
        for index, single in enumerate(_single_prompts(body)):
            try:
                results = self.backend.generate(job_id, single)["results"]
            except BackendError as exc:
                failed += 1
                events = [{"type": "error", "index": index, "error": exc.message}]
            else:
                completed += 1
                events = [{"type": "result", "index": index, "result": r} for r in results]
            self.store.append_events(request_id, events)
            self._notify(request_id)
        done = {"type": "done", "completed": completed, "failed": failed}
        self.store.append_events(request_id, [done])
        return {"completed": completed, "failed": failed}

    def _save(self, job_id: str, request_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Save under the server's own id (a caller's ``checkpoint_id`` is not used)."""
        ckpt_type = body.get("checkpoint_type") or "resumable"
        staging = self.store.root / "checkpoints" / job_id / f".staging-{request_id}"
        info = self.backend.save_checkpoint(job_id, staging, ckpt_type)
        checkpoint_id = f"global_step{info['global_steps']}"
        final = self.store.checkpoint_dir(job_id, checkpoint_id)
        shutil.rmtree(final, ignore_errors=True)
        staging.replace(final)
        self.store.add_checkpoint(
            job_id, checkpoint_id, int(info["global_steps"]), info.get("avg_loss"), ckpt_type
        )
        return {
            "checkpoint_id": checkpoint_id,
            "checkpoint_path": str(final),
            "checkpoint_tag": checkpoint_id,
        }

    def _load(self, job_id: str, body: dict[str, Any]) -> dict[str, Any]:
        source = body.get("source_job_id") or job_id
        checkpoint_id = body["checkpoint_id"]
        if self.store.get_checkpoint(source, checkpoint_id) is None:
            raise BackendError(
                "checkpoint_not_found", f"checkpoint {checkpoint_id} of job {source} not found"
            )
        info = self.backend.load_checkpoint(
            job_id, self.store.checkpoint_dir(source, checkpoint_id)
        )
        loaded = {
            "checkpoint_id": checkpoint_id,
            "source_job_id": source,
            "global_steps": int(info.get("global_steps", 0)),
        }
        if body.get("target_sub_job_id"):
            loaded["target_sub_job_id"] = body["target_sub_job_id"]
        return loaded

    def _pack_binary(self, value: Any) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """Inline base64 for small frames, else one ``result_chunk`` event per chunk."""
        frame = wire.dumps(value)
        if len(frame) <= self.settings.inline_result_bytes:
            return {
                "content_type": "application/octet-stream",
                "encoding": "base64",
                "wire_format": "DSSST1",
                "payload_b64": base64.b64encode(frame).decode("ascii"),
            }, []
        chunks = wire.split_chunks(
            frame,
            kind="result_chunk",
            max_bytes=self.settings.result_chunk_bytes + wire.CHUNK_HEADROOM,
            force=True,
        )
        events = [
            {
                "type": "result_chunk",
                "chunk_idx": i,
                "total_chunks": len(chunks),
                "payload_b64": base64.b64encode(chunk).decode("ascii"),
                "payload_sha256": sha256_hex(chunk),
            }
            for i, chunk in enumerate(chunks)
        ]
        return None, events

    # -- idempotency -----------------------------------------------------------------
    async def idempotent(
        self,
        scope: str,
        key: str | None,
        body: Any,
        run: Callable[[], Awaitable[tuple[int, Any]]],
    ) -> tuple[int, Any]:
        """The Idempotency-Key promise around ``run`` (only successes are remembered)."""
        if key is None:
            return await run()
        body_hash = sha256_hex(_canonical(body))
        async with self._idempotency_lock:
            record = self.store.get_idempotent(scope, key)
            if record is not None:
                if record["body_hash"] != body_hash:
                    raise ApiError(
                        409,
                        "idempotency_key_conflict",
                        "Idempotency-Key was already used with a different body",
                    )
                return int(record["status"]), record["response"]
            status, response = await run()
            if status < 300:
                self.store.put_idempotent(scope, key, body_hash, status, response)
            return status, response


def _canonical(body: Any) -> bytes:
    """Key-order-independent JSON, so equal bodies hash equally for Idempotency-Key."""
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def _decode(frame: bytes | memoryview) -> dict[str, Any]:
    """Decode a request frame; bad frames are the client's 400 with the codec's code."""
    try:
        value = wire.loads(frame)
    except wire.WireError as exc:
        raise ApiError(400, exc.code, exc.message) from exc
    if not isinstance(value, dict):
        raise ApiError(400, "bad_structure", "the frame's value must be a dict")
    return value


def _write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _valid_group_id(group_id: str) -> bool:
    """The contract's ChunkGroupId pattern (ids become directory names, too)."""
    return _GROUP_ID.fullmatch(group_id) is not None


def _cursor_start(cursor: str | None) -> int:
    """Cursors are ``ev-<index>``; any other (pattern-valid) cursor reads from the start.

    Forgiving on purpose: re-reading from the first event is always safe (pages are
    stable), while rejecting a schema-valid cursor would break the contract.
    """
    if cursor is not None and cursor.startswith("ev-") and cursor[3:].isdigit():
        return int(cursor[3:])
    return 0


def _single_prompts(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A generate body split per prompt, each with its own sampling params and routing key."""
    prompts = body.get("prompts") or []
    out = []
    for index, prompt in enumerate(prompts):
        single = {**body, "prompts": [prompt]}
        for key in ("sampling_params", "routing_key"):
            value = body.get(key)
            if isinstance(value, list):
                single[key] = value[index] if index < len(value) else None
        out.append(single)
    return out
