# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.job_type import JobType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.inference_config import InferenceConfig
    from ..models.source_checkpoint_info import SourceCheckpointInfo
    from ..models.training_config import TrainingConfig


T = TypeVar("T", bound="SubJobConfig")


@_attrs_define
class SubJobConfig:
    """One sub-job. Exactly one of `training_config` (for `training`) or `inference_config`
    (for `sampling` and `log_probability`) must be given; the server answers 422 otherwise.
    The schema states this in `allOf`: an if/then/else on `job_type` and an `anyOf`.

        Attributes:
            job_type (JobType): What a sub-job does.
            model_name (str): A model name the service can load (a Hugging Face id or a stage path).
            training_config (TrainingConfig | Unset): Training settings; keys not listed here pass through to the trainer
                unchanged.
            inference_config (InferenceConfig | Unset): Sampling or log-probability settings; keys not listed here pass
                through to the engine unchanged.
            global_batch_size (int | Unset): Samples per optimizer step across all GPUs.
            dtype (str | Unset): Compute dtype of the model weights.
            seed (int | Unset): Random seed for reproducible runs.
            source_checkpoint_info (SourceCheckpointInfo | Unset): Start the sub-job from a checkpoint, possibly one of
                another job.
    """

    job_type: JobType
    model_name: str
    training_config: TrainingConfig | Unset = UNSET
    inference_config: InferenceConfig | Unset = UNSET
    global_batch_size: int | Unset = UNSET
    dtype: str | Unset = UNSET
    seed: int | Unset = UNSET
    source_checkpoint_info: SourceCheckpointInfo | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        job_type = self.job_type.value

        model_name = self.model_name

        training_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.training_config, Unset):
            training_config = self.training_config.to_dict()

        inference_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.inference_config, Unset):
            inference_config = self.inference_config.to_dict()

        global_batch_size = self.global_batch_size

        dtype = self.dtype

        seed = self.seed

        source_checkpoint_info: dict[str, Any] | Unset = UNSET
        if not isinstance(self.source_checkpoint_info, Unset):
            source_checkpoint_info = self.source_checkpoint_info.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "job_type": job_type,
                "model_name": model_name,
            }
        )
        if training_config is not UNSET:
            field_dict["training_config"] = training_config
        if inference_config is not UNSET:
            field_dict["inference_config"] = inference_config
        if global_batch_size is not UNSET:
            field_dict["global_batch_size"] = global_batch_size
        if dtype is not UNSET:
            field_dict["dtype"] = dtype
        if seed is not UNSET:
            field_dict["seed"] = seed
        if source_checkpoint_info is not UNSET:
            field_dict["source_checkpoint_info"] = source_checkpoint_info

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.inference_config import InferenceConfig  # noqa: PLC0415
        from ..models.source_checkpoint_info import SourceCheckpointInfo  # noqa: PLC0415
        from ..models.training_config import TrainingConfig  # noqa: PLC0415

        d = dict(src_dict)
        job_type = JobType(d.pop("job_type"))

        model_name = d.pop("model_name")

        _training_config = d.pop("training_config", UNSET)
        training_config: TrainingConfig | Unset
        if isinstance(_training_config, Unset):
            training_config = UNSET
        else:
            training_config = TrainingConfig.from_dict(_training_config)

        _inference_config = d.pop("inference_config", UNSET)
        inference_config: InferenceConfig | Unset
        if isinstance(_inference_config, Unset):
            inference_config = UNSET
        else:
            inference_config = InferenceConfig.from_dict(_inference_config)

        global_batch_size = d.pop("global_batch_size", UNSET)

        dtype = d.pop("dtype", UNSET)

        seed = d.pop("seed", UNSET)

        _source_checkpoint_info = d.pop("source_checkpoint_info", UNSET)
        source_checkpoint_info: SourceCheckpointInfo | Unset
        if isinstance(_source_checkpoint_info, Unset):
            source_checkpoint_info = UNSET
        else:
            source_checkpoint_info = SourceCheckpointInfo.from_dict(_source_checkpoint_info)

        sub_job_config = cls(
            job_type=job_type,
            model_name=model_name,
            training_config=training_config,
            inference_config=inference_config,
            global_batch_size=global_batch_size,
            dtype=dtype,
            seed=seed,
            source_checkpoint_info=source_checkpoint_info,
        )

        return sub_job_config
