"""The mock Cortex GS as a FastAPI app, on the contract's generated pydantic models.

Routes only translate HTTP to :class:`~mock_server.service.MockService` calls: they
parse and validate (JSON through the generated models, binary bodies as raw capped
streams) and render answers through the same models, so every body the mock sends is
checked against the contract. Model work never happens here.

As today's service does, the mock serves any database and schema in the path (an
account has many), treats JSON bodies as open (unknown fields are ignored and logged at
debug), and answers in today's shapes; the contract's proposals (``Idempotency-Key``,
``wait_s``, the forward-no-grad / log-probs / sync-weights routes, string error codes in
``error_code``) work too, without narrowing what today's clients may send.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Annotated, Any

import cortex_gs_models as models
from fastapi import APIRouter, Depends, FastAPI, Header, Path, Query, Request, Security
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel
from starlette.convertors import Convertor, register_url_convertor
from starlette.datastructures import MutableHeaders
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mock_server import departures, operations
from mock_server.backends import Backend, make_backend, sub_job_ids
from mock_server.bodies import log_ignored, parse, plain
from mock_server.errors import ApiError, error_body, install_error_handlers
from mock_server.exports import FILES_PATH, ExportSigner
from mock_server.openapi import install_openapi
from mock_server.service import MockService
from mock_server.settings import REQUEST_ID_HEADER, TOKEN_TYPE, TOKEN_TYPE_HEADER, Settings
from mock_server.store import Store

log = logging.getLogger("mock_server")

JOB_ID = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"
CHECKPOINT_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
# Self-describing request ids of the service may hold ':' and '.'.
REQUEST_ID = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,255}$"
IDEMPOTENCY_KEY = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,254}$"
CURSOR = r"^[A-Za-z0-9_=-]{1,256}$"
# Drain at most this much of an oversized body so the client can read its 413 cleanly.
DRAIN_LIMIT_BYTES = 256 * 1024 * 1024


class JobIdConvertor(Convertor[str]):
    """Route-level job ids: one segment without ``:``.

    No ``:``, so ``/{job_id}`` never captures ``job-x:cancel`` (``GET`` there is a 405
    naming ``POST``). Anything else is captured and left to the JobId pattern of the
    route's parameter, so an id that breaks it is a 422 ``validation_error``, not a 404.
    """

    regex = "[^/:]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("job_id", JobIdConvertor())

JobIdPath = Annotated[str, Path(pattern=JOB_ID, description="The job's id.")]
IdemKey = Annotated[
    str | None,
    Header(alias="Idempotency-Key", pattern=IDEMPOTENCY_KEY, description="Idempotency key."),
]

_bearer = HTTPBearer(scheme_name="patBearer", auto_error=False)
_token_type = APIKeyHeader(name=TOKEN_TYPE_HEADER, scheme_name="patTokenType", auto_error=False)


async def authenticate(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)],
    token_type: Annotated[str | None, Security(_token_type)],
) -> str:
    """Both PAT headers, constant-time compare; returns a principal id (never the token)."""
    settings: Settings = request.app.state.settings
    if not settings.auth:
        return "anonymous"
    expected = (settings.token or "").encode()
    given = (bearer.credentials if bearer else "").encode()
    if not bearer or not expected or not hmac.compare_digest(given, expected):
        raise ApiError(401, "unauthorized", "missing or invalid bearer token")
    if token_type != TOKEN_TYPE:
        raise ApiError(401, "unauthorized", f"{TOKEN_TYPE_HEADER} must be {TOKEN_TYPE}")
    return hashlib.sha256(given).hexdigest()[:16]


Principal = Annotated[str, Depends(authenticate)]


class CheckpointIdConvertor(JobIdConvertor):
    """Route-level checkpoint ids: one segment without ``:`` (so ``id:export`` splits)."""


register_url_convertor("checkpoint_id", CheckpointIdConvertor())
CheckpointIdPath = Annotated[str, Path(pattern=CHECKPOINT_ID, description="The checkpoint's id.")]


# ------------------------------------------------------------------------ middleware
class AnyDatabaseAndSchema:
    """Serve ``/api/v2/databases/{database}/schemas/{schema}/{endpoint}`` for every
    database and schema, as an account with many does.

    The path is rewritten to the mock's canonical prefix before routing, so the routes
    stay one set; the names asked for are kept in ``request.state.account``.
    """

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.canonical = settings.prefix
        self.pattern = re.compile(
            rf"^/api/v2/databases/([^/]+)/schemas/([^/]+)/{re.escape(settings.endpoint)}(?=/|$)"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = self.pattern.match(scope.get("path", "")) if scope["type"] == "http" else None
        if match:
            path = self.canonical + scope["path"][match.end() :]
            scope = {**scope, "path": path, "raw_path": path.encode()}
            scope.setdefault("state", {})["account"] = (match.group(1), match.group(2))
        await self.app(scope, receive, send)


class _Body:
    """One request's body channel: counts bytes, enforces the cap, drains leftovers."""

    def __init__(self, receive: Receive, limit: int, declared: bytes | None) -> None:
        self._receive = receive
        self.limit = limit
        self.declared_too_large = bool(declared and declared.isdigit() and int(declared) > limit)
        self.seen = 0
        self.done = False

    async def receive(self) -> Message:
        if self.declared_too_large:
            raise self._too_large()
        message = await self._receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.done = True
        self.seen += len(message.get("body", b""))
        if self.seen > self.limit:
            raise self._too_large()
        return message

    def _too_large(self) -> ApiError:
        return ApiError(413, "payload_too_large", f"request body exceeds {self.limit} bytes")

    async def drain(self) -> None:
        """Discard what the client is still sending (bounded) so it can read our answer."""
        drained = 0
        while not self.done and drained < DRAIN_LIMIT_BYTES:
            message = await self._receive()
            drained += len(message.get("body", b""))
            self.done = message["type"] != "http.request" or not message.get("more_body", False)


class RequestIdAndLimitMiddleware:
    """Stamps ``x-snowflake-request-id`` on every response and caps request bodies.

    Pure ASGI (not BaseHTTPMiddleware) so bodies stream through untouched. The cap is
    enforced on the receive channel itself: a body over ``max_body_bytes`` raises the
    413 the moment the excess arrives (or at once when Content-Length declares it), for
    binary and JSON routes alike, so nothing beyond the cap is ever buffered. Before any
    answer goes out, an unread remainder of the body is drained (up to a bound) and
    discarded, so a client still writing a large body reads the answer instead of a
    broken pipe. Crashes are answered here too, so even a 500 carries the request id.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = str(uuid.uuid4())
        scope.setdefault("state", {})["request_id"] = request_id
        body = _Body(receive, self.max_body_bytes, dict(scope["headers"]).get(b"content-length"))
        started = False

        async def stamped_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                await body.drain()
                started = True
                MutableHeaders(scope=message).append(REQUEST_ID_HEADER, request_id)
            await send(message)

        try:
            await self.app(scope, body.receive, stamped_send)
        except ClientDisconnect:
            # The client hung up mid-body: nobody is left to answer, and nothing was stored.
            log.info("client went away while sending %s", scope.get("path"))
            return
        except Exception:
            log.exception("unhandled error answering %s", scope.get("path"))
            if started:
                raise
            response = JSONResponse(
                error_body(500, "internal_error", "internal error", request_id), status_code=500
            )
            await response(scope, receive, stamped_send)


# ------------------------------------------------------------------------ helpers
def reply(model: type[BaseModel], data: Any, status: int = 200) -> JSONResponse:
    """Validate an answer against the contract's model, then send it as built.

    Validation proves the answer fits the contract; the JSON sent is ``data`` itself, so
    fields a proto3 service leaves out stay out (the models would fill in defaults).
    """
    model.model_validate(data)
    return JSONResponse(data, status_code=status)


def iso(ts: float) -> str:
    """Epoch seconds -> RFC 3339 UTC, as the contract's date-times."""
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


async def read_body(request: Request) -> bytes:
    """The raw body; the middleware stops it at the cap, so this never exceeds it."""
    parts = bytearray()
    async for part in request.stream():
        parts += part
    return bytes(parts)


def open_body(model: BaseModel, what: str) -> dict[str, Any]:
    """A validated open body as data, having logged (debug) the fields it ignores."""
    log_ignored(model, what)
    return plain(model)


def _error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": models.Error, "description": "Error"} for code in codes}


READ = _error_responses(401, 404, 422, 429, 500, 503)
WRITE = _error_responses(400, 401, 404, 409, 413, 422, 429, 500, 503)


def _binary_body(schema: str, description: str) -> dict[str, Any]:
    """OpenAPI for a DSSST1 body read from the raw stream (FastAPI cannot infer it)."""
    media = {
        "schema": {"type": "string", "format": "binary"},
        "x-dssst1-schema": f"#/components/schemas/{schema}",
        "x-dssst1-envelope": "#/components/schemas/ChunkFrame",
    }
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": {"application/octet-stream": media},
        }
    }


def _json_octet_body(schema: str, description: str) -> dict[str, Any]:
    """OpenAPI for UTF-8 JSON sent as octet-stream (generate-stream's body)."""
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": {
                "application/octet-stream": {
                    "schema": {"type": "string", "format": "binary"},
                    "x-json-schema": f"#/components/schemas/{schema}",
                }
            },
        }
    }


# ------------------------------------------------------------------------ factory
def create_app(settings: Settings, backend: Backend | None = None) -> FastAPI:
    """Build the mock for ``settings`` (backend built from ``settings.backend`` if absent)."""
    store = Store(settings.state_dir)
    factory = (lambda: backend) if backend is not None else _backend_factory(settings)
    service = MockService(settings, factory, store)
    signer = ExportSigner(store)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(
        title="Cortex GS mock",
        version="0.1.0",
        lifespan=lifespan,
        separate_input_output_schemas=False,
        docs_url=f"{settings.prefix}/docs",
        openapi_url=f"{settings.prefix}/openapi.json",
        redoc_url=None,
    )
    app.state.service = service
    app.state.settings = settings
    install_error_handlers(app)
    app.add_middleware(RequestIdAndLimitMiddleware, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(AnyDatabaseAndSchema, settings=settings)

    router = APIRouter(prefix=settings.prefix)

    async def idempotent(
        principal: str,
        request: Request,
        key: str | None,
        body: dict[str, Any],
        run: Callable[[], Awaitable[tuple[int, Any]]],
    ) -> tuple[int, Any]:
        scope = f"{principal}|{request.method} {request.url.path}"
        return await service.idempotent(scope, key, body, run)

    def job_view(job: dict[str, Any]) -> dict[str, Any]:
        """A job as today's service shows it (``reason`` and ``image_tag`` may be empty)."""
        ids = sub_job_ids(job["job_id"], job["sub_jobs"])
        placed = job["status"] not in ("pending", "placing")
        view: dict[str, Any] = {
            "job_id": job["job_id"],
            "status": job["status"],
            "reason": job["reason"] or "",
            "created_at": iso(job["created_at"]),
            "updated_at": iso(job["updated_at"]),
            "image_tag": f"cortex-gs-mock:{settings.backend}" if placed else "",
        }
        for key in ("submitted_by", "owner_role"):
            if job.get(key):
                view[key] = job[key]
        view["sub_jobs"] = [
            {
                "sub_job_id": sub_id,
                "job_type": sub["job_type"],
                "status": job["status"],
                "model_name": sub["model_name"],
                **{k: sub[k] for k in ("training_config", "inference_config") if k in sub},
            }
            for sub_id, sub in zip(ids, job["sub_jobs"], strict=True)
        ]
        return view

    def accepted(job_id: str, request_id: str) -> tuple[int, dict[str, Any]]:
        return 202, {"request_id": request_id, "job_id": job_id}

    def submit_json(
        job_id: str, kind: str, body: dict[str, Any]
    ) -> Callable[[], Awaitable[tuple[int, Any]]]:
        async def run() -> tuple[int, Any]:
            service.running_job(job_id)
            return accepted(job_id, service.submit(job_id, kind, {"body": body}))

        return run

    async def data_plane(
        job_id: str,
        kind: str,
        data: dict[str, Any],
        principal: str,
        request: Request,
        key: str | None = None,
    ) -> JSONResponse:
        """A JSON data-plane call: body data -> queued request (under Idempotency-Key)."""
        run = submit_json(job_id, kind, data)
        return answer(await idempotent(principal, request, key, data, run))

    def answer(status_body: tuple[int, Any]) -> JSONResponse:
        """A chunk-route or data-plane answer: 200 (chunk stored) or 202 AcceptedRequest."""
        status, body = status_body
        return reply(
            models.ChunkAccepted if status == 200 else models.AcceptedRequest, body, status
        )

    # -- jobs --------------------------------------------------------------------------
    @router.post(
        "/",
        operation_id="create_job",
        tags=["jobs"],
        summary="Create a job",
        response_model=models.CreateJobResponse,
        responses=_error_responses(400, 401, 409, 413, 422, 429, 500, 503),
    )
    async def create_job(
        body: models.CreateJobRequest,
        principal: Principal,
        request: Request,
        idempotency_key: IdemKey = None,
    ) -> JSONResponse:
        """Validates the one-config-per-sub-job rule pydantic cannot express."""
        data = open_body(body, "create_job")
        _check_sub_job_configs(data["sub_job_configs"])
        owner = (settings.user_name, settings.role_name) if settings.auth else None

        async def run() -> tuple[int, Any]:
            job_id = service.create_job(data["sub_job_configs"], data.get("experiment_name"), owner)
            return 200, {"job_id": job_id}

        status, out = await idempotent(principal, request, idempotency_key, data, run)
        return reply(models.CreateJobResponse, out, status)

    @router.get(
        "/",
        operation_id="list_jobs",
        tags=["jobs"],
        summary="List jobs",
        response_model=models.JobList,
        responses=_error_responses(401, 422, 429, 500, 503),
    )
    async def list_jobs(
        _: Principal,
        status: Annotated[
            models.JobState | None, Query(description="Only jobs in this state.")
        ] = None,
    ) -> JSONResponse:
        jobs = service.store.list_jobs(status.value if status else None)
        return reply(models.JobList, {"jobs": [job_view(j) for j in jobs]})

    @router.get(
        "/capacity",
        operation_id="get_capacity",
        tags=["jobs"],
        summary="Read GPU capacity",
        response_model=models.Capacity,
        responses=_error_responses(401, 429, 500, 503),
    )
    async def get_capacity(_: Principal) -> JSONResponse:
        """Proto3 JSON: false and zero fields are left out, as today's service does."""
        used = sum(
            _gpus(job["sub_jobs"])
            for job in service.store.list_jobs()
            if job["status"] in ("pending", "placing", "initializing", "running")
        )
        total = settings.max_total_gpus
        fields = {
            "has_reservation": False,
            "max_total_gpus": total,
            "reserved_gpus": 0,
            "in_use_gpus": used,
            "available_gpus": max(total - used, 0),
        }
        return reply(models.Capacity, {k: v for k, v in fields.items() if v})

    @router.get(
        "/{job_id:job_id}",
        operation_id="get_job",
        tags=["jobs"],
        summary="Get a job",
        response_model=models.Job,
        responses=READ,
    )
    async def get_job(job_id: JobIdPath, _: Principal) -> JSONResponse:
        return reply(models.Job, job_view(service.job_or_404(job_id)))

    @router.post(
        "/{job_id:job_id}:cancel",
        operation_id="cancel_job",
        tags=["jobs"],
        summary="Cancel a job",
        status_code=200,
        response_class=Response,
        responses=_error_responses(401, 404, 409, 422, 429, 500, 503),
    )
    async def cancel_job(job_id: JobIdPath, _: Principal) -> Response:
        """200 with an empty body, as today (repeating it is an idempotent success)."""
        service.cancel_job(job_id)
        return Response(status_code=200)

    @router.get(
        "/{job_id:job_id}/experiment-run",
        operation_id="get_experiment_run",
        tags=["jobs"],
        summary="Resolve the job's experiment run",
        response_model=models.ExperimentRun,
        responses=READ,
    )
    async def get_experiment_run(job_id: JobIdPath, _: Principal, request: Request) -> JSONResponse:
        """``DATABASE.SCHEMA.EXPERIMENT`` (of the path asked) and the run's name."""
        job = service.job_or_404(job_id)
        database, schema = getattr(request.state, "account", (settings.database, settings.schema))
        name = job["experiment_name"] or settings.default_experiment
        qualified = name if name.count(".") == 2 else f"{database}.{schema}.{name}"
        run_name = job_id.upper().replace("-", "_")
        return reply(
            models.ExperimentRun,
            {"experiment_name": qualified, "experiment_run_name": run_name},
        )

    # -- checkpoints ---------------------------------------------------------------
    @router.get(
        "/{job_id:job_id}/checkpoints",
        operation_id="list_checkpoints",
        tags=["checkpoints"],
        summary="List checkpoints",
        response_model=models.CheckpointList,
        responses=READ,
    )
    async def list_checkpoints(job_id: JobIdPath, _: Principal) -> JSONResponse:
        service.job_or_404(job_id)
        rows = service.store.list_checkpoints(job_id)
        items = [
            {
                "checkpoint_id": r["checkpoint_id"],
                "global_steps": r["global_steps"],
                **({"avg_loss": r["avg_loss"]} if r["avg_loss"] is not None else {}),
                "created_at": iso(r["created_at"]),
                "checkpoint_type": r["checkpoint_type"],
            }
            for r in rows
        ]
        return reply(models.CheckpointList, {"checkpoints": items})

    @router.delete(
        "/{job_id:job_id}/checkpoints/{checkpoint_id:checkpoint_id}",
        operation_id="delete_checkpoint",
        tags=["checkpoints"],
        summary="Delete a checkpoint",
        status_code=204,
        response_class=Response,
        responses={200: {"description": "Deleted"}, **READ},
    )
    async def delete_checkpoint(
        job_id: JobIdPath, checkpoint_id: CheckpointIdPath, _: Principal
    ) -> Response:
        service.job_or_404(job_id)
        if not service.store.delete_checkpoint(job_id, checkpoint_id):
            raise ApiError(404, "checkpoint_not_found", f"checkpoint {checkpoint_id} not found")
        return Response(status_code=204)

    @router.post(
        "/{job_id:job_id}/checkpoints/{checkpoint_id:checkpoint_id}:export",
        operation_id="export_checkpoint",
        tags=["checkpoints"],
        summary="Export a checkpoint's files",
        response_model=models.CheckpointExport,
        responses=_error_responses(401, 404, 409, 422, 429, 500, 503),
    )
    async def export_checkpoint(
        job_id: JobIdPath, checkpoint_id: CheckpointIdPath, _: Principal, request: Request
    ) -> JSONResponse:
        """Short-lived links to each file of the checkpoint (no body in, none needed)."""
        service.job_or_404(job_id)
        if service.store.get_checkpoint(job_id, checkpoint_id) is None:
            raise ApiError(404, "checkpoint_not_found", f"checkpoint {checkpoint_id} not found")
        exported = signer.export(job_id, checkpoint_id, str(request.base_url))
        exported["expires_at"] = iso(exported["expires_at"])
        return reply(models.CheckpointExport, exported)

    @app.get(FILES_PATH + "/{token}", include_in_schema=False)
    async def download_export(token: str) -> FileResponse:
        """What an export link serves: the file itself, no auth header needed."""
        path = signer.resolve(token)
        return FileResponse(path, media_type="application/octet-stream", filename=path.name)

    @router.post(
        "/{job_id:job_id}/save",
        operation_id="save_checkpoint",
        tags=["checkpoints"],
        summary="Save a checkpoint",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses=WRITE,
    )
    async def save_checkpoint(
        job_id: JobIdPath,
        body: models.SaveRequest,
        principal: Principal,
        request: Request,
        idempotency_key: IdemKey = None,
    ) -> JSONResponse:
        """The result's ``checkpoint_id`` is the server's; a caller's one is not used."""
        data = open_body(body, "save")
        return await data_plane(
            job_id, "save_checkpoint", data, principal, request, idempotency_key
        )

    @router.post(
        "/{job_id:job_id}/load",
        operation_id="load_checkpoint",
        tags=["checkpoints"],
        summary="Load a checkpoint",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses={**WRITE, **_error_responses(501)},
    )
    async def load_checkpoint(
        job_id: JobIdPath,
        body: models.LoadRequest,
        principal: Principal,
        request: Request,
        idempotency_key: IdemKey = None,
    ) -> JSONResponse:
        """400 for a target outside the job, 501 for a non-training target, 404 when the
        checkpoint is missing."""
        data = open_body(body, "load")
        job = service.job_or_404(job_id)
        target = data.get("target_sub_job_id")
        if target is not None:
            kinds = operations.sub_job_types(job)
            if target not in kinds:
                raise ApiError(400, "bad_value", f"{target} is not a sub-job of job {job_id}")
            if kinds[target] != "training":
                raise ApiError(
                    501, "not_implemented", "load is only supported on training sub-jobs"
                )
        source = data.get("source_job_id") or job_id
        service.job_or_404(source)
        if service.store.get_checkpoint(source, data["checkpoint_id"]) is None:
            raise ApiError(
                404, "checkpoint_not_found", f"checkpoint {data['checkpoint_id']} not found"
            )
        return await data_plane(
            job_id, "load_checkpoint", data, principal, request, idempotency_key
        )

    # -- training ------------------------------------------------------------------
    async def binary(job_id: str, kind: str, request: Request) -> JSONResponse:
        service.running_job(job_id)
        return answer(await service.accept_body(job_id, kind, await read_body(request)))

    @router.post(
        "/{job_id:job_id}/forward-backward",
        operation_id="forward_backward",
        tags=["training"],
        summary="Forward and backward pass",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses={200: {"model": models.ChunkAccepted, "description": "Chunk stored"}, **WRITE},
        openapi_extra=_binary_body(
            "ForwardBackwardBatch", "A chunk envelope, or the bare frame when it fits."
        ),
    )
    async def forward_backward(job_id: JobIdPath, _: Principal, request: Request) -> JSONResponse:
        return await binary(job_id, "forward_backward", request)

    @router.post(
        "/{job_id:job_id}/forward-no-grad",
        operation_id="forward_no_grad",
        tags=["training"],
        summary="Forward pass without gradients (proposed)",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses={200: {"model": models.ChunkAccepted, "description": "Chunk stored"}, **WRITE},
        openapi_extra=_binary_body(
            "ForwardNoGradBatch", "A chunk envelope, or the bare frame when it fits."
        ),
    )
    async def forward_no_grad(job_id: JobIdPath, _: Principal, request: Request) -> JSONResponse:
        return await binary(job_id, "forward_no_grad", request)

    @router.post(
        "/{job_id:job_id}/step",
        operation_id="step",
        tags=["training"],
        summary="Optimizer step",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses=WRITE,
    )
    async def step(
        job_id: JobIdPath,
        body: models.StepRequest,
        principal: Principal,
        request: Request,
        idempotency_key: IdemKey = None,
    ) -> JSONResponse:
        data = open_body(body, "step")
        return await data_plane(job_id, "step", data, principal, request, idempotency_key)

    # -- sampling ------------------------------------------------------------------
    @router.post(
        "/{job_id:job_id}/generate",
        operation_id="generate",
        tags=["sampling"],
        summary="Generate completions",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses={200: {"model": models.ChunkAccepted, "description": "Chunk stored"}, **WRITE},
        openapi_extra=_binary_body("GenerateRequest", "A bare DSSST1 frame, or one chunk of it."),
    )
    async def generate(job_id: JobIdPath, _: Principal, request: Request) -> JSONResponse:
        return await binary(job_id, "generate", request)

    @router.post(
        "/{job_id:job_id}/generate-stream",
        operation_id="generate_stream",
        tags=["sampling"],
        summary="Start streaming generation",
        status_code=202,
        response_model=models.GenerateStreamAccepted,
        responses=WRITE,
        openapi_extra=_json_octet_body(
            "GenerateRequest", "UTF-8 JSON of a GenerateRequest, sent as octet-stream."
        ),
    )
    async def generate_stream(job_id: JobIdPath, _: Principal, request: Request) -> JSONResponse:
        """Each prompt's answer becomes a ``result``/``error`` event, then one ``done``."""
        service.running_job(job_id)
        raw = await read_body(request)
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ApiError(400, "bad_json", "body is not UTF-8 JSON") from exc
        generation = open_body(_parse(models.GenerateRequest, data), "generate-stream")
        _check_aligned(generation)
        request_id = service.submit(job_id, "generate_stream", {"body": generation})
        count = len(generation["prompts"])
        return reply(
            models.GenerateStreamAccepted,
            {"request_id": request_id, "job_id": job_id, "count": count},
            202,
        )

    @router.post(
        "/{job_id:job_id}/log-probs",
        operation_id="log_probs",
        tags=["sampling"],
        summary="Score prompts and completions (proposed)",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses=WRITE,
    )
    async def log_probs(
        job_id: JobIdPath, body: models.LogProbsRequest, principal: Principal, request: Request
    ) -> JSONResponse:
        return await data_plane(job_id, "log_probs", plain(body), principal, request)

    @router.post(
        "/{job_id:job_id}/sync-weights",
        operation_id="sync_weights",
        tags=["sampling"],
        summary="Push training weights to sampling sub-jobs (proposed)",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses=WRITE,
    )
    async def sync_weights(
        job_id: JobIdPath,
        body: models.SyncWeightsRequest,
        principal: Principal,
        request: Request,
        idempotency_key: IdemKey = None,
    ) -> JSONResponse:
        data = plain(body)
        return await data_plane(job_id, "sync_weights", data, principal, request, idempotency_key)

    # -- operations ----------------------------------------------------------------
    @router.post(
        "/{job_id:job_id}/operation",
        operation_id="run_operation",
        tags=["operations"],
        summary="Run a named operation",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses={200: {"model": models.OperationAnswer, "description": "Inline answer"}, **WRITE},
    )
    async def run_operation(
        job_id: JobIdPath,
        body: models.OperationRequest,
        principal: Principal,
        request: Request,
        idempotency_key: IdemKey = None,
    ) -> JSONResponse:
        """Async types answer 202 with a request id; inline ones their opaque answer."""
        data = open_body(body, "operation")
        run = operations.plan(service, job_id, data, submit_json)
        status, out = await idempotent(principal, request, idempotency_key, data, run)
        if status != 200:
            return answer((status, out))
        page = data["operation_type"] == "tail-logs"
        return reply(models.TailLogsPage if page else models.OperationAnswer, out)

    # -- requests ------------------------------------------------------------------
    @router.get(
        "/{job_id:job_id}/requests/{request_id}",
        operation_id="get_request",
        tags=["requests"],
        summary="Poll a request",
        response_model=models.RequestStatus,
        responses=READ,
    )
    async def get_request(
        job_id: JobIdPath,
        request_id: Annotated[str, Path(pattern=REQUEST_ID, description="The request's id.")],
        _: Principal,
        cursor: Annotated[str | None, Query(pattern=CURSOR, description="Page cursor.")] = None,
        max_events: Annotated[
            int, Query(ge=1, description="Most events (larger asks are capped at 512).")
        ] = 16,
        wait_s: Annotated[
            float | None, Query(ge=0, le=20, description="Long-poll seconds (proposed).")
        ] = None,
    ) -> JSONResponse:
        service.job_or_404(job_id)
        page = await service.poll(job_id, request_id, cursor, max_events, wait_s or 0.0)
        page["created_at"] = iso(page["created_at"])
        page["updated_at"] = iso(page["updated_at"])
        return reply(models.RequestStatus, page)

    app.include_router(router)
    app.state.api_routes = list(router.routes)  # for the 405 handler's Allow header
    # The contract's root is the prefix itself; accept it without the trailing slash too.
    app.add_api_route(settings.prefix, create_job, methods=["POST"], include_in_schema=False)
    app.add_api_route(settings.prefix, list_jobs, methods=["GET"], include_in_schema=False)
    install_openapi(app, settings)
    departures.install(app, settings)  # test-only; nothing unless CORTEX_GS_MOCK_DEPART is set
    return app


# ------------------------------------------------------------------------ rules
def _backend_factory(settings: Settings) -> Callable[[], Backend]:
    """Build the backend on the worker thread, so torch's import never delays startup."""
    return lambda: make_backend(settings.backend, device=settings.device)


def _gpus(sub_jobs: list[dict[str, Any]]) -> int:
    total = 0
    for sub in sub_jobs:
        cfg = sub.get("training_config") or sub.get("inference_config") or {}
        total += int(cfg.get("n_gpus") or 0)
    return total


def _parse(model: type[BaseModel], data: Any) -> BaseModel:
    """Validate a body the route decoded itself (422 located under ``body``)."""
    return parse(model, data, ("body",))


def _check_aligned(generation: dict[str, Any]) -> None:
    """Per-prompt ``sampling_params`` / ``routing_key`` lists must match ``prompts``."""
    count = len(generation["prompts"])
    for key in ("sampling_params", "routing_key"):
        value = generation.get(key)
        if isinstance(value, list) and len(value) != count:
            issue = {"loc": ["body", key], "msg": "one entry per prompt", "type": "length"}
            raise ApiError(422, "validation_error", "request validation failed", details=[issue])


def _check_sub_job_configs(sub_jobs: list[dict[str, Any]]) -> None:
    """Exactly one of training_config (training) / inference_config (the others)."""
    issues = []
    for i, sub in enumerate(sub_jobs):
        kind = str(sub["job_type"])
        wants = "training_config" if kind == "training" else "inference_config"
        other = "inference_config" if wants == "training_config" else "training_config"
        loc: list[str | int] = ["body", "sub_job_configs", i]
        if sub.get(wants) is None:
            issues.append({"loc": [*loc, wants], "msg": f"{kind} needs {wants}", "type": "missing"})
        if sub.get(other) is not None:
            issues.append(
                {"loc": [*loc, other], "msg": f"{kind} takes no {other}", "type": "extra_forbidden"}
            )
    if issues:
        raise ApiError(422, "validation_error", "request validation failed", details=issues)


__all__ = ["create_app", "iso", "reply"]
