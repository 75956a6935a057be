"""A small in-process Cortex stand-in (httpx.MockTransport) for transport unit tests.

It speaks just enough of today's service to exercise retries, chunk groups, long results in
result-chunk events and fault injection, without sockets: polls answer ``done`` with
``error: ""`` and ``next_cursor: ""`` when nothing is queued, errors carry an integer
``code`` (chunk-group errors a string one), cancel and non-final chunks answer an empty 200.
The real mock server is used by the integration tests; this one makes failure paths easy to
script.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

import httpx

from arctic_rl import wire

PREFIX = "/api/v2/databases/RL_DB/schemas/PUBLIC/cortex-training"
BASE_URL = f"http://fake.test{PREFIX}"
TOKEN = "fake-token-not-for-logs"


@dataclass
class Fault:
    """Answer `status` (or raise a connection error) on the next request matching `match`."""

    match: str
    status: int | None = None
    retry_after: str | None = None
    code: str = "unavailable"
    times: int = 1


@dataclass
class FakeCortex:
    result_chunk_bytes: int = 1 << 30  # > this: answer through result_chunk events
    faults: list[Fault] = field(default_factory=list)
    executions: dict[str, int] = field(default_factory=dict)  # route -> times run
    seen: list[httpx.Request] = field(default_factory=list)
    keys: dict[str, Any] = field(default_factory=dict)
    groups: dict[str, wire.ChunkAssembler] = field(default_factory=dict)
    group_answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    polls_before_done: int = 1
    lose_chunks: set[int] = field(default_factory=set)
    legacy_missing_chunks: bool = False  # the older body: {chunk_group_id, message}, no code
    new_request_id_on_repeat: bool = False  # a repeated final chunk gets a fresh request id
    failures: dict[str, str] = field(default_factory=dict)  # route -> its request's error
    refuse_wait_s: bool = False  # a server that validates its query strictly: wait_s is a 422
    job_types: dict[str, list[str]] = field(default_factory=dict)
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    cancelled: set[str] = field(default_factory=set)
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        path = request.url.path.removeprefix(PREFIX)
        for fault in self.faults:
            if fault.times and fault.match in f"{request.method} {path}":
                fault.times -= 1
                if fault.status is None:
                    raise httpx.ReadError("connection dropped", request=request)
                headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
                return _error(fault.status, fault.code, headers)
        if request.headers.get("authorization") != f"Bearer {TOKEN}":
            return _error(401, "unauthorized")
        parts = [p for p in path.split("/") if p]
        if request.method == "POST" and not parts:
            return self._keyed(request, "create_job", lambda: self._create(request))
        job = parts[0]
        if request.method == "POST" and job.endswith(":cancel"):
            self.executions["cancel"] = self.executions.get("cancel", 0) + 1
            self.cancelled.add(job.removesuffix(":cancel"))
            return httpx.Response(200, headers={"x-snowflake-request-id": "fake-rid"})
        if request.method == "GET" and len(parts) == 1:
            state = "JOB_STATE_CANCELLED" if job in self.cancelled else "JOB_STATE_RUNNING"
            return _json(200, {**_job(job, self.job_types.get(job)), "status": state})
        if parts[1:] == ["checkpoints"]:
            return _json(200, {"checkpoints": self.checkpoints})
        if request.method == "DELETE":
            if parts[2] not in [c["checkpoint_id"] for c in self.checkpoints]:
                return _error(404, "checkpoint_not_found")
            self.checkpoints = [c for c in self.checkpoints if c["checkpoint_id"] != parts[2]]
            return httpx.Response(204, headers={"x-snowflake-request-id": "fake-rid"})
        if request.method == "GET" and parts[1] == "requests":
            return self._poll(parts[2], request)
        route = parts[1]
        if route in ("forward-backward", "forward-no-grad", "generate"):
            return self._binary(job, route, request.content)
        return self._keyed(request, route, lambda: self._accept(job, route, {"ok": route}))

    def _create(self, request: httpx.Request) -> dict[str, Any]:
        job = f"job-{next(self._ids)}"
        configs = json.loads(request.content)["sub_job_configs"]
        self.job_types[job] = [c["job_type"] for c in configs]
        return {"job_id": job}

    def _keyed(self, request: httpx.Request, route: str, make: Any) -> httpx.Response:
        key = request.headers.get("idempotency-key")
        if key and key in self.keys:
            return _json(200 if route == "create_job" else 202, self.keys[key])
        body = make()
        self.executions[route] = self.executions.get(route, 0) + 1
        if key:
            self.keys[key] = body
        return _json(200 if route == "create_job" else 202, body)

    def _binary(self, job: str, route: str, data: bytes) -> httpx.Response:
        try:
            desc = wire.read_chunk_descriptor(data)
        except wire.WireError:
            return _json(202, self._run(job, route, wire.loads(data)))
        group = desc["chunk_group_id"]
        if group in self.group_answers:
            answer = self.group_answers[group]
            if self.new_request_id_on_repeat:  # a second record of the same execution
                rid = f"req-{next(self._ids)}"
                self.requests[rid] = {**self.requests[answer["request_id"]], "polls": 0}
                answer = {**answer, "request_id": rid}
            return _json(202, answer)
        if group not in self.groups:
            if desc["chunk_idx"] != 0:
                return _error(409, "chunk_group_restart_required")
            self.groups[group] = wire.ChunkAssembler(kind="request_chunk")
        assembler = self.groups[group]
        idx, total = desc["chunk_idx"], desc["total_chunks"]
        if idx in self.lose_chunks:
            self.lose_chunks.discard(idx)  # "accepted", then lost (e.g. a crashed disk write)
            return _empty_200()
        if assembler.total is not None and idx not in assembler.missing():
            return _empty_200()  # a chunk sent again: already stored
        if idx == total - 1 and assembler.received < total - 1:
            missing = [i for i in range(total - 1) if i in assembler.missing()]
            if self.legacy_missing_chunks:
                message = "request chunk group is missing chunks"
                return _json(409, {"chunk_group_id": group, "message": message})
            return _json(
                409,
                {
                    "message": "missing",
                    "code": "chunk_group_missing_chunks",
                    "details": [
                        {
                            "loc": ["body", "chunk_idx", i],
                            "msg": "chunk missing",
                            "type": "missing_chunk",
                        }
                        for i in missing
                    ],
                },
            )
        assembler.add(data)
        if not assembler.complete:
            return _empty_200()  # today's non-final chunk answer carries no request_id
        answer = self._run(job, route, assembler.value())
        self.group_answers[group] = answer
        return _json(202, answer)

    def _run(self, job: str, route: str, value: Any) -> dict[str, Any]:
        import torch

        self.executions[route] = self.executions.get(route, 0) + 1
        if route == "generate":
            result: Any = {
                "job_id": job,
                "results": [
                    {"text": f"echo {p}", "token_ids": [1, 2], "finish_reason": "stop"}
                    for p in value["prompts"]
                ],
            }
        else:
            ids = value["kwargs"]["input_ids"]
            out = {"logprobs": torch.full(ids.shape, -0.5)}
            result = {
                "job_id": job,
                "avg_loss": 0.25,
                "loss": 0.25,
                "metrics": {"grad_norm": 1.0},
                "post_process_outputs": out,
                "echo_meta": value.get("meta"),
            }
            if route == "forward-no-grad":
                result = {
                    "model_outputs": out,
                    "metrics": {},
                    "reference": value["reference_model"],
                }
        return self._accept(job, route, result, binary=True)

    def _accept(self, job: str, route: str, result: Any, binary: bool = False) -> dict[str, Any]:
        rid = f"req-{next(self._ids)}"
        events: list[dict[str, Any]] = []
        if binary:
            frame = wire.dumps(result)
            if len(frame) > self.result_chunk_bytes:
                chunks = wire.split_chunks(
                    frame, kind="result_chunk", max_bytes=self.result_chunk_bytes
                )
                events = [
                    {
                        "type": "result_chunk",
                        "chunk_idx": i,
                        "total_chunks": len(chunks),
                        "payload_b64": base64.b64encode(c).decode(),
                        "payload_sha256": hashlib.sha256(c).hexdigest(),
                    }
                    for i, c in enumerate(chunks)
                ]
                result = None
            else:
                result = {
                    "content_type": "application/octet-stream",
                    "encoding": "base64",
                    "wire_format": "DSSST1",
                    "payload_b64": base64.b64encode(frame).decode(),
                }
        elif route == "step":
            result = {"global_steps": 1, "last_lr": 1e-6}
        elif route == "save":
            ckpt = f"global_step_{len(self.checkpoints) + 1}"
            self.checkpoints.append(
                {
                    "checkpoint_id": ckpt,
                    "global_steps": 1,
                    "created_at": "2026-11-29T17:00:00Z",
                    "checkpoint_type": "resumable",
                }
            )
            result = {
                "checkpoint_id": ckpt,
                "checkpoint_path": f"/ckpt/{ckpt}",
                "checkpoint_tag": ckpt,
            }
        self.requests[rid] = {
            "job": job,
            "result": result,
            "events": events,
            "polls": 0,
            "error": self.failures.get(route, ""),
        }
        return {"request_id": rid, "job_id": job}

    def _poll(self, rid: str, request: httpx.Request) -> httpx.Response:
        if self.refuse_wait_s and "wait_s" in request.url.params:
            issue = {"loc": ["query", "wait_s"], "msg": "Extra inputs are not permitted"}
            return _json(422, {"detail": [{**issue, "type": "extra_forbidden"}]})
        req = self.requests[rid]
        req["polls"] += 1
        done = req["polls"] > self.polls_before_done
        start = int(request.url.params.get("cursor") or 0)
        page = req["events"][start : start + 2] if done else []
        end = start + len(page)
        status = {
            "request_id": rid,
            "status": ("failed" if req["error"] else "done") if done else "running",
            "created_at": "2026-11-29T17:00:00Z",
            "updated_at": "2026-11-29T17:00:01Z",
            "error": req["error"] if done else "",
            "events": page,
            # Non-empty only while more result chunks are queued.
            "next_cursor": str(end) if done and end < len(req["events"]) else "",
        }
        if done and req["result"] is not None:
            status["result"] = req["result"]
        return _json(200, status)


def _job(job: str, types: list[str] | None = None) -> dict[str, Any]:
    kinds = {"training": "training", "sampling": "sampling", "log_probability": "log_prob"}
    subs = [
        {
            "sub_job_id": f"{job}:{kinds[jt]}:0",
            "job_type": jt,
            "status": "running",
            "model_name": "m",
        }
        for jt in types or ["training", "sampling"]
    ]
    return {
        "job_id": job,
        "status": "JOB_STATE_RUNNING",
        "sub_jobs": subs,
        "created_at": "2026-11-29T17:00:00Z",
        "updated_at": "2026-11-29T17:00:00Z",
    }


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    headers = {"x-snowflake-request-id": "fake-rid", **(headers or {})}
    return httpx.Response(
        status,
        content=json.dumps(body).encode(),
        headers={"content-type": "application/json", **headers},
    )


def _empty_200() -> httpx.Response:
    return httpx.Response(200, headers={"x-snowflake-request-id": "fake-rid"})


def _error(status: int, code: str, headers: dict[str, str] | None = None) -> httpx.Response:
    """Today's error body: an integer code, except the chunk-group errors' string codes."""
    wire_code: int | str = code if code.startswith("chunk_group_") else status
    return _json(status, {"message": f"fake {code}", "code": wire_code}, headers)
