# generated from openapi/cortex_gs.yaml by make generate; do not edit
"""Contains all the data models used in inputs/outputs (each module loads on first use)"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .accepted_request import AcceptedRequest
    from .batch_meta import BatchMeta
    from .bootstrap_router_replay_payload import BootstrapRouterReplayPayload
    from .cancel_request_payload import CancelRequestPayload
    from .capabilities import Capabilities
    from .capabilities_proposals_item import CapabilitiesProposalsItem
    from .capacity import Capacity
    from .checkpoint import Checkpoint
    from .checkpoint_export import CheckpointExport
    from .checkpoint_list import CheckpointList
    from .checkpoint_type import CheckpointType
    from .chunk_accepted import ChunkAccepted
    from .chunk_descriptor import ChunkDescriptor
    from .chunk_frame import ChunkFrame
    from .create_job_request import CreateJobRequest
    from .create_job_response import CreateJobResponse
    from .error import Error
    from .error_code import ErrorCode
    from .experiment_run import ExperimentRun
    from .exported_file import ExportedFile
    from .forward_backward_batch import ForwardBackwardBatch
    from .forward_backward_context import ForwardBackwardContext
    from .forward_backward_result import ForwardBackwardResult
    from .forward_inputs import ForwardInputs
    from .forward_no_grad_batch import ForwardNoGradBatch
    from .forward_no_grad_metrics import ForwardNoGradMetrics
    from .forward_no_grad_result import ForwardNoGradResult
    from .forward_operation_payload import ForwardOperationPayload
    from .forward_operation_result import ForwardOperationResult
    from .frame_op_metadata import FrameOpMetadata
    from .generate_request import GenerateRequest
    from .generate_result import GenerateResult
    from .generate_stream_accepted import GenerateStreamAccepted
    from .generate_stream_event import GenerateStreamEvent
    from .generation_output import GenerationOutput
    from .generation_output_logprobs_item_type_0 import GenerationOutputLogprobsItemType0
    from .inference_config import InferenceConfig
    from .inline_binary_result import InlineBinaryResult
    from .job import Job
    from .job_list import JobList
    from .job_state import JobState
    from .job_summary import JobSummary
    from .job_type import JobType
    from .json_result import JsonResult
    from .load_request import LoadRequest
    from .load_result import LoadResult
    from .log_probs_request import LogProbsRequest
    from .log_probs_result import LogProbsResult
    from .loss_config import LossConfig
    from .model_kwargs import ModelKwargs
    from .model_outputs import ModelOutputs
    from .no_grad_processing import NoGradProcessing
    from .operation_answer import OperationAnswer
    from .operation_payload import OperationPayload
    from .operation_request import OperationRequest
    from .operation_type import OperationType
    from .optimizer_config import OptimizerConfig
    from .peak_memory import PeakMemory
    from .post_process_outputs import PostProcessOutputs
    from .processing import Processing
    from .request_chunk_descriptor import RequestChunkDescriptor
    from .request_event import RequestEvent
    from .request_state import RequestState
    from .request_status import RequestStatus
    from .reset_prefix_cache_payload import ResetPrefixCachePayload
    from .response_options import ResponseOptions
    from .router_replay_discard_payload import RouterReplayDiscardPayload
    from .sampling_params import SamplingParams
    from .save_request import SaveRequest
    from .save_request_stage_info import SaveRequestStageInfo
    from .save_result import SaveResult
    from .source_checkpoint_info import SourceCheckpointInfo
    from .step_request import StepRequest
    from .step_result import StepResult
    from .sub_job import SubJob
    from .sub_job_config import SubJobConfig
    from .sync_weights_request import SyncWeightsRequest
    from .sync_weights_result import SyncWeightsResult
    from .tail_logs_page import TailLogsPage
    from .tail_logs_payload import TailLogsPayload
    from .tensor_ref import TensorRef
    from .tensor_ref_dtype import TensorRefDtype
    from .train_batch import TrainBatch
    from .train_metrics import TrainMetrics
    from .training_config import TrainingConfig
    from .training_config_ds_config import TrainingConfigDsConfig
    from .validation_issue import ValidationIssue
    from .weight_format import WeightFormat
    from .weight_sync_payload import WeightSyncPayload

_MODULES = {
    "AcceptedRequest": ".accepted_request",
    "BatchMeta": ".batch_meta",
    "BootstrapRouterReplayPayload": ".bootstrap_router_replay_payload",
    "CancelRequestPayload": ".cancel_request_payload",
    "Capabilities": ".capabilities",
    "CapabilitiesProposalsItem": ".capabilities_proposals_item",
    "Capacity": ".capacity",
    "Checkpoint": ".checkpoint",
    "CheckpointExport": ".checkpoint_export",
    "CheckpointList": ".checkpoint_list",
    "CheckpointType": ".checkpoint_type",
    "ChunkAccepted": ".chunk_accepted",
    "ChunkDescriptor": ".chunk_descriptor",
    "ChunkFrame": ".chunk_frame",
    "CreateJobRequest": ".create_job_request",
    "CreateJobResponse": ".create_job_response",
    "Error": ".error",
    "ErrorCode": ".error_code",
    "ExperimentRun": ".experiment_run",
    "ExportedFile": ".exported_file",
    "ForwardBackwardBatch": ".forward_backward_batch",
    "ForwardBackwardContext": ".forward_backward_context",
    "ForwardBackwardResult": ".forward_backward_result",
    "ForwardInputs": ".forward_inputs",
    "ForwardNoGradBatch": ".forward_no_grad_batch",
    "ForwardNoGradMetrics": ".forward_no_grad_metrics",
    "ForwardNoGradResult": ".forward_no_grad_result",
    "ForwardOperationPayload": ".forward_operation_payload",
    "ForwardOperationResult": ".forward_operation_result",
    "FrameOpMetadata": ".frame_op_metadata",
    "GenerateRequest": ".generate_request",
    "GenerateResult": ".generate_result",
    "GenerateStreamAccepted": ".generate_stream_accepted",
    "GenerateStreamEvent": ".generate_stream_event",
    "GenerationOutput": ".generation_output",
    "GenerationOutputLogprobsItemType0": ".generation_output_logprobs_item_type_0",
    "InferenceConfig": ".inference_config",
    "InlineBinaryResult": ".inline_binary_result",
    "Job": ".job",
    "JobList": ".job_list",
    "JobState": ".job_state",
    "JobSummary": ".job_summary",
    "JobType": ".job_type",
    "JsonResult": ".json_result",
    "LoadRequest": ".load_request",
    "LoadResult": ".load_result",
    "LogProbsRequest": ".log_probs_request",
    "LogProbsResult": ".log_probs_result",
    "LossConfig": ".loss_config",
    "ModelKwargs": ".model_kwargs",
    "ModelOutputs": ".model_outputs",
    "NoGradProcessing": ".no_grad_processing",
    "OperationAnswer": ".operation_answer",
    "OperationPayload": ".operation_payload",
    "OperationRequest": ".operation_request",
    "OperationType": ".operation_type",
    "OptimizerConfig": ".optimizer_config",
    "PeakMemory": ".peak_memory",
    "PostProcessOutputs": ".post_process_outputs",
    "Processing": ".processing",
    "RequestChunkDescriptor": ".request_chunk_descriptor",
    "RequestEvent": ".request_event",
    "RequestState": ".request_state",
    "RequestStatus": ".request_status",
    "ResetPrefixCachePayload": ".reset_prefix_cache_payload",
    "ResponseOptions": ".response_options",
    "RouterReplayDiscardPayload": ".router_replay_discard_payload",
    "SamplingParams": ".sampling_params",
    "SaveRequest": ".save_request",
    "SaveRequestStageInfo": ".save_request_stage_info",
    "SaveResult": ".save_result",
    "SourceCheckpointInfo": ".source_checkpoint_info",
    "StepRequest": ".step_request",
    "StepResult": ".step_result",
    "SubJob": ".sub_job",
    "SubJobConfig": ".sub_job_config",
    "SyncWeightsRequest": ".sync_weights_request",
    "SyncWeightsResult": ".sync_weights_result",
    "TailLogsPage": ".tail_logs_page",
    "TailLogsPayload": ".tail_logs_payload",
    "TensorRef": ".tensor_ref",
    "TensorRefDtype": ".tensor_ref_dtype",
    "TrainBatch": ".train_batch",
    "TrainMetrics": ".train_metrics",
    "TrainingConfig": ".training_config",
    "TrainingConfigDsConfig": ".training_config_ds_config",
    "ValidationIssue": ".validation_issue",
    "WeightFormat": ".weight_format",
    "WeightSyncPayload": ".weight_sync_payload",
}

__all__ = (
    "AcceptedRequest",
    "BatchMeta",
    "BootstrapRouterReplayPayload",
    "CancelRequestPayload",
    "Capabilities",
    "CapabilitiesProposalsItem",
    "Capacity",
    "Checkpoint",
    "CheckpointExport",
    "CheckpointList",
    "CheckpointType",
    "ChunkAccepted",
    "ChunkDescriptor",
    "ChunkFrame",
    "CreateJobRequest",
    "CreateJobResponse",
    "Error",
    "ErrorCode",
    "ExperimentRun",
    "ExportedFile",
    "ForwardBackwardBatch",
    "ForwardBackwardContext",
    "ForwardBackwardResult",
    "ForwardInputs",
    "ForwardNoGradBatch",
    "ForwardNoGradMetrics",
    "ForwardNoGradResult",
    "ForwardOperationPayload",
    "ForwardOperationResult",
    "FrameOpMetadata",
    "GenerateRequest",
    "GenerateResult",
    "GenerateStreamAccepted",
    "GenerateStreamEvent",
    "GenerationOutput",
    "GenerationOutputLogprobsItemType0",
    "InferenceConfig",
    "InlineBinaryResult",
    "Job",
    "JobList",
    "JobState",
    "JobSummary",
    "JobType",
    "JsonResult",
    "LoadRequest",
    "LoadResult",
    "LogProbsRequest",
    "LogProbsResult",
    "LossConfig",
    "ModelKwargs",
    "ModelOutputs",
    "NoGradProcessing",
    "OperationAnswer",
    "OperationPayload",
    "OperationRequest",
    "OperationType",
    "OptimizerConfig",
    "PeakMemory",
    "PostProcessOutputs",
    "Processing",
    "RequestChunkDescriptor",
    "RequestEvent",
    "RequestState",
    "RequestStatus",
    "ResetPrefixCachePayload",
    "ResponseOptions",
    "RouterReplayDiscardPayload",
    "SamplingParams",
    "SaveRequest",
    "SaveRequestStageInfo",
    "SaveResult",
    "SourceCheckpointInfo",
    "StepRequest",
    "StepResult",
    "SubJob",
    "SubJobConfig",
    "SyncWeightsRequest",
    "SyncWeightsResult",
    "TailLogsPage",
    "TailLogsPayload",
    "TensorRef",
    "TensorRefDtype",
    "TrainBatch",
    "TrainingConfig",
    "TrainingConfigDsConfig",
    "TrainMetrics",
    "ValidationIssue",
    "WeightFormat",
    "WeightSyncPayload",
)


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this hook
    return value
