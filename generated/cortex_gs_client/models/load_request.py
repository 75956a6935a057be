# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LoadRequest")


@_attrs_define
class LoadRequest:
    """The body of `load_checkpoint`.

    Attributes:
        checkpoint_id (str): A checkpoint's id, as the service named it (after the global step).
        source_job_id (str | Unset): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator)
            and is never `capacity` (that route wins).
        target_sub_job_id (str | Unset): `{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but
            `log_probability` as a job type.
    """

    checkpoint_id: str
    source_job_id: str | Unset = UNSET
    target_sub_job_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoint_id = self.checkpoint_id

        source_job_id = self.source_job_id

        target_sub_job_id = self.target_sub_job_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checkpoint_id": checkpoint_id,
            }
        )
        if source_job_id is not UNSET:
            field_dict["source_job_id"] = source_job_id
        if target_sub_job_id is not UNSET:
            field_dict["target_sub_job_id"] = target_sub_job_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        checkpoint_id = d.pop("checkpoint_id")

        source_job_id = d.pop("source_job_id", UNSET)

        target_sub_job_id = d.pop("target_sub_job_id", UNSET)

        load_request = cls(
            checkpoint_id=checkpoint_id,
            source_job_id=source_job_id,
            target_sub_job_id=target_sub_job_id,
        )

        load_request.additional_properties = d
        return load_request

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
