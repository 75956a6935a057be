# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.weight_format import WeightFormat
from ..types import UNSET, Unset

T = TypeVar("T", bound="WeightSyncPayload")


@_attrs_define
class WeightSyncPayload:
    """The payload of the `weight-sync` operation, open: today's client adds `cuda_ipc` and
    `low_memory` (colocated strategies, which Cortex does not use) and the service ignores
    what it does not use.

        Attributes:
            source_sub_job_id (str | Unset): `{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but
                `log_probability` as a job type.
            target_sub_job_ids (list[str] | Unset): Sub-jobs to update.
            weight_format (WeightFormat | Unset): Layout of weights pushed to sampling sub-jobs (`vllm` is the server
                default; `lora` sends only the adapter).
            cuda_ipc (bool | Unset): Colocated zero-copy sync; sent by today's client, not used on Cortex.
            low_memory (bool | Unset): Colocated one-parameter-at-a-time sync; sent by today's client, not used on Cortex.
    """

    source_sub_job_id: str | Unset = UNSET
    target_sub_job_ids: list[str] | Unset = UNSET
    weight_format: WeightFormat | Unset = UNSET
    cuda_ipc: bool | Unset = UNSET
    low_memory: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        source_sub_job_id = self.source_sub_job_id

        target_sub_job_ids: list[str] | Unset = UNSET
        if not isinstance(self.target_sub_job_ids, Unset):
            target_sub_job_ids = self.target_sub_job_ids

        weight_format: str | Unset = UNSET
        if not isinstance(self.weight_format, Unset):
            weight_format = self.weight_format.value

        cuda_ipc = self.cuda_ipc

        low_memory = self.low_memory

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if source_sub_job_id is not UNSET:
            field_dict["source_sub_job_id"] = source_sub_job_id
        if target_sub_job_ids is not UNSET:
            field_dict["target_sub_job_ids"] = target_sub_job_ids
        if weight_format is not UNSET:
            field_dict["weight_format"] = weight_format
        if cuda_ipc is not UNSET:
            field_dict["cuda_ipc"] = cuda_ipc
        if low_memory is not UNSET:
            field_dict["low_memory"] = low_memory

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        source_sub_job_id = d.pop("source_sub_job_id", UNSET)

        target_sub_job_ids = cast(list[str], d.pop("target_sub_job_ids", UNSET))

        _weight_format = d.pop("weight_format", UNSET)
        weight_format: WeightFormat | Unset
        if isinstance(_weight_format, Unset):
            weight_format = UNSET
        else:
            weight_format = WeightFormat(_weight_format)

        cuda_ipc = d.pop("cuda_ipc", UNSET)

        low_memory = d.pop("low_memory", UNSET)

        weight_sync_payload = cls(
            source_sub_job_id=source_sub_job_id,
            target_sub_job_ids=target_sub_job_ids,
            weight_format=weight_format,
            cuda_ipc=cuda_ipc,
            low_memory=low_memory,
        )

        weight_sync_payload.additional_properties = d
        return weight_sync_payload

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
