"""The mock Cortex GS as a FastAPI app, on the contract's generated pydantic models.

Routes only translate HTTP to :class:`~mock_server.service.MockService` calls: they
parse and validate (JSON through the generated models, binary bodies as raw capped
streams) and render answers through the same models, so every body the mock sends is
checked against the contract. Model work never happens here.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Annotated, Any

import cortex_gs_models as models
from fastapi import APIRouter, Depends, FastAPI, Header, Path, Query, Request, Security
from fastapi.responses import JSONResponse, Response
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel
from starlette.convertors import Convertor, register_url_convertor
from starlette.datastructures import MutableHeaders
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mock_server import departures
from mock_server.backends import Backend, make_backend, sub_job_ids
from mock_server.errors import ApiError, error_body, install_error_handlers
from mock_server.openapi import install_openapi
from mock_server.service import MockService
from mock_server.settings import REQUEST_ID_HEADER, TOKEN_TYPE, TOKEN_TYPE_HEADER, Settings
from mock_server.store import Store

log = logging.getLogger("mock_server")

JOB_ID = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"
CHECKPOINT_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
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


# ------------------------------------------------------------------------ middleware
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
                error_body("internal_error", "internal error", request_id), status_code=500
            )
            await response(scope, receive, stamped_send)


# ------------------------------------------------------------------------ helpers
def reply(model: type[BaseModel], data: Any, status: int = 200) -> JSONResponse:
    """Validate an answer against the contract's model, then send it."""
    body = model.model_validate(data).model_dump(mode="json")
    return JSONResponse(body, status_code=status)


def iso(ts: float) -> str:
    """Epoch seconds -> RFC 3339 UTC, as the contract's date-times."""
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def plain(model: BaseModel) -> dict[str, Any]:
    """A validated request model as JSON-ready data (absent optionals stay absent).

    pydantic validates free-form objects of any depth but refuses to serialise very
    deep ones; that is the client's nesting, so it is a 422, not a crash.
    """
    try:
        return model.model_dump(mode="json")
    except ValueError as exc:
        issue = {"loc": ["body"], "msg": str(exc), "type": "too_deep"}
        message = "request body nests too deeply"
        raise ApiError(422, "validation_error", message, details=[issue]) from exc


async def read_body(request: Request) -> bytes:
    """The raw body; the middleware stops it at the cap, so this never exceeds it."""
    parts = bytearray()
    async for part in request.stream():
        parts += part
    return bytes(parts)


def _error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": models.Error, "description": "Error"} for code in codes}


READ = _error_responses(401, 404, 422, 429, 500, 503)
WRITE = _error_responses(400, 401, 404, 409, 413, 422, 429, 500, 503)


def _binary_body(schema: str, description: str) -> dict[str, Any]:
    """OpenAPI for a DSSST1 body read from the raw stream (FastAPI cannot infer it)."""
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": {
                "application/octet-stream": {
                    "schema": {"type": "string", "format": "binary"},
                    "x-dssst1-schema": f"#/components/schemas/{schema}",
                    "x-dssst1-envelope": "#/components/schemas/ChunkFrame",
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

    router = APIRouter(prefix=settings.prefix)

    async def idempotent(
        principal: str,
        request: Request,
        key: str | None,
        body: dict[str, Any],
        run: Callable[[], tuple[int, Any]],
    ) -> tuple[int, Any]:
        scope = f"{principal}|{request.method} {request.url.path}"
        return await service.idempotent(scope, key, body, run)

    def job_view(job: dict[str, Any]) -> dict[str, Any]:
        ids = sub_job_ids(job["job_id"], job["sub_jobs"])
        return {
            "job_id": job["job_id"],
            "status": job["status"],
            "reason": job["reason"],
            "created_at": iso(job["created_at"]),
            "updated_at": iso(job["updated_at"]),
            "image_tag": f"cortex-gs-mock:{settings.backend}",
            "experiment_name": job["experiment_name"],
            "sub_jobs": [
                {
                    "sub_job_id": sub_id,
                    "job_type": sub["job_type"],
                    "status": job["status"],
                    "model_name": sub["model_name"],
                    **{k: sub[k] for k in ("training_config", "inference_config") if k in sub},
                }
                for sub_id, sub in zip(ids, job["sub_jobs"], strict=True)
            ],
        }

    def accepted(job_id: str, request_id: str) -> tuple[int, dict[str, Any]]:
        return 202, {"request_id": request_id, "job_id": job_id}

    def submit_json(job_id: str, kind: str, body: dict[str, Any]) -> Callable[[], tuple[int, Any]]:
        def run() -> tuple[int, Any]:
            service.running_job(job_id)
            return accepted(job_id, service.submit(job_id, kind, {"body": body}))

        return run

    async def data_plane(
        job_id: str,
        kind: str,
        body: BaseModel,
        principal: str,
        request: Request,
        key: str | None = None,
    ) -> JSONResponse:
        """A JSON data-plane call: validated body -> queued request (under Idempotency-Key)."""
        data = plain(body)
        run = submit_json(job_id, kind, data)
        return answer(await idempotent(principal, request, key, data, run))

    def answer(status_body: tuple[int, Any]) -> JSONResponse:
        """A chunk-route or data-plane answer: 200 ChunkAccepted or 202 AcceptedRequest."""
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
        _check_sub_job_configs(body)
        data = plain(body)

        def run() -> tuple[int, Any]:
            job_id = service.create_job(data["sub_job_configs"], data.get("experiment_name"))
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
        summaries = [
            {k: v for k, v in job_view(j).items() if k not in ("sub_jobs", "image_tag")}
            for j in jobs
        ]
        return reply(models.JobList, {"jobs": summaries})

    @router.get(
        "/capacity",
        operation_id="get_capacity",
        tags=["jobs"],
        summary="Read GPU capacity",
        response_model=models.Capacity,
        responses=_error_responses(401, 429, 500, 503),
    )
    async def get_capacity(_: Principal) -> JSONResponse:
        used = sum(
            _gpus(job["sub_jobs"])
            for job in service.store.list_jobs()
            if job["status"] == "running"
        )
        total = settings.max_total_gpus
        return reply(
            models.Capacity,
            {
                "has_reservation": False,
                "max_total_gpus": total,
                "reserved_gpus": 0,
                "in_use_gpus": used,
                "available_gpus": max(total - used, 0),
            },
        )

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
        response_model=models.Job,
        responses=_error_responses(401, 404, 409, 422, 429, 500, 503),
    )
    async def cancel_job(job_id: JobIdPath, _: Principal) -> JSONResponse:
        service.cancel_job(job_id)
        return reply(models.Job, job_view(service.job_or_404(job_id)))

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
                "avg_loss": r["avg_loss"],
                "created_at": iso(r["created_at"]),
                "checkpoint_type": r["checkpoint_type"],
            }
            for r in rows
        ]
        return reply(models.CheckpointList, {"checkpoints": items})

    @router.delete(
        "/{job_id:job_id}/checkpoints/{checkpoint_id}",
        operation_id="delete_checkpoint",
        tags=["checkpoints"],
        summary="Delete a checkpoint",
        status_code=204,
        response_class=Response,
        responses=READ,
    )
    async def delete_checkpoint(
        job_id: JobIdPath,
        checkpoint_id: Annotated[
            str, Path(pattern=CHECKPOINT_ID, description="The checkpoint's id.")
        ],
        _: Principal,
    ) -> Response:
        service.job_or_404(job_id)
        if not service.store.delete_checkpoint(job_id, checkpoint_id):
            raise ApiError(404, "checkpoint_not_found", f"checkpoint {checkpoint_id} not found")
        return Response(status_code=204)

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
        return await data_plane(
            job_id, "save_checkpoint", body, principal, request, idempotency_key
        )

    @router.post(
        "/{job_id:job_id}/load",
        operation_id="load_checkpoint",
        tags=["checkpoints"],
        summary="Load a checkpoint",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses=WRITE,
    )
    async def load_checkpoint(
        job_id: JobIdPath,
        body: models.LoadRequest,
        principal: Principal,
        request: Request,
        idempotency_key: IdemKey = None,
    ) -> JSONResponse:
        source = body.source_job_id if isinstance(body.source_job_id, str) else job_id
        service.job_or_404(source)
        if service.store.get_checkpoint(source, body.checkpoint_id) is None:
            raise ApiError(
                404, "checkpoint_not_found", f"checkpoint {body.checkpoint_id} not found"
            )
        return await data_plane(
            job_id, "load_checkpoint", body, principal, request, idempotency_key
        )

    # -- training ------------------------------------------------------------------
    async def chunked(job_id: str, kind: str, request: Request) -> JSONResponse:
        service.running_job(job_id)
        body = await read_body(request)
        return answer(await service.accept_chunk(job_id, kind, body))

    @router.post(
        "/{job_id:job_id}/forward-backward",
        operation_id="forward_backward",
        tags=["training"],
        summary="Forward and backward pass (one chunk)",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses={200: {"model": models.ChunkAccepted, "description": "Chunk stored"}, **WRITE},
        openapi_extra=_binary_body("ForwardBackwardBatch", "One DSSST1 request chunk."),
    )
    async def forward_backward(job_id: JobIdPath, _: Principal, request: Request) -> JSONResponse:
        return await chunked(job_id, "forward_backward", request)

    @router.post(
        "/{job_id:job_id}/forward-no-grad",
        operation_id="forward_no_grad",
        tags=["training"],
        summary="Forward pass without gradients (one chunk)",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses={200: {"model": models.ChunkAccepted, "description": "Chunk stored"}, **WRITE},
        openapi_extra=_binary_body("ForwardNoGradBatch", "One DSSST1 request chunk."),
    )
    async def forward_no_grad(job_id: JobIdPath, _: Principal, request: Request) -> JSONResponse:
        return await chunked(job_id, "forward_no_grad", request)

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
        return await data_plane(job_id, "step", body, principal, request, idempotency_key)

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
        service.running_job(job_id)
        body = await read_body(request)
        if await service.is_chunk(body):
            return answer(await service.accept_chunk(job_id, "generate", body))
        request_id = await service.submit_frame(job_id, "generate", body)
        return reply(models.AcceptedRequest, {"request_id": request_id, "job_id": job_id}, 202)

    @router.post(
        "/{job_id:job_id}/log-probs",
        operation_id="log_probs",
        tags=["sampling"],
        summary="Score prompts and completions",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses=WRITE,
    )
    async def log_probs(
        job_id: JobIdPath, body: models.LogProbsRequest, principal: Principal, request: Request
    ) -> JSONResponse:
        return await data_plane(job_id, "log_probs", body, principal, request)

    @router.post(
        "/{job_id:job_id}/sync-weights",
        operation_id="sync_weights",
        tags=["sampling"],
        summary="Push training weights to sampling sub-jobs",
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
        return await data_plane(job_id, "sync_weights", body, principal, request, idempotency_key)

    # -- operations ----------------------------------------------------------------
    @router.post(
        "/{job_id:job_id}/operation",
        operation_id="run_operation",
        tags=["operations"],
        summary="Run a named operation",
        status_code=202,
        response_model=models.AcceptedRequest,
        responses={200: {"model": models.OperationResult, "description": "Inline answer"}, **WRITE},
    )
    async def run_operation(
        job_id: JobIdPath,
        body: models.OperationRequest,
        principal: Principal,
        request: Request,
        idempotency_key: IdemKey = None,
    ) -> JSONResponse:
        data = plain(body)
        run = _operation_runner(service, job_id, data, submit_json)
        status, out = await idempotent(principal, request, idempotency_key, data, run)
        if status == 200:
            return reply(models.OperationResult, out)
        return answer((status, out))

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
        request_id: Annotated[str, Path(pattern=JOB_ID, description="The request's id.")],
        _: Principal,
        cursor: Annotated[str | None, Query(pattern=CURSOR, description="Page cursor.")] = None,
        max_events: Annotated[int, Query(ge=1, le=512, description="Most events.")] = 16,
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


def _check_sub_job_configs(body: models.CreateJobRequest) -> None:
    """Exactly one of training_config (training) / inference_config (the others)."""
    issues = []
    for i, sub in enumerate(body.sub_job_configs):
        data = sub.model_dump()
        wants = "training_config" if sub.job_type == models.JobType.training else "inference_config"
        other = "inference_config" if wants == "training_config" else "training_config"
        loc: list[str | int] = ["body", "sub_job_configs", i]
        if wants not in data:
            issues.append(
                {
                    "loc": [*loc, wants],
                    "msg": f"{sub.job_type.value} needs {wants}",
                    "type": "missing",
                }
            )
        if other in data:
            issues.append(
                {
                    "loc": [*loc, other],
                    "msg": f"{sub.job_type.value} takes no {other}",
                    "type": "extra_forbidden",
                }
            )
    if issues:
        raise ApiError(422, "validation_error", "request validation failed", details=issues)


INLINE_OPERATIONS = ("reset-prefix-cache", "cancel-request", "tail-logs", "sleep", "wake-up")


def _operation_runner(
    service: MockService,
    job_id: str,
    data: dict[str, Any],
    submit_json: Callable[[str, str, dict[str, Any]], Callable[[], tuple[int, Any]]],
) -> Callable[[], tuple[int, Any]]:
    """Async types become requests; inline ones answer an OperationResult at once."""
    op = data["operation_type"]
    payload = data.get("payload") or {}
    if op == "weight-sync":
        try:
            sync = models.SyncWeightsRequest.model_validate(payload)
        except ValueError as exc:
            raise _payload_error(exc) from exc
        return submit_json(job_id, "sync_weights", plain(sync))
    if op == "forward":
        try:
            req = models.LogProbsRequest.model_validate(payload)
        except ValueError as exc:
            raise _payload_error(exc) from exc
        return submit_json(job_id, "forward", plain(req))
    if op not in INLINE_OPERATIONS:
        raise ApiError(
            422,
            "validation_error",
            f"unknown operation_type {op!r}",
            details=[
                {"loc": ["body", "operation_type"], "msg": "unknown operation", "type": "enum"}
            ],
        )

    cancel: models.CancelRequestPayload | None = None
    if op == "cancel-request":
        # "payload" absent means {}; the model then reports request_id as missing.
        try:
            cancel = models.CancelRequestPayload.model_validate(payload)
        except ValueError as exc:
            raise _payload_error(exc) from exc

    def run() -> tuple[int, Any]:
        service.running_job(job_id)
        result: dict[str, Any] = {}
        if op == "cancel-request":
            request_id = cancel.request_id if cancel is not None else ""
            result = {
                "request_id": request_id,
                "cancelled": service.cancel_request(job_id, request_id),
            }
        elif op == "tail-logs":
            result = {"lines": [f"{job_id}: mock backend {service.settings.backend}"]}
        elif op == "reset-prefix-cache":
            result = {"reset": True}
        return 200, {"job_id": job_id, "operation_type": op, "result": result}

    return run


def _payload_error(exc: ValueError) -> ApiError:
    errors = getattr(exc, "errors", lambda: [])()
    details = [
        {
            "loc": ["body", "payload", *e.get("loc", ())],
            "msg": str(e.get("msg")),
            "type": str(e.get("type")),
        }
        for e in errors
    ]
    return ApiError(422, "validation_error", "invalid operation payload", details=details)


__all__ = ["create_app", "iso", "reply"]
