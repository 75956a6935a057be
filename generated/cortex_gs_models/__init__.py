# generated from openapi/cortex_gs.yaml by make generate; do not edit

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from cortex_gs_contract import CheckpointType as CheckpointType
from cortex_gs_contract import ErrorCode as ErrorCode
from cortex_gs_contract import JobState as JobState
from cortex_gs_contract import JobType as JobType
from cortex_gs_contract import OperationType as OperationType
from cortex_gs_contract import RequestState as RequestState
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
            description="A data-plane request's id, opaque; a self-describing id may embed the owning sub-job (with `:`).",
            examples=["req-5d8e1f00"],
            pattern="^[A-Za-z0-9][A-Za-z0-9_.:-]{0,255}$",
        ),
    ],
)


CheckpointId = TypeAliasType(
    "CheckpointId",
    Annotated[
        StrictStr,
        Field(
            description="A checkpoint's id, as the service named it (after the global step).",
            examples=["global_step12"],
            pattern="^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$",
        ),
    ],
)


ChunkGroupId = TypeAliasType(
    "ChunkGroupId",
    Annotated[
        StrictStr,
        Field(
            description="The idempotency key of one chunked operation, chosen by the client (a UUID4 today).",
            examples=["0c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"],
            pattern="^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$",
        ),
    ],
)


Cursor = TypeAliasType(
    "Cursor",
    Annotated[
        StrictStr,
        Field(
            description="An opaque result-chunk cursor, as a poll's non-empty `next_cursor` gave it.",
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


class WeightFormat(StrEnum):
    """
    Layout of weights pushed to sampling sub-jobs (`vllm` is the server default; `lora` sends only the adapter).
    """

    vllm = "vllm"
    hf = "hf"
    lora = "lora"


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


class OptimizerConfig(BaseModel):
    """
    Optimizer settings passed to the trainer as given (`name`, `lr`, betas, ...); not empty.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    name: Annotated[
        StrictStr | MISSING, Field(description="The optimizer (for example `AdamW`).")
    ] = MISSING


class InferenceConfig(BaseModel):
    """
    Sampling or log-probability settings; keys not listed here pass through to the engine unchanged (`vllm_config`, `peft_config`, ...).
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
    multiplex_job_id: SubJobId | MISSING = MISSING


class SourceCheckpointInfo(BaseModel):
    """
    Start the sub-job from a saved checkpoint, possibly one of another job (the server stamps stage credentials itself).
    """

    model_config = ConfigDict(
        extra="allow",
    )
    checkpoint_id: CheckpointId
    source_job_id: JobId | MISSING = MISSING


class CreateJobResponse(BaseModel):
    """
    The new job's id.
    """

    job_id: JobId


class Proposal(StrEnum):
    forward_no_grad = "forward_no_grad"
    log_probs = "log_probs"
    sync_weights = "sync_weights"
    idempotency_key = "idempotency_key"
    wait_s = "wait_s"
    cost_budgets = "cost_budgets"
    sampling_n = "sampling_n"
    verl_grpo = "verl_grpo"
    apply_temperature = "apply_temperature"
    compute_entropy_and_logprobs = "compute_entropy_and_logprobs"
    train_batch = "train_batch"
    train_metrics = "train_metrics"


class Capabilities(BaseModel):
    """
    The proposals a service serves (the answer of the proposed capabilities route).
    """

    service: Annotated[
        StrictStr | MISSING,
        Field(description="A name for what the service plays (`proposed` on the mock)."),
    ] = MISSING
    proposals: Annotated[
        list[Proposal],
        Field(description="Each proposal served, by name; clients ignore names they do not know."),
    ]


class Capacity(BaseModel):
    """
    The account's GPU budget. Proto3 JSON omits false and zero fields, so every field may be absent (read it as false or 0).
    """

    has_reservation: Annotated[
        StrictBool | MISSING,
        Field(description="Whether the account holds a GPU reservation."),
    ] = MISSING
    max_total_gpus: Annotated[
        StrictInt | MISSING,
        Field(description="The account's GPU ceiling.", ge=0),
        IntegralFloatAsInt,
    ] = MISSING
    reserved_gpus: Annotated[
        StrictInt | MISSING,
        Field(
            deprecated=True,
            description="Deprecated; read `max_total_gpus` with `has_reservation`.",
            ge=0,
        ),
        IntegralFloatAsInt,
    ] = MISSING
    in_use_gpus: Annotated[
        StrictInt | MISSING,
        Field(
            description="GPUs used by the account's pending, placing, initializing and running jobs.",
            ge=0,
        ),
        IntegralFloatAsInt,
    ] = MISSING
    available_gpus: Annotated[
        StrictInt | MISSING,
        Field(
            description="Remaining capacity, floored at zero and possibly capped by what is schedulable now.",
            ge=0,
        ),
        IntegralFloatAsInt,
    ] = MISSING


class ExperimentRun(BaseModel):
    """
    The experiment and run a job records to.
    """

    experiment_name: Annotated[
        StrictStr | MISSING, Field(description="Fully qualified experiment name.")
    ] = MISSING
    experiment_run_name: Annotated[
        StrictStr | MISSING, Field(description="The run's name within the experiment.")
    ] = MISSING


class Checkpoint(BaseModel):
    """
    One saved checkpoint (proto3 JSON; zero fields may be absent).
    """

    checkpoint_id: CheckpointId
    global_steps: Annotated[
        StrictInt | MISSING,
        Field(description="Optimizer steps taken when it was saved.", ge=0),
        IntegralFloatAsInt,
    ] = MISSING
    avg_loss: Annotated[
        StrictFloat | None | MISSING,
        Field(description="Average loss of the last forward-backward before the save, if any."),
    ] = MISSING
    created_at: Annotated[AwareDatetime | MISSING, Field(description="When it was saved.")] = (
        MISSING
    )
    checkpoint_type: CheckpointType | MISSING = MISSING


class CheckpointList(BaseModel):
    """
    The body of `list_checkpoints`.
    """

    checkpoints: Annotated[list[Checkpoint], Field(description="The job's checkpoints.")]


class ExportedFile(BaseModel):
    """
    One exported checkpoint file.
    """

    filename: Annotated[StrictStr, Field(description="The file's name within the checkpoint.")]
    url: Annotated[StrictStr, Field(description="A short-lived pre-signed download URL.")]
    size_bytes: Annotated[
        StrictInt | MISSING,
        Field(description="The file's size in bytes.", ge=0),
        IntegralFloatAsInt,
    ] = MISSING


class SaveRequest(BaseModel):
    """
    The body of `save_checkpoint`; open: fields the service does not use are accepted and
    ignored. `{}` saves a resumable checkpoint named after the step.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    checkpoint_id: Annotated[
        StrictStr | MISSING,
        Field(
            description="Sent by today's client when given; accepted but not forwarded (the service's save\nrequest has no such field), so any string is fine. Use the result's `checkpoint_id`.\n"
        ),
    ] = MISSING
    checkpoint_type: CheckpointType | MISSING = MISSING
    export_hf: Annotated[
        StrictBool | MISSING,
        Field(
            description="Sent by today's client (always `false` by default); accepted and not used by the service."
        ),
    ] = MISSING
    path: Annotated[
        StrictStr | MISSING,
        Field(
            description="Sent by today's client when given (an on-prem destination); accepted and not used by the service."
        ),
    ] = MISSING
    step: Annotated[
        StrictInt | MISSING,
        Field(
            description="Sent by today's client when given (on-prem); accepted and not used by the service."
        ),
        IntegralFloatAsInt,
    ] = MISSING
    save_total_limit: Annotated[
        StrictInt | MISSING,
        Field(
            description="Sent by today's client when given (on-prem); accepted and not used by the service."
        ),
        IntegralFloatAsInt,
    ] = MISSING
    stage_info: Annotated[
        dict[str, Any] | MISSING,
        Field(
            description="Sent by today's client when given (on-prem); accepted and not used (the service stamps its own stage credentials)."
        ),
    ] = MISSING


class LoadRequest(BaseModel):
    """
    The body of `load_checkpoint`.
    """

    model_config = ConfigDict(
        extra="allow",
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


class GenerateStreamAccepted(BaseModel):
    """
    Streaming generation started; `count` is the number of prompts.
    """

    request_id: RequestId
    job_id: JobId
    count: Annotated[
        StrictInt | MISSING, Field(description="Prompts in the request.", ge=0), IntegralFloatAsInt
    ] = MISSING


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
    The body of `step`; `{}` keeps the scheduler's learning rate. Open like every JSON body.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    learning_rate: Annotated[
        StrictFloat | MISSING, Field(description="Learning rate for this step only.")
    ] = MISSING


PromptItem = TypeAliasType("PromptItem", Annotated[StrictInt, Field(ge=0), IntegralFloatAsInt])


Prompt = TypeAliasType(
    "Prompt",
    Annotated[
        StrictStr | list[PromptItem],
        Field(
            description="A prompt or completion, as text or as token ids (a single tokenized prompt in a list is `[[1, 2, 3]]`).",
            examples=["2 + 2 ="],
        ),
    ],
)


class SyncWeightsRequest(BaseModel):
    """
    The body of the proposed `sync_weights` route only; `{}` uses the defaults.
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


class OperationPayload(BaseModel):
    """
    An operation's arguments, specific to its `operation_type` (see `OperationRequest`).
    """

    model_config = ConfigDict(
        extra="allow",
    )


class ForwardOperationPayload(BaseModel):
    """
    The payload of the `forward` operation, today's forward without gradients: one complete
    DSSST1 frame of a `ForwardBackwardBatch` (`kwargs {input_ids, attention_mask,
    position_ids?}`, `context {input_ids}`, `processing {post: [compute_logprobs],
    loss_fn: null}`; frame metadata `response_options {format: dssst1, delivery: chunked}`)
    as base64 in JSON. Not chunked: the JSON body is at most 16 MiB (16777216 bytes) and
    the decoded frame at most 60 MiB, so a big batch is split by rows, never by bytes (the
    service decodes one whole frame a post). Only `compute_logprobs`; rows left-aligned
    (`ModelKwargs`). The answer is polled; its result is `ForwardOperationResult`, or a
    `payload_b64` frame holding one.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    payload_b64: Base64
    content_type: Annotated[
        StrictStr | MISSING,
        Field(description="Media type of the decoded bytes (`application/octet-stream`)."),
    ] = MISSING


class WeightSyncPayload(BaseModel):
    """
    The payload of the `weight-sync` operation, open: today's client adds `cuda_ipc` and
    `low_memory` (colocated strategies, which Cortex does not use) and the service ignores
    what it does not use.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    source_sub_job_id: SubJobId | MISSING = MISSING
    target_sub_job_ids: Annotated[
        list[SubJobId] | MISSING, Field(description="Sub-jobs to update.")
    ] = MISSING
    weight_format: WeightFormat | MISSING = MISSING
    cuda_ipc: Annotated[
        StrictBool | MISSING,
        Field(description="Colocated zero-copy sync; sent by today's client, not used on Cortex."),
    ] = MISSING
    low_memory: Annotated[
        StrictBool | MISSING,
        Field(
            description="Colocated one-parameter-at-a-time sync; sent by today's client, not used on Cortex."
        ),
    ] = MISSING


class BootstrapRouterReplayPayload(BaseModel):
    """
    The payload of `bootstrap-router-replay`; the sampling sub-job is the routing source, the training sub-job the replay target (and operation receiver).
    """

    model_config = ConfigDict(
        extra="allow",
    )
    source_sub_job_id: SubJobId
    target_sub_job_id: SubJobId
    max_cache_bytes: Annotated[
        StrictInt | MISSING,
        Field(description="Bound on the replay cache.", ge=0),
        IntegralFloatAsInt,
    ] = MISSING


class RouterReplayDiscardPayload(BaseModel):
    """
    The payload of `router-replay-discard`; extra fields pass through.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    sample_ids: Annotated[
        list[StrictStr] | MISSING,
        Field(description="The samples whose routing records to drop."),
    ] = MISSING


class ResetPrefixCachePayload(BaseModel):
    """
    The payload of `reset-prefix-cache` (the values shown are the client defaults); extra fields pass through.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    drain: Annotated[
        StrictBool | MISSING,
        Field(description="Wait for in-flight requests before resetting."),
    ] = MISSING
    timeout_s: Annotated[
        StrictFloat | MISSING,
        Field(description="How long to wait for the drain, in seconds."),
    ] = MISSING
    retry_interval_s: Annotated[
        StrictFloat | MISSING,
        Field(description="How often to retry while draining, in seconds."),
    ] = MISSING


class CancelRequestPayload(BaseModel):
    """
    The payload of `cancel-request`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    request_id: RequestId


class TailLogsPayload(BaseModel):
    """
    The payload of `tail-logs`; absent `cursor` reads from the start.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    cursor: Annotated[
        StrictStr | MISSING, Field(description="The previous page's `next_cursor`.")
    ] = MISSING
    max_lines: Annotated[
        StrictInt | MISSING,
        Field(description="Most log entries in this page.", ge=1),
        IntegralFloatAsInt,
    ] = MISSING


class TailLogsPage(BaseModel):
    """
    The inline answer of `tail-logs`: one page of the sub-job's stdout. While the job is
    placing, pages can be empty and not `eof`.

    """

    entries: Annotated[list[Any], Field(description="Log entries, oldest first.")]
    next_cursor: Annotated[StrictStr, Field(description="Pass as `cursor` to read on.")]
    eof: Annotated[
        StrictBool,
        Field(description="Whether the log has ended for now (stop unless following)."),
    ]


class OperationAnswer(BaseModel):
    """
    An inline operation's answer, opaque and unwrapped: for `tail-logs` a `TailLogsPage`,
    for the others the backend's acknowledgement or result.

    """

    model_config = ConfigDict(
        extra="allow",
    )


class JsonResult(BaseModel):
    """
    A JSON result: `StepResult`, `SaveResult`, `LoadResult`, or an asynchronous
    operation's output (open: `weight-sync` answers completion/transfer metadata).

    """

    model_config = ConfigDict(
        extra="allow",
    )


class InlineBinaryResult(BaseModel):
    """
    A small DSSST1 result, base64 in the poll answer.
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
    One event of a request; events are opaque backend objects. `result_chunk` events carry
    one DSSST1 `result_chunk` frame of a large result (`payload_b64`, and `payload_sha256`
    of the decoded payload); a generate-stream's events are `GenerateStreamEvent`s. Clients
    ignore types they do not know.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    type: Annotated[StrictStr, Field(description="The event type.")]
    payload_b64: Base64 | MISSING = MISSING
    payload_sha256: Sha256Hex | MISSING = MISSING
    chunk_idx: Annotated[
        StrictInt | MISSING,
        Field(
            description="Index of this result chunk (also inside the chunk frame's descriptor).",
            ge=0,
        ),
        IntegralFloatAsInt,
    ] = MISSING
    total_chunks: Annotated[
        StrictInt | MISSING,
        Field(
            description="Result chunks in all (also inside the chunk frame's descriptor).",
            ge=1,
        ),
        IntegralFloatAsInt,
    ] = MISSING


class ResponseOptions(BaseModel):
    """
    How the client wants the result delivered.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    format: Annotated[StrictStr | MISSING, Field(description="`dssst1`.")] = MISSING
    delivery: Annotated[
        StrictStr | MISSING,
        Field(description="`chunked` (large results as `result_chunk` events)."),
    ] = MISSING


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
            description="The operation the frame is for (`fwd-bwd`, `generate`<!-- proposed:start -->; proposed `fwd-no-grad`<!-- proposed:end -->).",
            pattern="^[a-z][a-z0-9-]{0,31}$",
        ),
    ] = MISSING


class RequestChunkDescriptor(ChunkDescriptor):
    """
    A request chunk's descriptor; request chunks always carry `chunk_group_id` (the server's idempotency key) and `operation`.
    """

    chunk_group_id: ChunkGroupId
    operation: Annotated[
        StrictStr,
        Field(
            description="The operation the frame is for (`fwd-bwd`, `generate`<!-- proposed:start -->; proposed `fwd-no-grad`<!-- proposed:end -->).",
            pattern="^[a-z][a-z0-9-]{0,31}$",
        ),
    ]


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


class ModelKwargs(BaseModel):
    """
    The model's keyword arguments in a forward-backward frame, generally `[batch, sequence]`
    tensors. The minimal conventional frame carries `input_ids` and `labels`; today's
    arctic-platform client sends `input_ids`, `attention_mask` and, when it has them,
    `position_ids` and `labels` (its loss comes from `context` and `processing`). Other
    keys pass through.

    Rows are **left-aligned** (`x-row-layout`): each row's real tokens sit in its leading
    columns (`attention_mask` is ones, then zeros), padding after. The trainer packs rows
    and refuses a row with padding before a real token ("packing requires left-aligned
    rows"). Answers come back in that aligned frame: a client that aligned a caller's
    left-padded rows puts every answer column back where the caller's row had it. A batch
    needs at least as many rows as the training sub-job has GPUs (`n_gpus`).

    """

    model_config = ConfigDict(
        extra="allow",
    )
    input_ids: TensorRef
    attention_mask: TensorRef | MISSING = MISSING
    position_ids: TensorRef | MISSING = MISSING
    labels: TensorRef | MISSING = MISSING


class ForwardBackwardContext(BaseModel):
    """
    Backend-owned loss inputs (an open backend contract: the deployed training backend, not
    this API, decides the keys). Stock `grpo` (and `grpo_echo_v1`) reads `input_ids`,
    `advantages` and a boolean `loss_mask`, all `[B, T]` like `kwargs.input_ids`, and
    optionally `old_log_probs_shifted`; a grpo batch without `advantages` or `loss_mask`
    here is refused before any model call, naming the key (never trained as next-token
    prediction instead).

    """

    model_config = ConfigDict(
        extra="allow",
    )
    input_ids: TensorRef | MISSING = MISSING
    advantages: Annotated[
        TensorRef | MISSING,
        Field(description="Each token's advantage, `[B, T]`, in the rows as sent."),
    ] = MISSING
    loss_mask: Annotated[
        TensorRef | MISSING,
        Field(description="`BOOL` `[B, T]`: the tokens the loss counts."),
    ] = MISSING
    old_log_probs_shifted: Annotated[
        TensorRef | MISSING,
        Field(
            description="pi_old in the predicting-position frame of the rows as sent: column `k` scores token\n`k + 1` (the frame `compute_logprobs` answers in). Without it, pi_old is the same\nforward's log-probabilities, detached: the ratio is exactly 1 and clipping cannot engage\n(single-update on-policy GRPO).\n"
        ),
    ] = MISSING


class TrainBatch(BaseModel):
    """
    The pre-tokenised batch verl and SkyRL build, as the `kwargs` of a forward-backward
    frame. B is the batch size, P the prompt length and R the response length;
    `[B, P+R]` tensors cover the whole sequence. Extra keys pass through and must
    round-trip unchanged.

    Every per-token input (`old_log_probs`, `ref_log_prob`, `advantages`, `loss_mask`,
    `response_mask`, `rollout_is_weights`, wherever it sits: `kwargs`, `context`, or
    `meta` for `rollout_is_weights`) has one layout, `x-token-layout`: **token-aligned and
    right-justified against `input_ids`**. With `input_ids` of shape `[B, T]`, column `j`
    of a `[B, w]` tensor holds the value of token `input_ids[:, T - w + j]`: its
    log-probability under the old or the reference policy, its advantage, its mask bit,
    its importance weight. So a `[B, T]` tensor is aligned column for column with
    `input_ids` (column 0 is ignored: the first token has no log-probability), a
    `[B, R]` response tensor is aligned with `responses`, and a `[B, T-1]` tensor starts
    at the second token. Answers differ: `logprobs` and `entropy` come back in the
    shifted (roll) layout, `[B, T]` with column `i` scoring `input_ids[:, i + 1]` and the
    last column zero, so an answer sent back as `old_log_probs` must first move one
    column right (or drop its last column, which makes it a valid `[B, T-1]` input).

    Inputs that cannot line up are refused when the forward-backward frame is
    accepted: `422` (`validation_error`; the detail's `type` is `token_layout` and its
    `loc` names the tensor). Every per-token input must be a 2-D tensor with the `B`
    rows of `input_ids` and at most `T` columns; `responses` `[B, R]` must have
    `R < T` (they are the last `R` tokens), and then every per-token input must have
    at least `R` columns, so that each response token has its value.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    input_ids: TensorRef
    attention_mask: TensorRef
    position_ids: TensorRef
    prompts: TensorRef
    responses: TensorRef
    response_mask: Annotated[
        TensorRef,
        Field(description="1 for response tokens; token-aligned (`x-token-layout`)."),
    ]
    loss_mask: Annotated[
        TensorRef | MISSING,
        Field(description="1 for tokens the loss counts (default `response_mask`); token-aligned."),
    ] = MISSING
    advantages: Annotated[TensorRef, Field(description="Each token's advantage; token-aligned.")]
    old_log_probs: Annotated[
        TensorRef,
        Field(
            description="Each token's log-probability under the policy that sampled it; token-aligned (an answer's `logprobs` moved one column right)."
        ),
    ]
    ref_log_prob: Annotated[
        TensorRef | MISSING,
        Field(description="Each token's log-probability under the reference model; token-aligned."),
    ] = MISSING
    rollout_is_weights: Annotated[
        TensorRef | MISSING,
        Field(
            description="Each token's rollout importance weight (verl sends it in `meta`); token-aligned."
        ),
    ] = MISSING


class LossConfig(BaseModel):
    """
    Loss settings passed to the loss function as given. Stock `grpo` reads `eps_clip`
    (default 0.2, symmetric), `loss_agg_mode` (default `token-mean`), `entropy_coeff`
    (default 0.0), and optionally `global_batch_size` and `batch_num_tokens` (the
    token-mean divisor: `batch_num_tokens = 1` cancels it). Its gradient with respect to
    the log-probabilities is `-advantages * ratio`. Do not send `dp_size`: the service divides
    the loss by it.

    """

    model_config = ConfigDict(
        extra="allow",
    )


class Processing(BaseModel):
    """
    What the backend does with the batch. Loss functions and post-processors come from the
    deployed training backend's registries (`x-registries`): a name outside them is
    refused before any model call. Today there is no `apply_temperature` (the trainer
    scores at temperature 1.0 only) and no entropy post-processor.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    post: Annotated[
        list[StrictStr] | MISSING,
        Field(description="Post-processors to run (`identity`, `compute_logprobs`)."),
    ] = MISSING
    loss_fn: Annotated[
        StrictStr | MISSING,
        Field(
            description="Loss function name (`causal_cross_entropy`, `grpo`, `grpo_echo_v1`); absent means the job's configured loss."
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
    The value inside a forward-backward frame. The minimal frame is
    `{args: [], kwargs: {input_ids, labels}}`; ArcticTraining adds backend-owned `context`
    and `processing`. Other keys pass through<!-- proposed:start --> (the proposed
    pre-tokenised batch is `TrainBatch`)<!-- proposed:end -->.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    args: Annotated[
        list[Any] | MISSING, Field(description="Positional arguments; normally empty.")
    ] = MISSING
    kwargs: ModelKwargs
    context: ForwardBackwardContext | MISSING = MISSING
    processing: Processing | MISSING = MISSING
    router_replay: Annotated[
        Any | MISSING,
        Field(description="Router-replay data the client adds when given, a backend contract."),
    ] = MISSING
    meta: BatchMeta | MISSING = MISSING


class TrainMetrics(BaseModel):
    """
    Training metrics; the exact keys are backend and loss dependent (today often `{}`).
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
    What the post-processors computed. With `compute_logprobs`, `logprobs` holds the
    per-token log-probabilities as nested lists (the service's published description,
    which says `{}`, is stale on this).

    """

    model_config = ConfigDict(
        extra="allow",
    )
    logprobs: Annotated[
        list[list[StrictFloat]] | MISSING,
        Field(
            description="`[B, T]` nested lists of numbers, rectangular and padded to the full width; shifted\nconvention: column `i` scores `input_ids[:, i + 1]` of the rows as sent (left-aligned).\n"
        ),
    ] = MISSING
    entropy: TensorRef | MISSING = MISSING


class ForwardBackwardResult(BaseModel):
    """
    The value inside a forward-backward result frame (a conventional backend result, open).
    """

    job_id: JobId | MISSING = MISSING
    avg_loss: Annotated[
        StrictFloat,
        Field(description="Mean loss over the batch (there is no `loss` alias)."),
    ]
    metrics: TrainMetrics | MISSING = MISSING
    post_process_outputs: PostProcessOutputs | MISSING = MISSING


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


PostItem = TypeAliasType("PostItem", Annotated[StrictStr, Field(pattern="^[a-z][a-z0-9_]{0,63}$")])


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
        Field(
            description="Run the frozen reference model (the `log_probability` sub-job) instead of the policy."
        ),
    ] = False


class ModelOutputs(BaseModel):
    """
    Per-token outputs of a forward-no-grad, shape `[B, T]` (shifted convention: column `i`
    scores `input_ids[:, i + 1]`, the last column is zero). Sent back as a per-token input
    they must first be token-aligned (`TrainBatch`, `x-token-layout`).

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
    vLLM-style sampling settings; other engine parameters (`x-engine-fields`) pass through
    to the engine. A key the engine does not know is fatal today: the request is refused.
    Fields vLLM types as optional may be null (the engine's default). There is no `n`
    today: n samples mean sending the prompt n times.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    max_tokens: Annotated[
        StrictInt | None | MISSING,
        Field(description="Most tokens to generate.", ge=1),
        IntegralFloatAsInt,
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
        StrictInt | MISSING,
        Field(
            description="Completions per prompt<!-- proposed:start --> (at most 64, see the proposed limits)<!-- proposed:end -->.",
            ge=1,
        ),
        IntegralFloatAsInt,
    ] = MISSING
    stop: Annotated[list[StrictStr] | None | MISSING, Field(description="Stop strings.")] = MISSING
    seed: Annotated[
        StrictInt | None | MISSING, Field(description="Per-request seed."), IntegralFloatAsInt
    ] = MISSING
    logprobs: Annotated[
        StrictInt | None | MISSING,
        Field(
            description="Also return this many log-probabilities per generated token (see `GenerationOutput.logprobs`).",
            ge=0,
        ),
        IntegralFloatAsInt,
    ] = MISSING


class GenerateRequest(BaseModel):
    """
    The value inside a generate frame (and the JSON body of generate-stream).
    """

    prompts: Annotated[
        list[Prompt],
        Field(
            description="Prompts as text and/or token-id lists<!-- proposed:start --> (at most 1024, see the proposed limits)<!-- proposed:end -->.",
            min_length=1,
        ),
    ]
    sampling_params: Annotated[
        SamplingParams | list[SamplingParams | None] | MISSING,
        Field(
            description="One object for every prompt, or a list aligned with `prompts` whose entries may be null (engine defaults)."
        ),
    ] = MISSING
    routing_key: Annotated[
        StrictStr | list[StrictStr | None] | MISSING,
        Field(
            description="One key for every prompt, or a list aligned with `prompts` whose entries may be null."
        ),
    ] = MISSING
    strict: Annotated[
        StrictBool,
        Field(
            description="Strict routing-key affinity (requests with the same key must stay on the same replica)."
        ),
    ] = False


TokenId = TypeAliasType("TokenId", Annotated[StrictInt, Field(ge=0), IntegralFloatAsInt])


class GenerationOutput(BaseModel):
    """
    One completion; the backend can add fields such as log-probabilities or action masks.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    text: Annotated[StrictStr | MISSING, Field(description="The completion text.")] = MISSING
    token_ids: Annotated[
        list[TokenId] | MISSING, Field(description="The completion's token ids.")
    ] = MISSING
    finish_reason: Annotated[
        StrictStr | MISSING,
        Field(description="Why generation stopped (`stop`, `length`, `abort`)."),
    ] = MISSING
    logprobs: Annotated[
        list[dict[str, StrictFloat] | StrictFloat] | MISSING,
        Field(
            description="One entry per generated token: a dict from token id, **as a string**, to its\nlog-probability (the sampled token's entry among them). Read the sampled token's\nlog-prob by its id, never by position in the dict.\n"
        ),
    ] = MISSING


class GenerateResult(BaseModel):
    """
    The value inside a generate result frame; `results` follows the order of `prompts`.
    """

    job_id: JobId | MISSING = MISSING
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


class PeakMemory(BaseModel):
    """
    Per-step peak memory in bytes, present when the training config sets
    `step_peak_memory_log`: `gpu_peak` is the job-wide GPU high-water mark across ranks for
    this forward-backward plus step cycle, `cpu_peak` rank 0's process RSS.

    """

    gpu_peak: Annotated[StrictInt, Field(description="Bytes.", ge=0), IntegralFloatAsInt]
    cpu_peak: Annotated[StrictInt, Field(description="Bytes.", ge=0), IntegralFloatAsInt]


class SaveResult(BaseModel):
    """
    The JSON result of `save_checkpoint`; its `checkpoint_id` is authoritative. Consumers use the fields present.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    checkpoint_id: CheckpointId
    checkpoint_path: Annotated[
        StrictStr | MISSING, Field(description="Where the service stored it.")
    ] = MISSING
    checkpoint_tag: Annotated[
        StrictStr | MISSING, Field(description="The trainer's tag for it.")
    ] = MISSING


class LoadResult(BaseModel):
    """
    The JSON result of `load_checkpoint`; the `checkpoint_id` and backend load metadata (open).
    """

    model_config = ConfigDict(
        extra="allow",
    )
    checkpoint_id: CheckpointId


class SyncWeightsResult(BaseModel):
    """
    The JSON result of the proposed `sync_weights` route.
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
    An error body, in one of today's two shapes: `{message, code}` with an integer code
    (the chunk-group errors carry a string code), or FastAPI's validation body
    `{detail: [...]}`. An older missing-chunks answer is `{chunk_group_id, message}`. Open:
    servers may add fields.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    message: Annotated[
        StrictStr | MISSING,
        Field(description="Human-readable; never contains credentials."),
    ] = MISSING
    code: Annotated[
        StrictInt | StrictStr | MISSING,
        Field(
            description="Today an integer (for example 409), or one of the chunk-group codes\n`chunk_group_restart_required`, `chunk_group_conflict`,\n`chunk_group_missing_chunks`.<!-- proposed:start --> The proposed stable string code\ntravels beside it, in `error_code`.<!-- proposed:end -->\n"
        ),
        IntegralFloatAsInt,
    ] = MISSING
    detail: Annotated[
        list[ValidationIssue] | MISSING,
        Field(description="FastAPI validation problems, one per offending value."),
    ] = MISSING
    chunk_group_id: ChunkGroupId | MISSING = MISSING
    error_code: ErrorCode | MISSING = MISSING
    request_id: Annotated[
        StrictStr | MISSING,
        Field(
            description="The `x-snowflake-request-id` of the failed exchange.",
            pattern="^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$",
        ),
    ] = MISSING
    details: Annotated[
        list[ValidationIssue] | MISSING,
        Field(
            description="One entry per problem (validation errors, missing chunk indexes), with the string codes."
        ),
    ] = MISSING
    missing_chunk_count: Annotated[
        StrictInt | MISSING,
        Field(
            description="On `chunk_group_missing_chunks`: how many chunks the group still lacks. `details` lists\nat most the first 64 of them, so a client resends everything when this is larger.\n",
            ge=1,
        ),
        IntegralFloatAsInt,
    ] = MISSING
    expired_request_id: Annotated[
        RequestId | MISSING,
        Field(description="On `request_expired`, the data-plane request whose result was pruned."),
    ] = MISSING


class TrainingConfig(BaseModel):
    """
    Training settings. Only `max_seq_len` and `n_gpus` are needed; the service's own typed
    client also insists on `optimizer` and `train_batch_size`, the service does not (the
    published arctic-platform client sends them only when its DeepSpeed config has them).
    Keys not listed here pass through to the trainer unchanged (`model_provider`,
    `ep_size`, `peft_config`, `step_peak_memory_log`, ...).

    Rules a job meets at model load (`x-model-load`; the job goes `failed` with the
    reason): the image ships FlashAttention 3 only, so `attn_implementation`, when given,
    is `flash_attention_3` (FA2 fails at model load); DeepSpeed requires
    `ds_config.train_batch_size == train_micro_batch_size_per_gpu x
    gradient_accumulation_steps x data-parallel size` (`n_gpus / sp_size`); and
    `ds_config.zero_optimization` carries no `offload_optimizer` key at all (even
    `{device: none}` makes DeepSpeed build CPUAdam, which then fails).

    """

    model_config = ConfigDict(
        extra="allow",
    )
    optimizer: OptimizerConfig | MISSING = MISSING
    max_seq_len: Annotated[
        StrictInt,
        Field(description="Longest sequence (prompt plus response) in tokens.", ge=1),
        IntegralFloatAsInt,
    ]
    train_batch_size: Annotated[
        StrictInt | MISSING,
        Field(description="Sequences per optimizer step.", ge=1),
        IntegralFloatAsInt,
    ] = MISSING
    n_gpus: Annotated[
        StrictInt, Field(description="GPUs for this sub-job.", ge=1), IntegralFloatAsInt
    ]
    gradient_clipping: Annotated[
        StrictFloat | MISSING, Field(description="Global gradient-norm clip.")
    ] = MISSING
    load_optimizer_states: Annotated[
        StrictBool | MISSING,
        Field(
            description="Whether resuming a `resumable` checkpoint restores optimizer state too (server default true)."
        ),
    ] = MISSING
    multiplex_job_id: SubJobId | MISSING = MISSING
    attn_implementation: Annotated[
        StrictStr | MISSING,
        Field(description="The attention kernel; today's image has `flash_attention_3` only."),
    ] = MISSING
    ds_config: Annotated[
        dict[str, Any] | MISSING,
        Field(
            description="DeepSpeed settings (`train_batch_size`, `train_micro_batch_size_per_gpu`, `gradient_accumulation_steps`, `zero_optimization`, ...), passed through; see the model-load rules above."
        ),
    ] = MISSING


class SubJob(BaseModel):
    """
    One sub-job of a job, flat, with the configuration it was created with.
    """

    sub_job_id: SubJobId
    job_type: JobType
    status: JobState | MISSING = MISSING
    model_name: Annotated[
        StrictStr | MISSING, Field(description="The model this sub-job runs.")
    ] = MISSING
    training_config: TrainingConfig | MISSING = MISSING
    inference_config: InferenceConfig | MISSING = MISSING


class CheckpointExport(BaseModel):
    """
    Short-lived download links for a checkpoint's files.
    """

    checkpoint_id: CheckpointId
    files: Annotated[list[ExportedFile], Field(description="One entry per file of the checkpoint.")]
    expires_at: Annotated[
        AwareDatetime | MISSING, Field(description="When the links stop working.")
    ] = MISSING


class LogProbsRequest(BaseModel):
    """
    The body of `log_probs`.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    prompts: Annotated[
        list[Prompt],
        Field(
            description="Prompts as text or token ids, at most 1024.",
            max_length=1024,
            min_length=1,
        ),
    ]
    completions: Annotated[
        list[Prompt] | MISSING,
        Field(
            description="One completion per prompt, scored after it; absent scores the prompts alone.",
            max_length=1024,
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
    The body of `run_operation`. `operation_type` is required; `sub_job_id` and
    `sub_job_type` are optional routing hints that must agree when both are given. The
    payload depends on `operation_type` (stated as one `allOf` if/then/else chain; every
    payload is open): `forward` a `ForwardOperationPayload`, `weight-sync` a `WeightSyncPayload`,
    `bootstrap-router-replay` a `BootstrapRouterReplayPayload`, `router-replay-discard` a
    `RouterReplayDiscardPayload`, `reset-prefix-cache` a `ResetPrefixCachePayload`,
    `cancel-request` a `CancelRequestPayload`, `tail-logs` a `TailLogsPayload`.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    operation_type: OperationType
    sub_job_id: SubJobId | MISSING = MISSING
    sub_job_type: JobType | MISSING = MISSING
    payload: OperationPayload | MISSING = MISSING


class ForwardOperationResult(BaseModel):
    """
    The result of a `forward` operation: the log-probabilities as one top-level `[B, T]` tensor
    (shifted convention, rows as sent). The service may instead answer `payload_b64`, a
    DSSST1 frame holding this object.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    job_id: JobId | MISSING = MISSING
    logprobs: TensorRef | MISSING = MISSING
    payload_b64: Base64 | MISSING = MISSING


class RequestStatus(BaseModel):
    """
    One poll of a data-plane request (proto3 JSON: empty fields may be absent). `result` is
    set once `status` is a success: a JSON object for JSON results, an
    `InlineBinaryResult` for small DSSST1 results; large DSSST1 results arrive as
    `result_chunk` events instead. `error` is a string, `""` when there is none.

    """

    request_id: RequestId
    status: RequestState
    created_at: Annotated[
        AwareDatetime | MISSING, Field(description="When the request was accepted.")
    ] = MISSING
    started_at: Annotated[
        AwareDatetime | MISSING,
        Field(description="When it began to run (absent while it is `pending`)."),
    ] = MISSING
    updated_at: Annotated[AwareDatetime | MISSING, Field(description="When it last changed.")] = (
        MISSING
    )
    result: Annotated[
        InlineBinaryResult | JsonResult | None | MISSING,
        Field(description="The result, when done (see above)."),
    ] = MISSING
    error: Annotated[
        StrictStr | MISSING,
        Field(description='Why the request failed; `""` when it did not.'),
    ] = MISSING
    error_code: Annotated[
        StrictStr | MISSING,
        Field(
            description="A stable string naming why the request failed (`ErrorCode` values where they apply).",
            pattern="^[a-z][a-z0-9_]{0,63}$",
        ),
    ] = MISSING
    events: Annotated[
        list[RequestEvent] | MISSING,
        Field(description="One page of events, oldest first."),
    ] = MISSING
    next_cursor: Annotated[
        StrictStr | MISSING,
        Field(
            description='Cursor of the next result-chunk page; non-empty only while more result chunks are queued, `""` otherwise.',
            pattern="^[A-Za-z0-9_=-]{0,256}$",
        ),
    ] = MISSING


class GenerateStreamEvent(BaseModel):
    """
    One event of a generate-stream request. Common shapes: `{type: result, index, result}`
    per finished prompt, `{type: error, index, error}` per failed prompt, then
    `{type: done, completed, failed}`. Open: the backend may add fields.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    type: Annotated[StrictStr, Field(description="`result`, `error` or `done`.")]
    index: Annotated[
        StrictInt | MISSING,
        Field(description="The prompt's index (result and error events).", ge=0),
        IntegralFloatAsInt,
    ] = MISSING
    result: GenerationOutput | MISSING = MISSING
    error: Annotated[
        StrictStr | MISSING, Field(description="Why the prompt failed (error events).")
    ] = MISSING
    completed: Annotated[
        StrictInt | MISSING,
        Field(description="Prompts that finished (the done event).", ge=0),
        IntegralFloatAsInt,
    ] = MISSING
    failed: Annotated[
        StrictInt | MISSING,
        Field(description="Prompts that failed (the done event).", ge=0),
        IntegralFloatAsInt,
    ] = MISSING


class FrameOpMetadata(BaseModel):
    """
    The `op` metadata of a DSSST1 frame. Today's client puts
    `response_options: {format: dssst1, delivery: chunked}` in every request frame; chunk
    frames hold their descriptor under `request_chunk` or `result_chunk`.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    response_options: ResponseOptions | MISSING = MISSING
    request_chunk: RequestChunkDescriptor | MISSING = MISSING
    result_chunk: ChunkDescriptor | MISSING = MISSING
    router_replay: Annotated[
        Any | MISSING, Field(description="Router-replay metadata, a backend contract.")
    ] = MISSING


class ChunkFrame(BaseModel):
    """
    The value of a chunk frame: one byte range of the original frame. Its `op` metadata holds
    a `ChunkDescriptor` under `request_chunk` or `result_chunk`.

    """

    payload: TensorRef


class StepResult(BaseModel):
    """
    The JSON result of `step` (a conventional backend result, open).
    """

    global_steps: Annotated[
        StrictInt, Field(description="Optimizer steps taken so far.", ge=0), IntegralFloatAsInt
    ]
    last_lr: Annotated[
        StrictFloat | list[StrictFloat],
        Field(description="Learning rate used (a scalar or a list, depending on the backend)."),
    ]
    peak_memory: PeakMemory | MISSING = MISSING
    metrics: TrainMetrics | MISSING = MISSING


class SubJobConfig(BaseModel):
    """
    One sub-job. Exactly one of `training_config` (for `training`) or `inference_config`
    (for `sampling` and `log_probability`) must be given; the server answers 422 otherwise.
    The schema states this in `allOf`: an if/then/else on `job_type` and an `anyOf`. Other
    fields pass through.

    """

    model_config = ConfigDict(
        extra="allow",
    )
    job_type: JobType
    model_name: Annotated[
        StrictStr,
        Field(
            description="A model name the service can load (a Hugging Face id from the model cache).",
            min_length=1,
        ),
    ]
    training_config: TrainingConfig | MISSING = MISSING
    inference_config: InferenceConfig | MISSING = MISSING
    global_batch_size: Annotated[
        StrictInt | MISSING, Field(description="Top-level passthrough field."), IntegralFloatAsInt
    ] = MISSING
    dtype: Annotated[
        StrictStr | MISSING,
        Field(description="Compute dtype of the model weights (for example `bfloat16`)."),
    ] = MISSING
    seed: Annotated[
        StrictInt | MISSING,
        Field(description="Random seed for reproducible runs."),
        IntegralFloatAsInt,
    ] = MISSING
    model_post_init_: Annotated[
        list[StrictStr] | MISSING,
        Field(
            alias="model_post_init",
            description="Names the server maps to post-init hooks.",
        ),
    ] = MISSING
    source_checkpoint_info: SourceCheckpointInfo | MISSING = MISSING


class JobSummary(BaseModel):
    """
    One job in a listing (proto3 JSON; only `job_id` and `status` are always there).
    """

    job_id: JobId
    status: JobState
    reason: Annotated[
        StrictStr | None | MISSING,
        Field(description="Why the job is in this state, when the server knows."),
    ] = MISSING
    created_at: Annotated[
        AwareDatetime | MISSING, Field(description="When the job was created.")
    ] = MISSING
    updated_at: Annotated[
        AwareDatetime | MISSING, Field(description="When the job last changed state.")
    ] = MISSING
    submitted_by: Annotated[
        StrictStr | MISSING,
        Field(description="The submitting user's name; best-effort, may be absent."),
    ] = MISSING
    owner_role: Annotated[
        StrictStr | MISSING,
        Field(description="The owning role's name; best-effort, may be absent."),
    ] = MISSING
    sub_jobs: Annotated[list[SubJob] | MISSING, Field(description="The job's sub-jobs.")] = MISSING


class JobList(BaseModel):
    """
    The body of `list_jobs`.
    """

    jobs: Annotated[list[JobSummary], Field(description="The caller's jobs.")]


class Job(BaseModel):
    """
    A job and its sub-jobs (proto3 JSON; only `job_id` and `status` are always there).
    """

    job_id: JobId
    status: JobState
    reason: Annotated[
        StrictStr | None | MISSING,
        Field(
            description="Why the job is in this state (for example a placement or startup failure); often empty."
        ),
    ] = MISSING
    created_at: Annotated[
        AwareDatetime | MISSING, Field(description="When the job was created.")
    ] = MISSING
    updated_at: Annotated[
        AwareDatetime | MISSING, Field(description="When the job last changed state.")
    ] = MISSING
    image_tag: Annotated[
        StrictStr | None | MISSING,
        Field(description="The service image running the job; empty before placement."),
    ] = MISSING
    submitted_by: Annotated[
        StrictStr | MISSING,
        Field(description="The submitting user's name; best-effort, may be absent."),
    ] = MISSING
    owner_role: Annotated[
        StrictStr | MISSING,
        Field(description="The owning role's name; best-effort, may be absent."),
    ] = MISSING
    sub_jobs: Annotated[
        list[SubJob] | MISSING, Field(description="One entry per sub-job config.")
    ] = MISSING


ChunkAnswer = TypeAliasType(
    "ChunkAnswer",
    Annotated[
        ChunkAccepted | RequestStatus,
        Field(
            description="A chunk route's `200`: a non-final chunk stored (`ChunkAccepted`), or the finished\nrequest of a final chunk sent with `wait_s` (`RequestStatus`; it alone has `request_id`).\n",
            examples=[
                {
                    "job_id": "job-7f3a9c2e",
                    "chunk_group_id": "0c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f",
                    "chunk_idx": 0,
                    "received_chunks": 1,
                    "total_chunks": 3,
                },
                {
                    "request_id": "req-5d8e1f00",
                    "status": "done",
                    "created_at": "2026-11-29T17:05:00Z",
                    "updated_at": "2026-11-29T17:05:02Z",
                    "result": {"global_steps": 12, "last_lr": 2e-05},
                    "error": "",
                    "events": [],
                    "next_cursor": "",
                },
            ],
        ),
    ],
)


class CreateJobRequest(BaseModel):
    """
    The body of `create_job`; open (unknown fields are ignored, an internal `debug` block is gated by the server).
    """

    model_config = ConfigDict(
        extra="allow",
    )
    sub_job_configs: Annotated[
        list[SubJobConfig],
        Field(description="One entry per sub-job; at least one.", min_length=1),
    ]
    experiment_name: Annotated[
        StrictStr | MISSING, Field(description="The experiment to record the run in.")
    ] = MISSING
