"""The one worker thread: builds the backend, then runs queued requests in order.

Torch never runs on the event loop, and requests of a job execute in submission order,
as on a single trainer. The worker also ends each job's ``initializing`` state (building
its model) and releases cancelled jobs. Results whose DSSST1 frame is small travel inline
(base64); larger ones become ``result_chunk`` events, streamed from the codec chunk by
chunk.

Backend state survives restarts: each job's lives under ``<state dir>/backend/<job id>``,
committed after every request that changed it and before that request is stored as done.
When the worker starts it restores every ``running`` job before it runs any request; a
job whose state cannot come back is ``failed`` with the reason, never left ``running``
on fresh weights.
"""

from __future__ import annotations

import base64
import logging
import queue
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from cortex_gs_contract import ErrorCode, JobState, RequestState

from arctic_rl import wire
from mock_server.backends import Backend, BackendError
from mock_server.chunks import decode, sha256_hex
from mock_server.errors import ApiError, request_error
from mock_server.settings import Settings
from mock_server.store import Store

log = logging.getLogger("mock_server")

# Request kinds whose result is a DSSST1 frame (the others answer JSON).
BINARY_RESULTS = ("forward_backward", "forward_no_grad", "generate", "log_probs", "forward")
# Request kinds whose input is a DSSST1 frame.
FRAME_INPUTS = ("forward_backward", "forward_no_grad", "generate", "forward")

Input = Callable[[], Any]


class Worker:
    """Owns the backend, the request queue and the decoded inputs waiting in it."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        backend_factory: Callable[[], Backend],
        notify: Callable[[str], None],
    ) -> None:
        self.settings = settings
        self.store = store
        self._backend_factory = backend_factory
        self._notify = notify
        self._backend: Backend | None = None
        self._backend_ready = threading.Event()
        self._queue: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._inputs: dict[str, Input] = {}
        self._thread: threading.Thread | None = None
        # Removing a finished request's input files (a chunk folder's rmdir takes about a
        # millisecond here) happens beside the worker, not before its next request.
        self._janitor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mock-cleanup")

    # -- the queue -------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._work, name="mock-worker", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float) -> None:
        """Stop after the request being run (blocking: call it off the event loop)."""
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout_s)
        self._janitor.shutdown(wait=True)

    def run_request(self, request_id: str, value: Input | None = None) -> None:
        """Queue a request; ``value`` short-cuts decoding its input again."""
        if value is not None:
            self._inputs[request_id] = value
        self._queue.put(("run", request_id))

    def forget_input(self, request_id: str) -> None:
        """A cancelled request's decoded input is no longer needed."""
        self._inputs.pop(request_id, None)

    def init_job(self, job_id: str) -> None:
        self._queue.put(("init", job_id))

    def release_job(self, job_id: str) -> None:
        self._queue.put(("release", job_id))

    def input_path(self, request_id: str) -> Path:
        """Where a bare frame's input waits on disk until it runs."""
        return self.store.root / "inputs" / f"{request_id}.bin"

    def state_dir(self, job_id: str) -> Path:
        """Where the backend keeps the job's model state between restarts."""
        return self.store.root / "backend" / job_id

    @property
    def backend(self) -> Backend:
        """The backend, once the worker has built it (waits for that)."""
        self._backend_ready.wait()
        if self._backend is None:
            raise BackendError(ErrorCode.unavailable, "the mock's backend failed to start")
        return self._backend

    def _work(self) -> None:
        """Build the backend and restore running jobs, then run queued requests in order."""
        try:
            self._backend = self._backend_factory()
        except Exception:
            log.exception("could not build the %s backend", self.settings.backend)
        finally:
            self._backend_ready.set()
        if self._backend is not None:
            # Without a backend every request fails as unavailable; the saved state stays
            # on disk for a restart that has one.
            self._restore_running_jobs()
        actions = {"release": self._release, "init": self._init_job, "run": self._run}
        while (item := self._queue.get()) is not None:
            action, ident = item
            try:
                actions[action](ident)
            except Exception:  # the worker must survive anything a request does
                log.exception("worker failed on %s %s", action, ident)

    # -- jobs ------------------------------------------------------------------------
    def _release(self, job_id: str) -> None:
        self.backend.release_job(job_id)
        shutil.rmtree(self.state_dir(job_id), ignore_errors=True)

    def _fail_job(self, job_id: str, reason: str, from_state: str) -> None:
        if self.store.set_job_status(job_id, JobState.failed, reason, only_from=(from_state,)):
            self.store.add_log(job_id, f"job failed: {reason}")

    def _init_job(self, job_id: str) -> None:
        """The end of ``initializing``: build the model; a bad start fails the job."""
        job = self.store.get_job(job_id)
        if job is None or job["status"] != JobState.initializing:
            return
        try:
            self._prepare(job)
        except Exception as exc:
            reason = getattr(exc, "message", None) or f"{type(exc).__name__} while initializing"
            self._fail_job(job_id, reason, JobState.initializing)
            return
        only_from = (JobState.initializing,)
        if self.store.set_job_status(job_id, JobState.running, only_from=only_from):
            self.store.add_log(job_id, "job is running")

    def _restore_running_jobs(self) -> None:
        """After a restart: each running job's backend state as its last done request left it."""
        for job in self.store.list_jobs(JobState.running):
            job_id = job["job_id"]
            try:
                steps = self.backend.restore_job(
                    job_id, job["sub_jobs"], self.state_dir(job_id), self._applied
                )
            except Exception as exc:
                if not isinstance(exc, BackendError):
                    log.exception("could not restore job %s", job_id)
                reason = getattr(exc, "message", None) or (
                    f"{type(exc).__name__} while restoring the backend state"
                )
                self._fail_job(job_id, reason, JobState.running)
            else:
                self.store.add_log(job_id, f"backend state restored at global step {steps}")

    def _applied(self, request_id: str) -> bool:
        """Whether the store holds ``request_id`` as done (its backend changes stand)."""
        row = self.store.get_request(request_id)
        return row is not None and row["status"] == RequestState.done

    def _prepare(self, job: dict[str, Any]) -> None:
        """A new job's backend state, from ``source_checkpoint_info`` when given."""
        job_id = job["job_id"]
        self.backend.prepare_job(job_id, job["sub_jobs"], self.state_dir(job_id))
        sources = (s.get("source_checkpoint_info") for s in job["sub_jobs"])
        source = next((s for s in sources if s), None)
        if source is not None:
            owner = source.get("source_job_id") or job_id
            if self.store.get_checkpoint(owner, source["checkpoint_id"]) is None:
                raise BackendError(
                    ErrorCode.checkpoint_not_found,
                    f"source checkpoint {source['checkpoint_id']} of job {owner} not found",
                )
            self.backend.load_checkpoint(
                job_id, self.store.checkpoint_dir(owner, source["checkpoint_id"])
            )
            self.backend.commit_job(job_id, None)

    # -- requests --------------------------------------------------------------------
    def _run(self, request_id: str) -> None:
        row = self.store.get_request(request_id)
        if row is None or row["status"] != RequestState.pending:
            return
        pending = (RequestState.pending,)
        if not self.store.set_request_status(request_id, RequestState.running, only_from=pending):
            return
        self._notify(request_id)
        if self.settings.request_latency_s:
            time.sleep(self.settings.request_latency_s)
        job_id, kind = row["job_id"], row["kind"]
        try:
            self._finish(request_id, job_id, kind, row["input"])
        except (BackendError, wire.WireError, ApiError) as exc:
            code = str(getattr(exc, "code", ErrorCode.internal_error))
            message = getattr(exc, "message", str(exc))
            self._fail(request_id, code, message)
            self.store.add_log(job_id, f"request {request_id} ({kind}) failed: {message}")
        except Exception as exc:
            log.exception("request %s (%s) crashed", request_id, kind)
            self._fail(request_id, ErrorCode.internal_error, f"{type(exc).__name__} in the backend")
        finally:
            self._inputs.pop(request_id, None)
            self._notify(request_id)
            self._janitor.submit(self._cleanup_input, job_id, row["input"] or {})

    def _fail(self, request_id: str, code: str, message: str) -> None:
        error = request_error(code, message)
        self.store.set_request_status(request_id, RequestState.failed, error=error)

    def _finish(self, request_id: str, job_id: str, kind: str, payload: dict[str, Any]) -> None:
        """Run the request on its (running) job and store its result."""
        job = self.store.get_job(job_id)
        if job is None or job["status"] != JobState.running:
            status = job["status"] if job else "gone"
            raise BackendError(ErrorCode.job_not_running, f"job {job_id} is {status}")
        output = self._execute(job_id, kind, request_id, payload)
        result, events = self._pack_binary(output) if kind in BINARY_RESULTS else (output, [])
        # Saved last thing before ``done``: restore trusts only the state of done requests.
        self._commit(job_id, request_id)
        line = f"request {request_id} ({kind}) done"
        self.store.set_request_status(
            request_id, RequestState.done, result=result, events=events, log=(job_id, line)
        )

    def _commit(self, job_id: str, request_id: str) -> None:
        """Save the request's backend changes; state that cannot be saved fails the job.

        The request's changes already happened in memory: were the job to go on, a
        restart would silently lose them, so it stops here with the reason instead.
        """
        try:
            self.backend.commit_job(job_id, request_id)
        except OSError as exc:
            reason = f"could not save the backend state ({exc.strerror or type(exc).__name__})"
            self._fail_job(job_id, reason, JobState.running)
            raise BackendError(ErrorCode.internal_error, reason) from exc

    def _input_value(self, request_id: str, job_id: str, payload: dict[str, Any]) -> Any:
        pending = self._inputs.pop(request_id, None)
        if pending is not None:
            return pending()
        if "group" in payload:  # after a restart: reassemble from the stored chunks
            assembler = wire.ChunkAssembler(kind="request_chunk")
            for chunk in self.store.read_chunks(job_id, payload["group"]):
                assembler.add(chunk)
            return decode(assembler.buffer)
        return decode(self.input_path(request_id).read_bytes())

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
        if kind in FRAME_INPUTS:
            frame_handlers = {
                "forward_backward": backend.forward_backward,
                "forward_no_grad": backend.forward_no_grad,
                # today's ``forward`` operation: a forward-only pass, no gradients kept
                "forward": backend.forward_no_grad,
                "generate": backend.generate,
            }
            return frame_handlers[kind](job_id, self._input_value(request_id, job_id, payload))
        json_handlers: dict[str, Callable[[], dict[str, Any]]] = {
            "generate_stream": lambda: self._stream(job_id, request_id, body),
            "log_probs": lambda: backend.log_probs(job_id, body),
            "step": lambda: backend.step(job_id, body.get("learning_rate")),
            "sync_weights": lambda: backend.sync_weights(job_id, body),
            "save_checkpoint": lambda: self._save(job_id, request_id, body),
            "load_checkpoint": lambda: self._load(job_id, body),
        }
        if kind not in json_handlers:
            raise BackendError(ErrorCode.bad_value, f"unknown request kind {kind}")
        return json_handlers[kind]()

    def _stream(self, job_id: str, request_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """generate-stream: one prompt at a time, each answer queued as an event at once."""
        running = (RequestState.running,)
        self.store.set_request_status(request_id, RequestState.streaming, only_from=running)
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
                ErrorCode.checkpoint_not_found,
                f"checkpoint {checkpoint_id} of job {source} not found",
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
        """Inline base64 for small frames, else one ``result_chunk`` event per chunk.

        One streaming pass of the codec: the frame is never built whole for large results.
        """
        chunking = wire.Chunking.for_payload(
            self.settings.result_chunk_bytes,
            kind="result_chunk",
            bare_max_bytes=self.settings.inline_result_bytes,
        )
        chunks = wire.iter_chunks(value, chunking)
        first = next(chunks)
        if first.descriptor is None:
            return {
                "content_type": "application/octet-stream",
                "encoding": "base64",
                "wire_format": "DSSST1",
                "payload_b64": base64.b64encode(first.data).decode("ascii"),
            }, []
        events = [
            {
                "type": "result_chunk",
                "chunk_idx": chunk.index,
                "total_chunks": chunk.total,
                "payload_b64": base64.b64encode(chunk.data).decode("ascii"),
                "payload_sha256": sha256_hex(chunk.data),
            }
            for chunk in (first, *chunks)
        ]
        return None, events


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
