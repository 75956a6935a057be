# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="InferenceConfig")


@_attrs_define
class InferenceConfig:
    """Sampling or log-probability settings; keys not listed here pass through to the engine unchanged (`vllm_config`,
    `peft_config`, ...).

        Attributes:
            max_seq_len (int): Longest sequence (prompt plus completion) in tokens.
            n_gpus (int): GPUs for this sub-job.
            multiplex_job_id (str | Unset): `{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but
                `log_probability` as a job type.
    """

    max_seq_len: int
    n_gpus: int
    multiplex_job_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_seq_len = self.max_seq_len

        n_gpus = self.n_gpus

        multiplex_job_id = self.multiplex_job_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "max_seq_len": max_seq_len,
                "n_gpus": n_gpus,
            }
        )
        if multiplex_job_id is not UNSET:
            field_dict["multiplex_job_id"] = multiplex_job_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        max_seq_len = d.pop("max_seq_len")

        n_gpus = d.pop("n_gpus")

        multiplex_job_id = d.pop("multiplex_job_id", UNSET)

        inference_config = cls(
            max_seq_len=max_seq_len,
            n_gpus=n_gpus,
            multiplex_job_id=multiplex_job_id,
        )

        inference_config.additional_properties = d
        return inference_config

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
