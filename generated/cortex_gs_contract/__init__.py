# generated from openapi/cortex_gs.yaml by make generate; do not edit
"""The contract's constants and routing table (from openapi/cortex_gs.yaml).

Every name here is read from the contract by ``make generate``: client and mock import
them instead of typing paths, status codes, header names or patterns out again.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


@dataclass(frozen=True)
class Response:
    """One documented answer: its status, media type and schema (``None`` when bodiless)."""

    status: int
    media_type: str | None
    model: str | None


@dataclass(frozen=True)
class Operation:
    """One operation of the contract, as a router or a client needs it.

    ``request_model`` names the generated pydantic model of a JSON body; for a binary body
    ``request_media_type`` is its media type and ``payload_schema`` names the schema that
    travels inside it (``x-dssst1-schema`` or ``x-json-schema``). ``chunk_operation`` is the
    chunk descriptor's ``operation`` value on a chunked route. ``parameters`` names the
    query and header parameters the operation takes; ``proposed_parameters`` those of them
    that are proposals.
    """

    operation_id: str
    method: str
    path: str
    tag: str
    summary: str
    proposed: bool
    request_model: str | None
    request_media_type: str | None
    request_extensions: tuple[tuple[str, str], ...]
    request_description: str | None
    payload_schema: str | None
    chunk_operation: str | None
    parameters: tuple[str, ...]
    proposed_parameters: tuple[str, ...]
    responses: tuple[Response, ...]

    @property
    def statuses(self) -> tuple[int, ...]:
        """Every documented status code, ascending."""
        return tuple(r.status for r in self.responses)

    @property
    def success(self) -> tuple[Response, ...]:
        """The documented 2xx answers."""
        return tuple(r for r in self.responses if r.status < 300)

    @property
    def errors(self) -> tuple[Response, ...]:
        """The documented error answers."""
        return tuple(r for r in self.responses if r.status >= 300)


class JobState(StrEnum):
    """
    A job's customer-facing state. `cancelled`, `terminated` and `failed` are terminal;
    `initializing` (placed, warming up) is neither running nor terminal. Legacy or internal
    answers can also hold `done`, `unknown` or enum names such as `JOB_STATE_RUNNING`;
    clients lowercase and drop the `JOB_STATE_` prefix.

    """

    pending = "pending"
    placing = "placing"
    initializing = "initializing"
    running = "running"
    cancelled = "cancelled"
    terminated = "terminated"
    failed = "failed"


class RequestState(StrEnum):
    """
    A data-plane request's state. In flight: `pending`, `running`, `streaming`. Success:
    `done` (what the service sends), `completed`, `succeeded`. Failure: `failed`.
    Cancelled: `cancelled`, `canceled`. Raw enum names such as `REQUEST_STATE_DONE` can
    also appear; clients lowercase and drop the prefix.<!-- proposed:start -->

    *Proposed, not built:* a request outlives a restart of the service (a deploy, a
    preemption). One that was `running` when the service stopped goes back to `pending`
    and runs again, from the state before it: nothing of a run is kept until the run is
    `done`, so it takes effect once. A client polling it across the restart sees it end
    as if nothing had happened; while the service is down, its polls and submits fail to
    connect or answer `503`, and it retries them (submits with the same `Idempotency-Key`
    or chunk group id). The one exception is a `streaming` request (generate-stream, from
    its start): its events are handed out as they are read, so it is never run twice; it
    fails with `internal_error`, and the client submits it again. A request that failed
    on its own stays `failed`.<!-- proposed:end -->

    """

    pending = "pending"
    running = "running"
    streaming = "streaming"
    done = "done"
    completed = "completed"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"
    canceled = "canceled"


class JobType(StrEnum):
    """
    What a sub-job does.
    """

    training = "training"
    sampling = "sampling"
    log_probability = "log_probability"


class CheckpointType(StrEnum):
    """
    `resumable` keeps optimizer and training state (the default); `weights-only` is Hugging Face-style model assets, for sampling.
    """

    resumable = "resumable"
    weights_only = "weights-only"


class ErrorCode(StrEnum):
    """
    A stable error code, sent as `error_code` (see the proposed code table in the introduction).
    """

    bad_json = "bad_json"
    pickle_refused = "pickle_refused"
    bad_header = "bad_header"
    bad_structure = "bad_structure"
    bad_version = "bad_version"
    size_mismatch = "size_mismatch"
    hash_mismatch = "hash_mismatch"
    missing_chunks = "missing_chunks"
    duplicate_chunk = "duplicate_chunk"
    chunk_mismatch = "chunk_mismatch"
    too_large = "too_large"
    too_deep = "too_deep"
    too_many_tensors = "too_many_tensors"
    bad_dtype = "bad_dtype"
    bad_value = "bad_value"
    truncated = "truncated"
    unauthorized = "unauthorized"
    job_not_found = "job_not_found"
    request_not_found = "request_not_found"
    checkpoint_not_found = "checkpoint_not_found"
    not_found = "not_found"
    method_not_allowed = "method_not_allowed"
    job_not_running = "job_not_running"
    invalid_state = "invalid_state"
    chunk_group_restart_required = "chunk_group_restart_required"
    chunk_group_conflict = "chunk_group_conflict"
    chunk_group_missing_chunks = "chunk_group_missing_chunks"
    idempotency_key_conflict = "idempotency_key_conflict"
    payload_too_large = "payload_too_large"
    validation_error = "validation_error"
    not_implemented = "not_implemented"
    rate_limited = "rate_limited"
    unavailable = "unavailable"
    internal_error = "internal_error"
    too_many_chunk_groups = "too_many_chunk_groups"
    sequence_too_long = "sequence_too_long"
    request_timeout = "request_timeout"
    batch_over_budget = "batch_over_budget"
    generation_over_budget = "generation_over_budget"
    request_expired = "request_expired"
    storage_full = "storage_full"
    storage_error = "storage_error"
    duplicate_authorization = "duplicate_authorization"


class OperationType(StrEnum):
    """
    The operation types the service accepts. Scheduled (answer `202 AcceptedRequest`):
    `forward`, `weight-sync`. Inline (answer `200` with the result itself):
    `bootstrap-router-replay` (a deployment may schedule it instead), `router-replay-discard`,
    `reset-prefix-cache`, `cancel-request`, `tail-logs`. There is no `sleep`/`wake-up` on the
    wire (training and sampling never share GPUs on Cortex) and no `zmd-events`.

    """

    forward = "forward"
    weight_sync = "weight-sync"
    bootstrap_router_replay = "bootstrap-router-replay"
    router_replay_discard = "router-replay-discard"
    reset_prefix_cache = "reset-prefix-cache"
    cancel_request = "cancel-request"
    tail_logs = "tail-logs"


@dataclass(frozen=True)
class BatchBudget:
    """The cost of a batch: rows x width² of its ``field`` (rows: every dimension but the
    last), at most ``maximum`` for ``operations``; over it, 422 ``error_code`` at ``loc``."""

    operations: tuple[str, ...]
    field: str
    maximum: int
    error_code: ErrorCode
    loc: tuple[str, ...]
    proposed: bool


@dataclass(frozen=True)
class GenerationBudget:
    """The tokens a generation may produce: over its prompts, ``n`` (``n_default`` when
    missing) x the first of ``max_tokens_fields`` present (else the server's default), at
    most ``maximum`` for ``operations``; over it, 422 ``error_code`` at ``loc``."""

    operations: tuple[str, ...]
    n_default: int
    max_tokens_fields: tuple[str, ...]
    maximum: int
    error_code: ErrorCode
    loc: tuple[str, ...]
    proposed: bool


@dataclass(frozen=True)
class BudgetExample:
    """A worked example of the budgets: a request, its cost and whether it is refused.

    A batch has ``input_ids_shape``; a generation ``prompts`` prompts with
    ``sampling_params`` (one object, or one per prompt) and the server's
    ``default_max_tokens`` (0: a client's, which does not know it).
    """

    operation: str
    cost: int
    refused: bool
    input_ids_shape: tuple[int, ...] | None = None
    prompts: int = 0
    sampling_params: Any = None
    default_max_tokens: int = 0


AUTHORIZATION_HEADER = "Authorization"  # patBearer: `Authorization: Bearer <PAT>`
TOKEN_TYPE_HEADER = "X-Snowflake-Authorization-Token-Type"  # patTokenType's header
TOKEN_TYPE = "PROGRAMMATIC_ACCESS_TOKEN"  # the only value patTokenType takes
REQUEST_ID_HEADER = "x-snowflake-request-id"  # on every answer
RETRY_AFTER_HEADER = "Retry-After"  # on 429 and 503
IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"
IDEMPOTENCY_KEY_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,254}$"
JOB_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"
SUB_JOB_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]{0,127}:(training|sampling|log_prob):[0-9]{1,4}$"
REQUEST_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,255}$"
CHECKPOINT_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
CHUNK_GROUP_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"
CURSOR_PATTERN = "^[A-Za-z0-9_=-]{1,256}$"

BATCH_BUDGET = BatchBudget(
    operations=("forward_backward", "forward_no_grad"),
    field="input_ids",
    maximum=67108864,
    error_code=ErrorCode.batch_over_budget,
    loc=("kwargs", "input_ids"),
    proposed=True,
)
"""The contract's budget of a forward batch (its limits table)."""
GENERATION_BUDGET = GenerationBudget(
    operations=("generate", "generate_stream"),
    n_default=1,
    max_tokens_fields=("max_tokens", "max_new_tokens"),
    maximum=4194304,
    error_code=ErrorCode.generation_over_budget,
    loc=("sampling_params",),
    proposed=True,
)
"""The contract's budget of a generation (its limits table)."""
BUDGET_EXAMPLES: tuple[BudgetExample, ...] = (
    BudgetExample(
        operation="forward_backward", input_ids_shape=(4, 4096), cost=67108864, refused=False
    ),
    BudgetExample(
        operation="forward_no_grad", input_ids_shape=(5, 4096), cost=83886080, refused=True
    ),
    BudgetExample(
        operation="forward_backward", input_ids_shape=(2, 2, 4096), cost=67108864, refused=False
    ),
    BudgetExample(
        operation="forward_no_grad", input_ids_shape=(1025, 256), cost=67174400, refused=True
    ),
    BudgetExample(
        operation="generate",
        prompts=1,
        sampling_params={"n": 64, "max_tokens": 65536},
        cost=4194304,
        refused=False,
    ),
    BudgetExample(
        operation="generate_stream",
        prompts=1,
        sampling_params={"n": 64, "max_tokens": 65537},
        cost=4194368,
        refused=True,
    ),
    BudgetExample(
        operation="generate",
        prompts=1024,
        sampling_params={"max_new_tokens": 4097},
        cost=4195328,
        refused=True,
    ),
    BudgetExample(
        operation="generate",
        prompts=2,
        sampling_params=[{"n": 64, "max_tokens": 32768}, {"max_tokens": 1}],
        cost=2097153,
        refused=False,
    ),
    BudgetExample(
        operation="generate",
        prompts=1024,
        sampling_params={"n": 64},
        default_max_tokens=64,
        cost=4194304,
        refused=False,
    ),
    BudgetExample(
        operation="generate",
        prompts=1024,
        sampling_params={"n": 64},
        default_max_tokens=65,
        cost=4259840,
        refused=True,
    ),
)
"""The contract's worked examples: what client and server must both estimate."""

OPERATIONS: dict[str, Operation] = {
    op.operation_id: op
    for op in (
        Operation(
            operation_id="list_jobs",
            method="GET",
            path="/",
            tag="jobs",
            summary="List jobs",
            proposed=False,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=("status",),
            proposed_parameters=(),
            responses=(
                Response(200, "application/json", "JobList"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="create_job",
            method="POST",
            path="/",
            tag="jobs",
            summary="Create a job",
            proposed=False,
            request_model="CreateJobRequest",
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=("Idempotency-Key",),
            proposed_parameters=("Idempotency-Key",),
            responses=(
                Response(200, "application/json", "CreateJobResponse"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="get_capacity",
            method="GET",
            path="/capacity",
            tag="jobs",
            summary="Read GPU capacity",
            proposed=False,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=(),
            proposed_parameters=(),
            responses=(
                Response(200, "application/json", "Capacity"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="get_capabilities",
            method="GET",
            path="/capabilities",
            tag="jobs",
            summary="Which proposals this service serves (proposed)",
            proposed=True,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=(),
            proposed_parameters=(),
            responses=(
                Response(200, "application/json", "Capabilities"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="get_job",
            method="GET",
            path="/{job_id}",
            tag="jobs",
            summary="Get a job",
            proposed=False,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=(),
            proposed_parameters=(),
            responses=(
                Response(200, "application/json", "Job"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="cancel_job",
            method="POST",
            path="/{job_id}:cancel",
            tag="jobs",
            summary="Cancel a job",
            proposed=False,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=(),
            proposed_parameters=(),
            responses=(
                Response(200, None, None),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="get_experiment_run",
            method="GET",
            path="/{job_id}/experiment-run",
            tag="jobs",
            summary="Resolve the job's experiment run",
            proposed=False,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=(),
            proposed_parameters=(),
            responses=(
                Response(200, "application/json", "ExperimentRun"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="list_checkpoints",
            method="GET",
            path="/{job_id}/checkpoints",
            tag="checkpoints",
            summary="List checkpoints",
            proposed=False,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=(),
            proposed_parameters=(),
            responses=(
                Response(200, "application/json", "CheckpointList"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="delete_checkpoint",
            method="DELETE",
            path="/{job_id}/checkpoints/{checkpoint_id}",
            tag="checkpoints",
            summary="Delete a checkpoint",
            proposed=False,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=(),
            proposed_parameters=(),
            responses=(
                Response(200, None, None),
                Response(204, None, None),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="export_checkpoint",
            method="POST",
            path="/{job_id}/checkpoints/{checkpoint_id}:export",
            tag="checkpoints",
            summary="Export a checkpoint's files",
            proposed=False,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=(),
            proposed_parameters=(),
            responses=(
                Response(200, "application/json", "CheckpointExport"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="forward_backward",
            method="POST",
            path="/{job_id}/forward-backward",
            tag="training",
            summary="Forward and backward pass (a frame, or one chunk of it)",
            proposed=False,
            request_model=None,
            request_media_type="application/octet-stream",
            request_extensions=(
                ("x-dssst1-envelope", "#/components/schemas/ChunkFrame"),
                ("x-dssst1-metadata", "#/components/schemas/FrameOpMetadata"),
                ("x-dssst1-schema", "#/components/schemas/ForwardBackwardBatch"),
            ),
            request_description='A DSSST1 frame of a `ForwardBackwardBatch`, as a chunk envelope (one chunk frame: value\n`{"payload": uint8 tensor}`, descriptor under `op.request_chunk`; what today\'s client\nalways sends) or bare when it fits (older clients).',
            payload_schema="ForwardBackwardBatch",
            chunk_operation="fwd-bwd",
            parameters=("wait_s",),
            proposed_parameters=("wait_s",),
            responses=(
                Response(200, "application/json", "ChunkAnswer"),
                Response(202, "application/json", "AcceptedRequest"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="forward_no_grad",
            method="POST",
            path="/{job_id}/forward-no-grad",
            tag="training",
            summary="Forward pass without gradients (a frame, or one chunk of it; proposed)",
            proposed=True,
            request_model=None,
            request_media_type="application/octet-stream",
            request_extensions=(
                ("x-dssst1-envelope", "#/components/schemas/ChunkFrame"),
                ("x-dssst1-metadata", "#/components/schemas/FrameOpMetadata"),
                ("x-dssst1-schema", "#/components/schemas/ForwardNoGradBatch"),
            ),
            request_description='A DSSST1 frame of a `ForwardNoGradBatch`, as one chunk frame (value\n`{"payload": uint8 tensor}`, descriptor under `op.request_chunk`) or bare when it fits.',
            payload_schema="ForwardNoGradBatch",
            chunk_operation="fwd-no-grad",
            parameters=("wait_s",),
            proposed_parameters=("wait_s",),
            responses=(
                Response(200, "application/json", "ChunkAnswer"),
                Response(202, "application/json", "AcceptedRequest"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="step",
            method="POST",
            path="/{job_id}/step",
            tag="training",
            summary="Optimizer step",
            proposed=False,
            request_model="StepRequest",
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=("Idempotency-Key", "wait_s"),
            proposed_parameters=("Idempotency-Key", "wait_s"),
            responses=(
                Response(200, "application/json", "RequestStatus"),
                Response(202, "application/json", "AcceptedRequest"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="save_checkpoint",
            method="POST",
            path="/{job_id}/save",
            tag="checkpoints",
            summary="Save a checkpoint",
            proposed=False,
            request_model="SaveRequest",
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=("Idempotency-Key", "wait_s"),
            proposed_parameters=("Idempotency-Key", "wait_s"),
            responses=(
                Response(200, "application/json", "RequestStatus"),
                Response(202, "application/json", "AcceptedRequest"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="load_checkpoint",
            method="POST",
            path="/{job_id}/load",
            tag="checkpoints",
            summary="Load a checkpoint",
            proposed=False,
            request_model="LoadRequest",
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=("Idempotency-Key", "wait_s"),
            proposed_parameters=("Idempotency-Key", "wait_s"),
            responses=(
                Response(200, "application/json", "RequestStatus"),
                Response(202, "application/json", "AcceptedRequest"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(501, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="generate",
            method="POST",
            path="/{job_id}/generate",
            tag="sampling",
            summary="Generate completions",
            proposed=False,
            request_model=None,
            request_media_type="application/octet-stream",
            request_extensions=(
                ("x-dssst1-envelope", "#/components/schemas/ChunkFrame"),
                ("x-dssst1-metadata", "#/components/schemas/FrameOpMetadata"),
                ("x-dssst1-schema", "#/components/schemas/GenerateRequest"),
            ),
            request_description="A bare DSSST1 frame of a `GenerateRequest`, or one chunk of it.",
            payload_schema="GenerateRequest",
            chunk_operation="generate",
            parameters=("wait_s",),
            proposed_parameters=("wait_s",),
            responses=(
                Response(200, "application/json", "ChunkAnswer"),
                Response(202, "application/json", "AcceptedRequest"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="generate_stream",
            method="POST",
            path="/{job_id}/generate-stream",
            tag="sampling",
            summary="Start streaming generation",
            proposed=False,
            request_model=None,
            request_media_type="application/octet-stream",
            request_extensions=(("x-json-schema", "#/components/schemas/GenerateRequest"),),
            request_description="UTF-8 JSON of a `GenerateRequest`, sent as `application/octet-stream`.",
            payload_schema="GenerateRequest",
            chunk_operation=None,
            parameters=(),
            proposed_parameters=(),
            responses=(
                Response(202, "application/json", "GenerateStreamAccepted"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="log_probs",
            method="POST",
            path="/{job_id}/log-probs",
            tag="sampling",
            summary="Score prompts and completions (proposed)",
            proposed=True,
            request_model="LogProbsRequest",
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=("Idempotency-Key", "wait_s"),
            proposed_parameters=("Idempotency-Key", "wait_s"),
            responses=(
                Response(200, "application/json", "RequestStatus"),
                Response(202, "application/json", "AcceptedRequest"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="sync_weights",
            method="POST",
            path="/{job_id}/sync-weights",
            tag="sampling",
            summary="Push training weights to sampling sub-jobs (proposed)",
            proposed=True,
            request_model="SyncWeightsRequest",
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=("Idempotency-Key", "wait_s"),
            proposed_parameters=("Idempotency-Key", "wait_s"),
            responses=(
                Response(200, "application/json", "RequestStatus"),
                Response(202, "application/json", "AcceptedRequest"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="run_operation",
            method="POST",
            path="/{job_id}/operation",
            tag="operations",
            summary="Run a named operation",
            proposed=False,
            request_model="OperationRequest",
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=("Idempotency-Key",),
            proposed_parameters=("Idempotency-Key",),
            responses=(
                Response(200, "application/json", "OperationAnswer"),
                Response(202, "application/json", "AcceptedRequest"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(413, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="get_request",
            method="GET",
            path="/{job_id}/requests/{request_id}",
            tag="requests",
            summary="Poll a request",
            proposed=False,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=("cursor", "max_events", "wait_s"),
            proposed_parameters=("wait_s",),
            responses=(
                Response(200, "application/json", "RequestStatus"),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(410, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
                Response(507, "application/json", "Error"),
            ),
        ),
        Operation(
            operation_id="abandon_chunk_group",
            method="DELETE",
            path="/{job_id}/chunk-groups/{chunk_group_id}",
            tag="requests",
            summary="Abandon an unfinished upload (proposed)",
            proposed=True,
            request_model=None,
            request_media_type=None,
            request_extensions=(),
            request_description=None,
            payload_schema=None,
            chunk_operation=None,
            parameters=(),
            proposed_parameters=(),
            responses=(
                Response(204, None, None),
                Response(400, "application/json", "Error"),
                Response(401, "application/json", "Error"),
                Response(404, "application/json", "Error"),
                Response(409, "application/json", "Error"),
                Response(422, "application/json", "Error"),
                Response(429, "application/json", "Error"),
                Response(500, "application/json", "Error"),
                Response(503, "application/json", "Error"),
            ),
        ),
    )
}
"""Every operation of the contract by operation id, in the contract's order."""

CHUNK_OPERATIONS: dict[str, str] = {
    "forward_backward": "fwd-bwd",
    "forward_no_grad": "fwd-no-grad",
    "generate": "generate",
}
"""Chunked route's operation id -> its chunk descriptor's ``operation``."""

__all__ = [
    "AUTHORIZATION_HEADER",
    "BATCH_BUDGET",
    "BUDGET_EXAMPLES",
    "BatchBudget",
    "BudgetExample",
    "CHECKPOINT_ID_PATTERN",
    "CHUNK_GROUP_ID_PATTERN",
    "CHUNK_OPERATIONS",
    "CURSOR_PATTERN",
    "CheckpointType",
    "ErrorCode",
    "GENERATION_BUDGET",
    "GenerationBudget",
    "IDEMPOTENCY_KEY_HEADER",
    "IDEMPOTENCY_KEY_PATTERN",
    "JOB_ID_PATTERN",
    "JobState",
    "JobType",
    "OPERATIONS",
    "Operation",
    "OperationType",
    "REQUEST_ID_HEADER",
    "REQUEST_ID_PATTERN",
    "RETRY_AFTER_HEADER",
    "RequestState",
    "Response",
    "SUB_JOB_ID_PATTERN",
    "TOKEN_TYPE",
    "TOKEN_TYPE_HEADER",
]
