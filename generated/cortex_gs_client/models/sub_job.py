# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_state import JobState
from ..models.job_type import JobType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.inference_config import InferenceConfig
    from ..models.training_config import TrainingConfig


T = TypeVar("T", bound="SubJob")


@_attrs_define
class SubJob:
    """One sub-job of a job, flat, with the configuration it was created with.

    Attributes:
        sub_job_id (str): `{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but `log_probability` as
            a job type.
        job_type (JobType): What a sub-job does.
        status (JobState | Unset): A job's customer-facing state. `cancelled`, `terminated` and `failed` are terminal;
            `initializing` (placed, warming up) is neither running nor terminal. Legacy or internal
            answers can also hold `done`, `unknown` or enum names such as `JOB_STATE_RUNNING`;
            clients lowercase and drop the `JOB_STATE_` prefix.
        model_name (str | Unset): The model this sub-job runs.
        training_config (TrainingConfig | Unset): Training settings. Only `max_seq_len` and `n_gpus` are needed; the
            service's own typed
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
        inference_config (InferenceConfig | Unset): Sampling or log-probability settings; keys not listed here pass
            through to the engine unchanged (`vllm_config`, `peft_config`, ...).
    """

    sub_job_id: str
    job_type: JobType
    status: JobState | Unset = UNSET
    model_name: str | Unset = UNSET
    training_config: TrainingConfig | Unset = UNSET
    inference_config: InferenceConfig | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        sub_job_id = self.sub_job_id

        job_type = self.job_type.value

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        model_name = self.model_name

        training_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.training_config, Unset):
            training_config = self.training_config.to_dict()

        inference_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.inference_config, Unset):
            inference_config = self.inference_config.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "sub_job_id": sub_job_id,
                "job_type": job_type,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status
        if model_name is not UNSET:
            field_dict["model_name"] = model_name
        if training_config is not UNSET:
            field_dict["training_config"] = training_config
        if inference_config is not UNSET:
            field_dict["inference_config"] = inference_config

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.inference_config import InferenceConfig  # noqa: PLC0415
        from ..models.training_config import TrainingConfig  # noqa: PLC0415

        d = dict(src_dict)
        sub_job_id = d.pop("sub_job_id")

        job_type = JobType(d.pop("job_type"))

        _status = d.pop("status", UNSET)
        status: JobState | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = JobState(_status)

        model_name = d.pop("model_name", UNSET)

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

        sub_job = cls(
            sub_job_id=sub_job_id,
            job_type=job_type,
            status=status,
            model_name=model_name,
            training_config=training_config,
            inference_config=inference_config,
        )

        sub_job.additional_properties = d
        return sub_job

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
