# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.optimizer_config import OptimizerConfig
    from ..models.training_config_ds_config import TrainingConfigDsConfig


T = TypeVar("T", bound="TrainingConfig")


@_attrs_define
class TrainingConfig:
    """Training settings. Only `max_seq_len` and `n_gpus` are needed; the service's own typed
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

        Attributes:
            max_seq_len (int): Longest sequence (prompt plus response) in tokens.
            n_gpus (int): GPUs for this sub-job.
            optimizer (OptimizerConfig | Unset): Optimizer settings passed to the trainer as given (`name`, `lr`, betas,
                ...); not empty.
            train_batch_size (int | Unset): Sequences per optimizer step.
            gradient_clipping (float | Unset): Global gradient-norm clip.
            load_optimizer_states (bool | Unset): Whether resuming a `resumable` checkpoint restores optimizer state too
                (server default true).
            multiplex_job_id (str | Unset): `{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but
                `log_probability` as a job type.
            attn_implementation (str | Unset): The attention kernel; today's image has `flash_attention_3` only.
            ds_config (TrainingConfigDsConfig | Unset): DeepSpeed settings (`train_batch_size`,
                `train_micro_batch_size_per_gpu`, `gradient_accumulation_steps`, `zero_optimization`, ...), passed through; see
                the model-load rules above.
    """

    max_seq_len: int
    n_gpus: int
    optimizer: OptimizerConfig | Unset = UNSET
    train_batch_size: int | Unset = UNSET
    gradient_clipping: float | Unset = UNSET
    load_optimizer_states: bool | Unset = UNSET
    multiplex_job_id: str | Unset = UNSET
    attn_implementation: str | Unset = UNSET
    ds_config: TrainingConfigDsConfig | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_seq_len = self.max_seq_len

        n_gpus = self.n_gpus

        optimizer: dict[str, Any] | Unset = UNSET
        if not isinstance(self.optimizer, Unset):
            optimizer = self.optimizer.to_dict()

        train_batch_size = self.train_batch_size

        gradient_clipping = self.gradient_clipping

        load_optimizer_states = self.load_optimizer_states

        multiplex_job_id = self.multiplex_job_id

        attn_implementation = self.attn_implementation

        ds_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.ds_config, Unset):
            ds_config = self.ds_config.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "max_seq_len": max_seq_len,
                "n_gpus": n_gpus,
            }
        )
        if optimizer is not UNSET:
            field_dict["optimizer"] = optimizer
        if train_batch_size is not UNSET:
            field_dict["train_batch_size"] = train_batch_size
        if gradient_clipping is not UNSET:
            field_dict["gradient_clipping"] = gradient_clipping
        if load_optimizer_states is not UNSET:
            field_dict["load_optimizer_states"] = load_optimizer_states
        if multiplex_job_id is not UNSET:
            field_dict["multiplex_job_id"] = multiplex_job_id
        if attn_implementation is not UNSET:
            field_dict["attn_implementation"] = attn_implementation
        if ds_config is not UNSET:
            field_dict["ds_config"] = ds_config

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.optimizer_config import OptimizerConfig  # noqa: PLC0415
        from ..models.training_config_ds_config import TrainingConfigDsConfig  # noqa: PLC0415

        d = dict(src_dict)
        max_seq_len = d.pop("max_seq_len")

        n_gpus = d.pop("n_gpus")

        _optimizer = d.pop("optimizer", UNSET)
        optimizer: OptimizerConfig | Unset
        if isinstance(_optimizer, Unset):
            optimizer = UNSET
        else:
            optimizer = OptimizerConfig.from_dict(_optimizer)

        train_batch_size = d.pop("train_batch_size", UNSET)

        gradient_clipping = d.pop("gradient_clipping", UNSET)

        load_optimizer_states = d.pop("load_optimizer_states", UNSET)

        multiplex_job_id = d.pop("multiplex_job_id", UNSET)

        attn_implementation = d.pop("attn_implementation", UNSET)

        _ds_config = d.pop("ds_config", UNSET)
        ds_config: TrainingConfigDsConfig | Unset
        if isinstance(_ds_config, Unset):
            ds_config = UNSET
        else:
            ds_config = TrainingConfigDsConfig.from_dict(_ds_config)

        training_config = cls(
            max_seq_len=max_seq_len,
            n_gpus=n_gpus,
            optimizer=optimizer,
            train_batch_size=train_batch_size,
            gradient_clipping=gradient_clipping,
            load_optimizer_states=load_optimizer_states,
            multiplex_job_id=multiplex_job_id,
            attn_implementation=attn_implementation,
            ds_config=ds_config,
        )

        training_config.additional_properties = d
        return training_config

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
