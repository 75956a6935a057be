# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

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
    The schema states this in `allOf`: an if/then/else on `job_type` and an `anyOf`. Other
    fields pass through.

        Attributes:
            job_type (JobType): What a sub-job does.
            model_name (str): A model name the service can load (a Hugging Face id from the model cache).
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
            global_batch_size (int | Unset): Top-level passthrough field.
            dtype (str | Unset): Compute dtype of the model weights (for example `bfloat16`).
            seed (int | Unset): Random seed for reproducible runs.
            model_post_init (list[str] | Unset): Names the server maps to post-init hooks.
            source_checkpoint_info (SourceCheckpointInfo | Unset): Start the sub-job from a saved checkpoint, possibly one
                of another job (the server stamps stage credentials itself).
    """

    job_type: JobType
    model_name: str
    training_config: TrainingConfig | Unset = UNSET
    inference_config: InferenceConfig | Unset = UNSET
    global_batch_size: int | Unset = UNSET
    dtype: str | Unset = UNSET
    seed: int | Unset = UNSET
    model_post_init: list[str] | Unset = UNSET
    source_checkpoint_info: SourceCheckpointInfo | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

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

        model_post_init: list[str] | Unset = UNSET
        if not isinstance(self.model_post_init, Unset):
            model_post_init = self.model_post_init

        source_checkpoint_info: dict[str, Any] | Unset = UNSET
        if not isinstance(self.source_checkpoint_info, Unset):
            source_checkpoint_info = self.source_checkpoint_info.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
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
        if model_post_init is not UNSET:
            field_dict["model_post_init"] = model_post_init
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

        model_post_init = cast(list[str], d.pop("model_post_init", UNSET))

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
            model_post_init=model_post_init,
            source_checkpoint_info=source_checkpoint_info,
        )

        sub_job_config.additional_properties = d
        return sub_job_config

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
