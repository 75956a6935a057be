# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.weight_format import WeightFormat
from ..types import UNSET, Unset

T = TypeVar("T", bound="SyncWeightsRequest")


@_attrs_define
class SyncWeightsRequest:
    """The body of the proposed `sync_weights` route only; `{}` uses the defaults.

    Attributes:
        source_sub_job_id (str | Unset): `{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but
            `log_probability` as a job type.
        target_sub_job_ids (list[str] | Unset): Sub-jobs to update; absent means every sampling and log-probability sub-
            job.
        weight_format (WeightFormat | Unset): Layout of weights pushed to sampling sub-jobs (`vllm` is the server
            default; `lora` sends only the adapter).
    """

    source_sub_job_id: str | Unset = UNSET
    target_sub_job_ids: list[str] | Unset = UNSET
    weight_format: WeightFormat | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        source_sub_job_id = self.source_sub_job_id

        target_sub_job_ids: list[str] | Unset = UNSET
        if not isinstance(self.target_sub_job_ids, Unset):
            target_sub_job_ids = self.target_sub_job_ids

        weight_format: str | Unset = UNSET
        if not isinstance(self.weight_format, Unset):
            weight_format = self.weight_format.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if source_sub_job_id is not UNSET:
            field_dict["source_sub_job_id"] = source_sub_job_id
        if target_sub_job_ids is not UNSET:
            field_dict["target_sub_job_ids"] = target_sub_job_ids
        if weight_format is not UNSET:
            field_dict["weight_format"] = weight_format

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

        sync_weights_request = cls(
            source_sub_job_id=source_sub_job_id,
            target_sub_job_ids=target_sub_job_ids,
            weight_format=weight_format,
        )

        return sync_weights_request
