# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.optimizer_config import OptimizerConfig


T = TypeVar("T", bound="TrainingConfig")


@_attrs_define
class TrainingConfig:
    """Training settings; keys not listed here pass through to the trainer unchanged.

    Attributes:
        optimizer (OptimizerConfig): Optimizer settings passed to the trainer as given (`type`, `lr`, betas, ...); not
            empty.
        max_seq_len (int): Longest sequence (prompt plus response) in tokens.
        train_batch_size (int): Sequences per forward-backward call.
        n_gpus (int): GPUs for this sub-job.
        gradient_clipping (float | Unset): Global gradient-norm clip; absent means no clipping.
        load_optimizer_states (bool | Unset): Whether loading a checkpoint restores optimizer state too.
    """

    optimizer: OptimizerConfig
    max_seq_len: int
    train_batch_size: int
    n_gpus: int
    gradient_clipping: float | Unset = UNSET
    load_optimizer_states: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        optimizer = self.optimizer.to_dict()

        max_seq_len = self.max_seq_len

        train_batch_size = self.train_batch_size

        n_gpus = self.n_gpus

        gradient_clipping = self.gradient_clipping

        load_optimizer_states = self.load_optimizer_states

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "optimizer": optimizer,
                "max_seq_len": max_seq_len,
                "train_batch_size": train_batch_size,
                "n_gpus": n_gpus,
            }
        )
        if gradient_clipping is not UNSET:
            field_dict["gradient_clipping"] = gradient_clipping
        if load_optimizer_states is not UNSET:
            field_dict["load_optimizer_states"] = load_optimizer_states

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.optimizer_config import OptimizerConfig  # noqa: PLC0415

        d = dict(src_dict)
        optimizer = OptimizerConfig.from_dict(d.pop("optimizer"))

        max_seq_len = d.pop("max_seq_len")

        train_batch_size = d.pop("train_batch_size")

        n_gpus = d.pop("n_gpus")

        gradient_clipping = d.pop("gradient_clipping", UNSET)

        load_optimizer_states = d.pop("load_optimizer_states", UNSET)

        training_config = cls(
            optimizer=optimizer,
            max_seq_len=max_seq_len,
            train_batch_size=train_batch_size,
            n_gpus=n_gpus,
            gradient_clipping=gradient_clipping,
            load_optimizer_states=load_optimizer_states,
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
