# generated from openapi/cortex_gs.yaml by make generate; do not edit
"""Contains all the data models used in inputs/outputs"""

from .accepted_request import AcceptedRequest
from .capacity import Capacity
from .checkpoint import Checkpoint
from .checkpoint_list import CheckpointList
from .checkpoint_type import CheckpointType
from .chunk_accepted import ChunkAccepted
from .chunk_descriptor import ChunkDescriptor
from .chunk_frame import ChunkFrame
from .create_job_request import CreateJobRequest
from .create_job_response import CreateJobResponse
from .error import Error
from .forward_backward_batch import ForwardBackwardBatch
from .forward_backward_batch_meta import ForwardBackwardBatchMeta
from .forward_backward_result import ForwardBackwardResult
from .forward_inputs import ForwardInputs
from .forward_no_grad_batch import ForwardNoGradBatch
from .forward_no_grad_batch_meta import ForwardNoGradBatchMeta
from .forward_no_grad_batch_processing import ForwardNoGradBatchProcessing
from .forward_no_grad_result import ForwardNoGradResult
from .forward_no_grad_result_metrics import ForwardNoGradResultMetrics
from .generate_request import GenerateRequest
from .generate_result import GenerateResult
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
from .model_outputs import ModelOutputs
from .operation_request import OperationRequest
from .operation_request_payload import OperationRequestPayload
from .operation_result import OperationResult
from .operation_result_result import OperationResultResult
from .post_process_outputs import PostProcessOutputs
from .processing import Processing
from .processing_config import ProcessingConfig
from .request_event import RequestEvent
from .request_state import RequestState
from .request_status import RequestStatus
from .sampling_params import SamplingParams
from .save_request import SaveRequest
from .save_result import SaveResult
from .source_checkpoint_info import SourceCheckpointInfo
from .step_request import StepRequest
from .step_result import StepResult
from .sub_job import SubJob
from .sub_job_config import SubJobConfig
from .sync_weights_request import SyncWeightsRequest
from .sync_weights_result import SyncWeightsResult
from .tensor_ref import TensorRef
from .tensor_ref_dtype import TensorRefDtype
from .train_batch import TrainBatch
from .train_metrics import TrainMetrics
from .training_config import TrainingConfig
from .training_config_optimizer import TrainingConfigOptimizer
from .validation_issue import ValidationIssue
from .weight_format import WeightFormat

__all__ = (
    "AcceptedRequest",
    "Capacity",
    "Checkpoint",
    "CheckpointList",
    "CheckpointType",
    "ChunkAccepted",
    "ChunkDescriptor",
    "ChunkFrame",
    "CreateJobRequest",
    "CreateJobResponse",
    "Error",
    "ForwardBackwardBatch",
    "ForwardBackwardBatchMeta",
    "ForwardBackwardResult",
    "ForwardInputs",
    "ForwardNoGradBatch",
    "ForwardNoGradBatchMeta",
    "ForwardNoGradBatchProcessing",
    "ForwardNoGradResult",
    "ForwardNoGradResultMetrics",
    "GenerateRequest",
    "GenerateResult",
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
    "ModelOutputs",
    "OperationRequest",
    "OperationRequestPayload",
    "OperationResult",
    "OperationResultResult",
    "PostProcessOutputs",
    "Processing",
    "ProcessingConfig",
    "RequestEvent",
    "RequestState",
    "RequestStatus",
    "SamplingParams",
    "SaveRequest",
    "SaveResult",
    "SourceCheckpointInfo",
    "StepRequest",
    "StepResult",
    "SubJob",
    "SubJobConfig",
    "SyncWeightsRequest",
    "SyncWeightsResult",
    "TensorRef",
    "TensorRefDtype",
    "TrainBatch",
    "TrainingConfig",
    "TrainingConfigOptimizer",
    "TrainMetrics",
    "ValidationIssue",
    "WeightFormat",
)
