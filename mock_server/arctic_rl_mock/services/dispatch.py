"""What each request kind does on the backend (on the worker thread).

A frame route's input is decoded once: handed over by the route when it is still in
memory, else read back from the stored chunks or frame file (after a restart).
Checkpoints are saved under the server's own id and recorded in the store.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from typing import Any

from cortex_gs_contract import ErrorCode, RequestState

from arctic_rl import wire
from arctic_rl_mock import today
from arctic_rl_mock.backends import Backend, BackendError
from arctic_rl_mock.services.chunk_group import decode
from arctic_rl_mock.services.results import single_prompts
from arctic_rl_mock.store import Store

# Request kinds whose input is a DSSST1 frame.
FRAME_INPUTS = ("forward_backward", "forward_no_grad", "generate", "forward")

Input = Callable[[], Any]


class Dispatch:
    """Runs one request of a running job on the backend; returns its result value."""

    def __init__(
        self, store: Store, notify: Callable[[str], None], *, live_shapes: bool = False
    ) -> None:
        """``live_shapes``: answer as today's service does (:func:`arctic_rl_mock.today.answer`)."""
        self.store = store
        self._notify = notify
        self._live_shapes = live_shapes

    def execute(
        self, backend: Backend, request: dict[str, Any], value: Input | None
    ) -> dict[str, Any]:
        """``request`` is its stored row; ``value`` its decoded input, if at hand."""
        job_id, kind, request_id = request["job_id"], request["kind"], request["request_id"]
        payload = request["input"] or {}
        if kind in FRAME_INPUTS:
            frame_handlers = {
                "forward_backward": backend.forward_backward,
                "forward_no_grad": backend.forward_no_grad,
                # today's ``forward`` operation: a forward-only pass, no gradients kept
                "forward": backend.forward_no_grad,
                "generate": backend.generate,
            }
            decoded = value() if value is not None else self._stored_input(request)
            result = frame_handlers[kind](job_id, decoded)
            return today.answer(kind, job_id, result) if self._live_shapes else result
        body = payload.get("body") or {}
        json_handlers: dict[str, Callable[[], dict[str, Any]]] = {
            "generate_stream": lambda: self._stream(backend, job_id, request_id, body),
            "log_probs": lambda: backend.log_probs(job_id, body),
            "step": lambda: backend.step(job_id, body.get("learning_rate")),
            "sync_weights": lambda: backend.sync_weights(job_id, body),
            "save_checkpoint": lambda: self._save(backend, job_id, request_id, body),
            "load_checkpoint": lambda: self._load(backend, job_id, body),
        }
        if kind not in json_handlers:
            raise BackendError(ErrorCode.bad_value, f"unknown request kind {kind}")
        return json_handlers[kind]()

    def _stored_input(self, request: dict[str, Any]) -> Any:
        payload = request["input"] or {}
        if "group" in payload:  # after a restart: reassemble from the stored chunks
            assembler = wire.ChunkAssembler(kind="request_chunk")
            for chunk in self.store.groups.read_chunks(request["job_id"], payload["group"]):
                assembler.add(chunk)
            return decode(assembler.buffer)
        return decode(self.store.files.input_path(request["request_id"]).read_bytes())

    def _stream(
        self, backend: Backend, job_id: str, request_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        """generate-stream: one prompt at a time, each answer queued as an event at once."""
        running = (RequestState.running,)
        self.store.requests.set_request_status(
            request_id, RequestState.streaming, only_from=running
        )
        completed = failed = 0
        for index, single in enumerate(single_prompts(body)):
            try:
                generated = backend.generate(job_id, single)
                if self._live_shapes:
                    generated = today.answer("generate", job_id, generated)
                results = generated["results"]
            except BackendError as exc:
                failed += 1
                events = [{"type": "error", "index": index, "error": exc.message}]
            else:
                completed += 1
                events = [{"type": "result", "index": index, "result": r} for r in results]
            self.store.events.append_events(request_id, [json.dumps(e) for e in events])
            self._notify(request_id)
        done = {"type": "done", "completed": completed, "failed": failed}
        self.store.events.append_events(request_id, [json.dumps(done)])
        return {"completed": completed, "failed": failed}

    def _save(
        self, backend: Backend, job_id: str, request_id: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        """Save under the server's own id (a caller's ``checkpoint_id`` is not used)."""
        ckpt_type = body.get("checkpoint_type") or "resumable"
        staging = self.store.files.staging_dir(job_id, request_id)
        try:
            info = backend.save_checkpoint(job_id, staging, ckpt_type)
        except BaseException:  # a full disk, a crash in the backend: nothing half-written stays
            shutil.rmtree(staging, ignore_errors=True)
            raise
        checkpoint_id = f"global_step{info['global_steps']}"
        final = self.store.files.checkpoint_dir(job_id, checkpoint_id)
        shutil.rmtree(final, ignore_errors=True)
        staging.replace(final)
        self.store.checkpoints.add_checkpoint(
            job_id, checkpoint_id, int(info["global_steps"]), info.get("avg_loss"), ckpt_type
        )
        return {
            "checkpoint_id": checkpoint_id,
            "checkpoint_path": str(final),
            "checkpoint_tag": checkpoint_id,
        }

    def _load(self, backend: Backend, job_id: str, body: dict[str, Any]) -> dict[str, Any]:
        source = body.get("source_job_id") or job_id
        checkpoint_id = body["checkpoint_id"]
        directory = self.checkpoint(source, checkpoint_id)
        info = backend.load_checkpoint(job_id, directory)
        loaded = {
            "checkpoint_id": checkpoint_id,
            "source_job_id": source,
            "global_steps": int(info.get("global_steps", 0)),
        }
        if body.get("target_sub_job_id"):
            loaded["target_sub_job_id"] = body["target_sub_job_id"]
        return loaded

    def checkpoint(self, job_id: str, checkpoint_id: str, what: str = "checkpoint") -> Any:
        """A stored checkpoint's folder; ``checkpoint_not_found`` when it has no row."""
        if self.store.checkpoints.get_checkpoint(job_id, checkpoint_id) is None:
            raise BackendError(
                ErrorCode.checkpoint_not_found, f"{what} {checkpoint_id} of job {job_id} not found"
            )
        return self.store.files.checkpoint_dir(job_id, checkpoint_id)
