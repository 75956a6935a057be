# generated from openapi/cortex_gs.yaml by make generate; do not edit

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    MISSING,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
)
from typing_extensions import TypeAliasType


def _integral_float_to_int(value: Any) -> Any:
    """Read 5.0 as 5: JSON Schema counts it as an integer, StrictInt alone would refuse it."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


IntegralFloatAsInt = BeforeValidator(_integral_float_to_int)
"""Appended to every Annotated integer so that 5.0 validates as 5 (see the contract)."""

JsonInt = Annotated[StrictInt, IntegralFloatAsInt]
"""An integer as the contract defines it: 5 or 5.0; never true/false, "5" or 5.5."""

JobId = TypeAliasType(
    "JobId",
    Annotated[
        StrictStr,
        Field(
            description="A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is never `capacity` (that route wins).",
            examples=["job-7f3a9c2e"],
            pattern="^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$",
        ),
    ],
)


SubJobId = TypeAliasType(
    "SubJobId",
    Annotated[
        StrictStr,
        Field(
            description="`{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but `log_probability` as a job type.",
            examples=["job-7f3a9c2e:training:0"],
            pattern="^[A-Za-z0-9][A-Za-z0-9_-]{0,127}:(training|sampling|log_prob):[0-9]{1,4}$",
        ),
    ],
)


RequestId = TypeAliasType(
    "RequestId",
    Annotated[
        StrictStr,
        Field(
            description="A data-plane request's id.",
            examples=["req-5d8e1f00"],
            pattern="^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$",
        ),
    ],
)


CheckpointId = TypeAliasType(
    "CheckpointId",
    Annotated[
        StrictStr,
        Field(
            description="A checkpoint's id, chosen by the caller or named after the global step.",
            examples=["global_step_10"],
            pattern="^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$",
        ),
    ],
)


ChunkGroupId = TypeAliasType(
    "ChunkGroupId",
    Annotated[
        StrictStr,
        Field(
            description="The idempotency key of one chunked operation, chosen by the client (a UUID works).",
            examples=["cg-0c1d2e3f"],
            pattern="^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$",
        ),
    ],
)


Cursor = TypeAliasType(
    "Cursor",
    Annotated[
        StrictStr,
        Field(
            description="An opaque event cursor.",
            examples=["ev-3"],
            pattern="^[A-Za-z0-9_=-]{1,256}$",
        ),
    ],
)


Sha256Hex = TypeAliasType(
    "Sha256Hex",
    Annotated[
        StrictStr,
        Field(
            description="A SHA-256 digest as 64 lowercase hex digits.",
            examples=["9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
            pattern="^[0-9a-f]{64}$",
        ),
    ],
)


Base64 = TypeAliasType(
    "Base64",
    Annotated[
        StrictStr,
        Field(
            description="Standard base64 (RFC 4648, with padding).",
            examples=["RFNTU1Qx"],
            json_schema_extra={"contentEncoding": "base64"},
            pattern="^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
        ),
    ],
)


class JobState(StrEnum):
    """
    A job's lifecycle state. `cancelled`, `terminated` and `failed` are terminal. Older servers
    send `JOB_STATE_RUNNING`-style names, `done` or `unknown`; the SDK normalises them.

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
    A data-plane request's state. `completed`, `failed` and `cancelled` are terminal. Older
    servers send `done`/`succeeded`, `canceled` or `REQUEST_STATE_`-prefixed names; the SDK
    normalises them.

    """

    pending = "pending"
    running = "running"
    streaming = "streaming"
    completed = "completed"
    failed = "failed"
    cancelled = "cancelled"


class JobType(StrEnum):
    """
    What a sub-job does.
    """

    training = "training"
    sampling = "sampling"
    log_probability = "log_probability"


class CheckpointType(StrEnum):
    """
    `resumable` keeps optimizer state for resuming; `weights-only` is smaller, for serving.
    """

    resumable = "resumable"
    weights_only = "weights-only"


class WeightFormat(StrEnum):
    """
    Layout of weights pushed to sampling sub-jobs.
    """

    vllm = "vllm"
    hf = "hf"
    lora = "lora"


ErrorCode1 = TypeAliasType(
    "ErrorCode1",
    Annotated[
        StrictStr,
        Field(
            description="A stable error code from the error table (a string); older servers may send an integer, which clients treat as opaque.",
            examples=["chunk_group_restart_required"],
            pattern="^[a-z][a-z0-9_]{0,63}$",
        ),
    ],
)


ErrorCode = TypeAliasType(
    "ErrorCode",
    Annotated[
        ErrorCode1 | StrictInt,
        Field(
            description="A stable error code from the error table (a string); older servers may send an integer, which clients treat as opaque.",
            examples=["chunk_group_restart_required"],
        ),
        IntegralFloatAsInt,
    ],
)


class ValidationIssue(BaseModel):
    """
    One problem, located FastAPI-style.
    """

    loc: Annotated[
        list[StrictStr | JsonInt],
        Field(
            description="Path to the offending value (`body`, `query`, `path`, `header`, then keys and indexes)."
        ),
    ]
    msg: Annotated[StrictStr, Field(description="What is wrong.")]
    type: Annotated[StrictStr, Field(description="A machine-readable problem type.")]


OptimizerConfig = TypeAliasType("OptimizerConfig", Annotated[dict[str, Any], Field(min_length=1)])
"""
Optimizer settings passed to the trainer as given (`type`, `lr`, betas, ...); not empty.
"""


class InferenceConfig(BaseModel):
    """
    Sampling or log-probability settings; keys not listed here pass through to the engine unchanged.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    max_seq_len: Annotated[
        StrictInt,
        Field(description="Longest sequence (prompt plus completion) in tokens.", ge=1),
        IntegralFloatAsInt,
    ]
    n_gpus: Annotated[
        StrictInt, Field(description="GPUs for this sub-job.", ge=1), IntegralFloatAsInt
    ]


class SourceCheckpointInfo(BaseModel):
    """
    Start the sub-job from a checkpoint, possibly one of another job.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    checkpoint_id: CheckpointId
    source_job_id: JobId | MISSING = MISSING


class CreateJobResponse(BaseModel):
    """
    The new job's id.
    """

    job_id: JobId


class JobSummary(BaseModel):
    """
    One job in a listing.
    """

    job_id: JobId
    status: JobState
    reason: Annotated[
        StrictStr | None | MISSING,
        Field(description="Why the job is in this state, when the server knows."),
    ] = MISSING
    experiment_name: Annotated[
        StrictStr | None | MISSING, Field(description="The label given at creation.")
    ] = MISSING
    created_at: Annotated[AwareDatetime, Field(description="When the job was created.")]
    updated_at: Annotated[AwareDatetime, Field(description="When the job last changed state.")]


class JobList(BaseModel):
    """
    The body of `list_jobs`.
    """

    jobs: Annotated[list[JobSummary], Field(description="Newest first.")]


class Capacity(BaseModel):
    """
    The account's GPU budget.
    """

    has_reservation: Annotated[
        StrictBool, Field(description="Whether the account holds a GPU reservation.")
    ]
    max_total_gpus: Annotated[
        StrictInt, Field(description="GPUs the account may use at once.", ge=0), IntegralFloatAsInt
    ]
    reserved_gpus: Annotated[
        StrictInt | MISSING,
        Field(deprecated=True, description="Deprecated; read `max_total_gpus`.", ge=0),
        IntegralFloatAsInt,
    ] = MISSING
    in_use_gpus: Annotated[
        StrictInt,
        Field(description="GPUs held by the account's jobs now.", ge=0),
        IntegralFloatAsInt,
    ]
    available_gpus: Annotated[
        StrictInt, Field(description="GPUs a new job could get now.", ge=0), IntegralFloatAsInt
    ]


class Checkpoint(BaseModel):
    """
    One saved checkpoint.
    """

    checkpoint_id: CheckpointId
    global_steps: Annotated[
        StrictInt,
        Field(description="Optimizer steps taken when it was saved.", ge=0),
        IntegralFloatAsInt,
    ]
    avg_loss: Annotated[
        StrictFloat | None | MISSING,
        Field(description="Average loss of the last forward-backward before the save, if any."),
    ] = MISSING
    created_at: Annotated[AwareDatetime, Field(description="When it was saved.")]
    checkpoint_type: CheckpointType


class CheckpointList(BaseModel):
    """
    The body of `list_checkpoints`.
    """

    checkpoints: Annotated[list[Checkpoint], Field(description="Oldest first.")]


class SaveRequest(BaseModel):
    """
    The body of `save_checkpoint`; `{}` saves a resumable checkpoint named after the step.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    checkpoint_id: CheckpointId | MISSING = MISSING
    checkpoint_type: CheckpointType | MISSING = MISSING


class LoadRequest(BaseModel):
    """
    The body of `load_checkpoint`.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    checkpoint_id: CheckpointId
    source_job_id: JobId | MISSING = MISSING
    target_sub_job_id: SubJobId | MISSING = MISSING


class AcceptedRequest(BaseModel):
    """
    Work was scheduled; poll `get_request` with this id.
    """

    request_id: RequestId
    job_id: JobId


class ChunkAccepted(BaseModel):
    """
    A non-final chunk of a group was stored.
    """

    job_id: JobId
    chunk_group_id: ChunkGroupId
    chunk_idx: Annotated[
        StrictInt, Field(description="Index of the chunk just stored.", ge=0), IntegralFloatAsInt
    ]
    received_chunks: Annotated[
        StrictInt,
        Field(description="Distinct chunks of the group stored so far.", ge=1),
        IntegralFloatAsInt,
    ]
    total_chunks: Annotated[
        StrictInt, Field(description="Chunks in the group.", ge=1), IntegralFloatAsInt
    ]


class StepRequest(BaseModel):
    """
    The body of `step`; `{}` keeps the scheduler's learning rate.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    learning_rate: Annotated[
        StrictFloat | MISSING,
        Field(description="Learning rate for this step only.", gt=0.0),
    ] = MISSING


PromptItem = TypeAliasType("PromptItem", Annotated[StrictInt, Field(ge=0), IntegralFloatAsInt])


Prompt = TypeAliasType(
    "Prompt",
    Annotated[
        StrictStr | list[PromptItem],
        Field(
            description="A prompt or completion, as text or as token ids.",
            examples=["2 + 2 ="],
        ),
    ],
)


class SyncWeightsRequest(BaseModel):
    """
    The body of `sync_weights` (and the payload of the `weight-sync` operation); `{}` uses the defaults.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    source_sub_job_id: SubJobId | MISSING = MISSING
    target_sub_job_ids: Annotated[
        list[SubJobId] | MISSING,
        Field(
            description="Sub-jobs to update; absent means every sampling and log-probability sub-job."
        ),
    ] = MISSING
    weight_format: WeightFormat | MISSING = MISSING


class OperationType(StrEnum):
    """
    An operation with no route of its own. Asynchronous (answer `202 AcceptedRequest`):
    `weight-sync` (payload a `SyncWeightsRequest`), `forward` (payload a `LogProbsRequest`).
    Inline (answer `200 OperationResult`): `reset-prefix-cache`, `cancel-request` (payload
    a `CancelRequestPayload`), `tail-logs` (payload `{sub_job_id?, lines?}`), and the
    colocation no-ops `sleep`, `wake-up`. Any other value answers `422 validation_error`.

    """

    weight_sync = "weight-sync"
    forward = "forward"
    reset_prefix_cache = "reset-prefix-cache"
    cancel_request = "cancel-request"
    tail_logs = "tail-logs"
    sleep = "sleep"
    wake_up = "wake-up"


class CancelRequestPayload(BaseModel):
    """
    The payload of the `cancel-request` operation.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    request_id: RequestId


class OperationPayload(BaseModel):
    """
    An operation's arguments, specific to its `operation_type`; `{}` when it takes none.
    """

    model_config = ConfigDict(
        extra="allow",
    )


class OperationOutput(BaseModel):
    """
    An inline operation's output, specific to its `operation_type` (`{}` for no-ops).
    """

    model_config = ConfigDict(
        extra="allow",
    )


class OperationResult(BaseModel):
    """
    An inline operation's answer.
    """

    job_id: JobId
    operation_type: Annotated[StrictStr, Field(description="The operation that ran.")]
    result: OperationOutput


class JsonResult(BaseModel):
    """
    A JSON result: `StepResult`, `SaveResult`, `LoadResult`, `SyncWeightsResult`, or an
    asynchronous operation's output (see each operation's `x-result`).

    """

    model_config = ConfigDict(
        extra="allow",
    )


class InlineBinaryResult(BaseModel):
    """
    A small DSSST1 result (at most 1 MiB of frame in the mock), base64 in the poll answer.
    """

    content_type: Annotated[
        Literal["application/octet-stream"],
        Field(description="Media type of the decoded payload."),
    ]
    encoding: Annotated[Literal["base64"], Field(description="How `payload_b64` is encoded.")]
    wire_format: Annotated[Literal["DSSST1"], Field(description="Format of the decoded payload.")]
    payload_b64: Base64


class RequestEvent(BaseModel):
    """
    One event of a request. Known `type`s: `result_chunk` (one DSSST1 `result_chunk` frame
    of a large result, with `chunk_idx`, `total_chunks`, `payload_b64` and `payload_sha256`,
    the SHA-256 of the decoded payload), `progress` and `log` (with `message`). Clients
    ignore types they do not know.

    """

    type: Annotated[
        StrictStr,
        Field(description="The event type.", pattern="^[a-z][a-z0-9_]{0,63}$"),
    ]
    chunk_idx: Annotated[
        StrictInt | MISSING,
        Field(description="Index of this result chunk.", ge=0),
        IntegralFloatAsInt,
    ] = MISSING
    total_chunks: Annotated[
        StrictInt | MISSING, Field(description="Result chunks in all.", ge=1), IntegralFloatAsInt
    ] = MISSING
    payload_b64: Base64 | MISSING = MISSING
    payload_sha256: Sha256Hex | MISSING = MISSING
    message: Annotated[
        StrictStr | MISSING, Field(description="Text of a `progress` or `log` event.")
    ] = MISSING
    timestamp: Annotated[AwareDatetime | MISSING, Field(description="When the event happened.")] = (
        MISSING
    )


class ChunkDescriptor(BaseModel):
    """
    The descriptor in a chunk frame's `op` metadata, under `request_chunk` or `result_chunk`.
    `frame_sha256` and `frame_size_bytes` describe the whole original frame and are equal in
    every chunk of a group.

    """

    chunk_idx: Annotated[
        StrictInt, Field(description="This chunk's index, from 0.", ge=0), IntegralFloatAsInt
    ]
    total_chunks: Annotated[
        StrictInt, Field(description="Chunks in the group.", ge=1), IntegralFloatAsInt
    ]
    frame_sha256: Sha256Hex
    frame_size_bytes: Annotated[
        StrictInt,
        Field(description="Size of the original frame in bytes.", ge=1),
        IntegralFloatAsInt,
    ]
    chunk_group_id: ChunkGroupId | MISSING = MISSING
    operation: Annotated[
        StrictStr | MISSING,
        Field(
            description="The operation the frame is for (`fwd-bwd`, `fwd-no-grad`, `generate`).",
            pattern="^[a-z][a-z0-9-]{0,31}$",
        ),
    ] = MISSING


class Dtype(StrEnum):
    """
    Safetensors dtype name.
    """

    BOOL = "BOOL"
    U8 = "U8"
    I8 = "I8"
    I16 = "I16"
    I32 = "I32"
    I64 = "I64"
    F16 = "F16"
    BF16 = "BF16"
    F32 = "F32"
    F64 = "F64"


ShapeItem = TypeAliasType("ShapeItem", Annotated[StrictInt, Field(ge=0), IntegralFloatAsInt])


class TensorRef(BaseModel):
    """
    A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On the
    wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.

    """

    dtype: Annotated[Dtype, Field(description="Safetensors dtype name.")]
    shape: Annotated[list[ShapeItem], Field(description="Dimensions; `[]` for a 0-d tensor.")]


class TrainBatch(BaseModel):
    """
    The pre-tokenised batch (the `kwargs` of a forward-backward frame). B is the batch size,
    P the prompt length and R the response length; `[B, P+R]` tensors cover the whole
    sequence. Extra keys pass through and must round-trip unchanged.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    input_ids: TensorRef
    attention_mask: TensorRef
    position_ids: TensorRef
    prompts: TensorRef
    responses: TensorRef
    response_mask: TensorRef
    loss_mask: TensorRef | MISSING = MISSING
    advantages: TensorRef
    old_log_probs: TensorRef
    ref_log_prob: TensorRef | MISSING = MISSING
    rollout_is_weights: TensorRef | MISSING = MISSING


class ForwardInputs(BaseModel):
    """
    The model inputs of a forward-no-grad frame; extra keys pass through.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    input_ids: TensorRef
    attention_mask: TensorRef
    position_ids: TensorRef
    responses: TensorRef | MISSING = MISSING
    response_mask: TensorRef | MISSING = MISSING


class LossConfig(BaseModel):
    """
    Loss settings passed to the loss function as given (clip ratios, KL coefficient, ...).
    """

    model_config = ConfigDict(
        extra="allow",
    )


PostItem = TypeAliasType("PostItem", Annotated[StrictStr, Field(pattern="^[a-z][a-z0-9_]{0,63}$")])


class Processing(BaseModel):
    """
    What the trainer does with the batch; absent keys take the job's configured defaults.
    """

    post: Annotated[
        list[PostItem] | MISSING,
        Field(description="Per-token outputs to return (`logprobs`, `entropy`)."),
    ] = MISSING
    loss_fn: Annotated[
        StrictStr | MISSING,
        Field(
            description="Loss function name (for example `verl_grpo`, `ppo`); absent means the job's configured loss.",
            pattern="^[A-Za-z][A-Za-z0-9_.-]{0,63}$",
        ),
    ] = MISSING
    config: LossConfig | MISSING = MISSING


class BatchMeta(BaseModel):
    """
    Batch metadata carried next to the tensors and passed through to the trainer (verl puts
    `global_batch_size`, `batch_num_tokens` as a 0-d tensor, `actor_config` and
    `policy_loss_config` here).

    """

    model_config = ConfigDict(
        extra="allow",
    )


class ForwardBackwardBatch(BaseModel):
    """
    The value inside a forward-backward frame.
    """

    args: Annotated[
        list[Any] | MISSING, Field(description="Positional arguments; normally empty.")
    ] = MISSING
    kwargs: TrainBatch
    meta: BatchMeta | MISSING = MISSING
    processing: Processing | MISSING = MISSING


class TrainMetrics(BaseModel):
    """
    Training metrics reduced over the batch; servers may add more keys.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    grad_norm: Annotated[
        StrictFloat | list[StrictFloat] | MISSING,
        Field(description="Global gradient norm (a scalar, or one per rank)."),
    ] = MISSING
    ppo_kl: Annotated[
        StrictFloat | MISSING,
        Field(description="Approximate KL between the old and the current policy."),
    ] = MISSING
    pg_clipfrac_lower: Annotated[
        StrictFloat | MISSING,
        Field(description="Fraction of tokens clipped at the lower ratio bound."),
    ] = MISSING
    pg_loss: Annotated[
        StrictFloat | MISSING,
        Field(description="The policy-gradient part of the loss."),
    ] = MISSING
    kl_loss: Annotated[
        StrictFloat | MISSING, Field(description="The KL-penalty part of the loss.")
    ] = MISSING
    kl_coef: Annotated[
        StrictFloat | MISSING, Field(description="The KL coefficient in effect.")
    ] = MISSING


class PostProcessOutputs(BaseModel):
    """
    Per-token outputs requested with `processing.post`, shape `[B, R]`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    logprobs: TensorRef | MISSING = MISSING
    entropy: TensorRef | MISSING = MISSING


class ForwardBackwardResult(BaseModel):
    """
    The value inside a forward-backward result frame.
    """

    job_id: JobId
    avg_loss: Annotated[StrictFloat, Field(description="Mean loss over the batch.")]
    loss: Annotated[
        StrictFloat | MISSING,
        Field(description="Same as `avg_loss`; both are sent so either key works."),
    ] = MISSING
    metrics: TrainMetrics
    post_process_outputs: PostProcessOutputs | MISSING = MISSING


class NoGradProcessing(BaseModel):
    """
    Which per-token outputs a forward-no-grad computes; extra keys pass through.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    post: Annotated[
        list[PostItem] | MISSING,
        Field(
            description="Per-token outputs to return (`logprobs`, `entropy`); default `[logprobs]`."
        ),
    ] = MISSING
    temperature: Annotated[
        StrictFloat | MISSING,
        Field(
            description="Divide logits by this before the log-softmax (match the sampler's temperature).",
            gt=0.0,
        ),
    ] = MISSING


class ForwardNoGradBatch(BaseModel):
    """
    The value inside a forward-no-grad frame.
    """

    args: Annotated[
        list[Any] | MISSING, Field(description="Positional arguments; normally empty.")
    ] = MISSING
    kwargs: ForwardInputs
    meta: BatchMeta | MISSING = MISSING
    processing: NoGradProcessing | MISSING = MISSING
    reference_model: Annotated[
        StrictBool,
        Field(description="Run the frozen reference model instead of the policy."),
    ] = False


class ModelOutputs(BaseModel):
    """
    Per-token outputs of a forward-no-grad, shape `[B, R]` (or `[B, P+R-1]` without responses).
    """

    model_config = ConfigDict(
        extra="allow",
    )
    logprobs: TensorRef
    entropy: TensorRef | MISSING = MISSING


class ForwardNoGradMetrics(BaseModel):
    """
    Timing and diagnostic metrics of a forward-no-grad; servers choose the keys.
    """

    model_config = ConfigDict(
        extra="allow",
    )


class ForwardNoGradResult(BaseModel):
    """
    The value inside a forward-no-grad result frame.
    """

    model_outputs: ModelOutputs
    metrics: ForwardNoGradMetrics | MISSING = MISSING


class SamplingParams(BaseModel):
    """
    vLLM-style sampling settings; keys not listed pass through to the engine.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    max_tokens: Annotated[
        StrictInt | MISSING, Field(description="Most tokens to generate.", ge=1), IntegralFloatAsInt
    ] = MISSING
    temperature: Annotated[
        StrictFloat | MISSING,
        Field(description="Sampling temperature; 0 is greedy.", ge=0.0),
    ] = MISSING
    top_p: Annotated[
        StrictFloat | MISSING,
        Field(description="Nucleus sampling mass.", gt=0.0, le=1.0),
    ] = MISSING
    top_k: Annotated[
        StrictInt | MISSING,
        Field(description="Sample from the k most likely tokens; -1 for all.", ge=-1),
        IntegralFloatAsInt,
    ] = MISSING
    n: Annotated[
        StrictInt | MISSING, Field(description="Completions per prompt.", ge=1), IntegralFloatAsInt
    ] = MISSING
    stop: Annotated[list[StrictStr] | MISSING, Field(description="Stop strings.")] = MISSING
    seed: Annotated[
        StrictInt | MISSING, Field(description="Per-request seed."), IntegralFloatAsInt
    ] = MISSING
    logprobs: Annotated[
        StrictInt | MISSING,
        Field(
            description="Also return this many log-probabilities per generated token.",
            ge=0,
        ),
        IntegralFloatAsInt,
    ] = MISSING


class GenerateRequest(BaseModel):
    """
    The value inside a generate frame.
    """

    prompts: Annotated[
        list[Prompt], Field(description="Prompts as text or token ids.", min_length=1)
    ]
    sampling_params: Annotated[
        SamplingParams | list[SamplingParams] | MISSING,
        Field(description="One set for every prompt, or one per prompt."),
    ] = MISSING
    routing_key: Annotated[
        StrictStr | MISSING,
        Field(
            description="Requests with the same key go to the same sampling replica (prefix-cache reuse).",
            pattern="^[A-Za-z0-9_.:-]{1,128}$",
        ),
    ] = MISSING
    strict: Annotated[
        StrictBool,
        Field(
            description="Fail the request when any prompt fails, instead of answering partial results."
        ),
    ] = False


TokenId = TypeAliasType("TokenId", Annotated[StrictInt, Field(ge=0), IntegralFloatAsInt])


class GenerationOutput(BaseModel):
    """
    One completion.
    """

    text: Annotated[StrictStr, Field(description="The completion text.")]
    token_ids: Annotated[list[TokenId], Field(description="The completion's token ids.")]
    finish_reason: Annotated[
        StrictStr,
        Field(description="Why generation stopped (`stop`, `length`, `abort`)."),
    ]
    logprobs: Annotated[
        list[StrictFloat] | None | MISSING,
        Field(description="Log-probability of each generated token, when asked for."),
    ] = MISSING
    prompt_len: Annotated[
        StrictInt | MISSING, Field(description="Prompt length in tokens.", ge=0), IntegralFloatAsInt
    ] = MISSING
    generation_len: Annotated[
        StrictInt | MISSING,
        Field(description="Completion length in tokens.", ge=0),
        IntegralFloatAsInt,
    ] = MISSING


class GenerateResult(BaseModel):
    """
    The value inside a generate result frame; `results` follows the order of `prompts`.
    """

    job_id: JobId
    results: Annotated[
        list[GenerationOutput], Field(description="One entry per prompt (times `n`).")
    ]


class LogProbsResult(BaseModel):
    """
    The value inside a log-probs result frame; one entry per prompt, shifted convention.
    """

    logprobs: Annotated[
        list[TensorRef],
        Field(description="One 1-D float32 tensor per prompt (plus completion)."),
    ]
    token_ids: Annotated[
        list[TensorRef] | MISSING,
        Field(description="The scored token ids, one 1-D int64 tensor per prompt."),
    ] = MISSING
    top_k_token_ids: Annotated[
        list[TensorRef] | MISSING,
        Field(description="With `top_k > 0`, one `[len, top_k]` int64 tensor per prompt."),
    ] = MISSING


class StepResult(BaseModel):
    """
    The JSON result of `step`.
    """

    global_steps: Annotated[
        StrictInt, Field(description="Optimizer steps taken so far.", ge=0), IntegralFloatAsInt
    ]
    last_lr: Annotated[
        StrictFloat | list[StrictFloat],
        Field(description="Learning rate used (a scalar, or one per parameter group)."),
    ]
    peak_memory: Annotated[
        StrictFloat | MISSING,
        Field(description="Peak accelerator memory in GiB during the step.", ge=0.0),
    ] = MISSING
    metrics: TrainMetrics | MISSING = MISSING


class SaveResult(BaseModel):
    """
    The JSON result of `save_checkpoint`.
    """

    checkpoint_id: CheckpointId
    checkpoint_path: Annotated[StrictStr, Field(description="Where the service stored it.")]
    checkpoint_tag: Annotated[StrictStr, Field(description="The trainer's tag for it.")]


class LoadResult(BaseModel):
    """
    The JSON result of `load_checkpoint`.
    """

    checkpoint_id: CheckpointId
    source_job_id: JobId
    global_steps: Annotated[
        StrictInt | MISSING,
        Field(description="The step count restored with it.", ge=0),
        IntegralFloatAsInt,
    ] = MISSING


class SyncWeightsResult(BaseModel):
    """
    The JSON result of `sync_weights` and of the `weight-sync` operation.
    """

    synced_sub_job_ids: Annotated[
        list[SubJobId], Field(description="Sub-jobs that now hold the new weights.")
    ]
    weight_format: WeightFormat
    version: Annotated[
        StrictInt, Field(description="Weight version, one more per sync.", ge=0), IntegralFloatAsInt
    ]


class Error(BaseModel):
    """
    The one error body of this API, for every non-2xx status.
    """

    message: Annotated[StrictStr, Field(description="Human-readable; never contains credentials.")]
    code: ErrorCode
    request_id: Annotated[
        StrictStr | MISSING,
        Field(
            description="The `x-snowflake-request-id` of the failed exchange, when known.",
            pattern="^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$",
        ),
    ] = MISSING
    details: Annotated[
        list[ValidationIssue] | MISSING,
        Field(description="One entry per problem (validation errors, missing chunk indexes)."),
    ] = MISSING


class TrainingConfig(BaseModel):
    """
    Training settings; keys not listed here pass through to the trainer unchanged.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    optimizer: OptimizerConfig
    max_seq_len: Annotated[
        StrictInt,
        Field(description="Longest sequence (prompt plus response) in tokens.", ge=1),
        IntegralFloatAsInt,
    ]
    train_batch_size: Annotated[
        StrictInt,
        Field(description="Sequences per forward-backward call.", ge=1),
        IntegralFloatAsInt,
    ]
    n_gpus: Annotated[
        StrictInt, Field(description="GPUs for this sub-job.", ge=1), IntegralFloatAsInt
    ]
    gradient_clipping: Annotated[
        StrictFloat | MISSING,
        Field(description="Global gradient-norm clip; absent means no clipping.", ge=0.0),
    ] = MISSING
    load_optimizer_states: Annotated[
        StrictBool | MISSING,
        Field(description="Whether loading a checkpoint restores optimizer state too."),
    ] = MISSING


class SubJob(BaseModel):
    """
    One sub-job of a job, with the configuration it was created with.
    """

    sub_job_id: SubJobId
    job_type: JobType
    status: JobState
    model_name: Annotated[StrictStr, Field(description="The model this sub-job runs.")]
    training_config: TrainingConfig | MISSING = MISSING
    inference_config: InferenceConfig | MISSING = MISSING


class LogProbsRequest(BaseModel):
    """
    The body of `log_probs`.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    prompts: Annotated[
        list[Prompt], Field(description="Prompts as text or token ids.", min_length=1)
    ]
    completions: Annotated[
        list[Prompt] | MISSING,
        Field(
            description="One completion per prompt, scored after it; absent scores the prompts alone."
        ),
    ] = MISSING
    top_k: Annotated[
        StrictInt,
        Field(
            description="Also answer the top-k candidate tokens per position; 0 for none.",
            ge=0,
            le=64,
        ),
        IntegralFloatAsInt,
    ] = 0


class OperationRequest(BaseModel):
    """
    The body of `run_operation`. The payload's shape depends on `operation_type` (stated
    as `allOf` if/then rules): `weight-sync` takes a `SyncWeightsRequest` (`{}` or no
    payload uses the defaults), `forward` a `LogProbsRequest`, `cancel-request` a
    `CancelRequestPayload`; the other types take any object (`{}`). A payload that breaks
    its rule answers `422 validation_error`.

    """

    model_config = ConfigDict(
        extra="forbid",
    )
    operation_type: OperationType
    sub_job_id: SubJobId | MISSING = MISSING
    sub_job_type: JobType | MISSING = MISSING
    payload: Annotated[OperationPayload, Field(validate_default=True)] = {}


class RequestStatus(BaseModel):
    """
    One poll of a data-plane request. `result` is set once `status` is `completed`: a JSON
    object for JSON results, an `InlineBinaryResult` for small DSSST1 results, and null for
    large DSSST1 results, which arrive as `result_chunk` events instead. `error` is set once
    `status` is `failed`.

    """

    request_id: RequestId
    job_id: JobId
    status: RequestState
    created_at: Annotated[AwareDatetime, Field(description="When the request was accepted.")]
    updated_at: Annotated[AwareDatetime, Field(description="When it last changed.")]
    result: Annotated[
        InlineBinaryResult | JsonResult | None,
        Field(description="The result, when done (see above)."),
    ]
    error: Annotated[Error | None, Field(description="Why the request failed.")]
    events: Annotated[list[RequestEvent], Field(description="One page of events, oldest first.")]
    next_cursor: Annotated[
        Cursor | None,
        Field(
            description="Cursor of the next page; null when the request is terminal and every event was read."
        ),
    ]


class ChunkFrame(BaseModel):
    """
    The value of a chunk frame: one byte range of the original frame. Its `op` metadata holds
    a `ChunkDescriptor` under `request_chunk` or `result_chunk`.

    """

    payload: TensorRef


class SubJobConfig(BaseModel):
    """
    One sub-job. Exactly one of `training_config` (for `training`) or `inference_config`
    (for `sampling` and `log_probability`) must be given; the server answers 422 otherwise.
    The schema states this in `allOf`: an if/then/else on `job_type` and an `anyOf`.

    """

    model_config = ConfigDict(
        extra="forbid",
    )
    job_type: JobType
    model_name: Annotated[
        StrictStr,
        Field(
            description="A model name the service can load (a Hugging Face id or a stage path).",
            min_length=1,
        ),
    ]
    training_config: TrainingConfig | MISSING = MISSING
    inference_config: InferenceConfig | MISSING = MISSING
    global_batch_size: Annotated[
        StrictInt | MISSING,
        Field(description="Samples per optimizer step across all GPUs.", ge=1),
        IntegralFloatAsInt,
    ] = MISSING
    dtype: Annotated[
        StrictStr | MISSING,
        Field(
            description="Compute dtype of the model weights.",
            pattern="^[a-z0-9]{2,16}$",
        ),
    ] = MISSING
    seed: Annotated[
        StrictInt | MISSING,
        Field(description="Random seed for reproducible runs.", ge=0),
        IntegralFloatAsInt,
    ] = MISSING
    source_checkpoint_info: SourceCheckpointInfo | MISSING = MISSING


class Job(BaseModel):
    """
    A job and its sub-jobs.
    """

    job_id: JobId
    status: JobState
    reason: Annotated[
        StrictStr | None | MISSING,
        Field(
            description="Why the job is in this state (for example a placement or startup failure)."
        ),
    ] = MISSING
    created_at: Annotated[AwareDatetime, Field(description="When the job was created.")]
    updated_at: Annotated[AwareDatetime, Field(description="When the job last changed state.")]
    image_tag: Annotated[
        StrictStr | None | MISSING,
        Field(description="The service image running the job."),
    ] = MISSING
    experiment_name: Annotated[
        StrictStr | None | MISSING, Field(description="The label given at creation.")
    ] = MISSING
    sub_jobs: Annotated[
        list[SubJob],
        Field(description="One entry per sub-job config, in creation order."),
    ]


class CreateJobRequest(BaseModel):
    """
    The body of `create_job`.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    sub_job_configs: Annotated[
        list[SubJobConfig],
        Field(description="One entry per sub-job; at least one.", min_length=1),
    ]
    experiment_name: Annotated[
        StrictStr | MISSING,
        Field(
            description="A free-form label shown in listings.",
            max_length=256,
            min_length=1,
        ),
    ] = MISSING
