# generated from openapi/cortex_gs.yaml by make generate; do not edit
"""Contains all the data models used in inputs/outputs"""

from .accepted_request import AcceptedRequest
from .batch_meta import BatchMeta
from .bootstrap_router_replay_payload import BootstrapRouterReplayPayload
from .cancel_request_payload import CancelRequestPayload
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
from .frame_op_metadata import FrameOpMetadata
from .generate_request import GenerateRequest
from .generate_result import GenerateResult
from .generate_stream_accepted import GenerateStreamAccepted
from .generate_stream_event import GenerateStreamEvent
from .generation_output import GenerationOutput
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
from .validation_issue import ValidationIssue
from .weight_format import WeightFormat
from .weight_sync_payload import WeightSyncPayload

__all__ = (
    "AcceptedRequest",
    "BatchMeta",
    "BootstrapRouterReplayPayload",
    "CancelRequestPayload",
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
    "FrameOpMetadata",
    "GenerateRequest",
    "GenerateResult",
    "GenerateStreamAccepted",
    "GenerateStreamEvent",
    "GenerationOutput",
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
    "TrainMetrics",
    "ValidationIssue",
    "WeightFormat",
    "WeightSyncPayload",
)
