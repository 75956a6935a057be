# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.weight_format import WeightFormat

T = TypeVar("T", bound="SyncWeightsResult")


@_attrs_define
class SyncWeightsResult:
    """The JSON result of the proposed `sync_weights` route.

    Attributes:
        synced_sub_job_ids (list[str]): Sub-jobs that now hold the new weights.
        weight_format (WeightFormat): Layout of weights pushed to sampling sub-jobs (`vllm` is the server default;
            `lora` sends only the adapter).
        version (int): Weight version, one more per sync.
    """

    synced_sub_job_ids: list[str]
    weight_format: WeightFormat
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        synced_sub_job_ids = self.synced_sub_job_ids

        weight_format = self.weight_format.value

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "synced_sub_job_ids": synced_sub_job_ids,
                "weight_format": weight_format,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        synced_sub_job_ids = cast(list[str], d.pop("synced_sub_job_ids"))

        weight_format = WeightFormat(d.pop("weight_format"))

        version = d.pop("version")

        sync_weights_result = cls(
            synced_sub_job_ids=synced_sub_job_ids,
            weight_format=weight_format,
            version=version,
        )

        sync_weights_result.additional_properties = d
        return sync_weights_result

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
