# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LoadResult")


@_attrs_define
class LoadResult:
    """The JSON result of `load_checkpoint`.

    Attributes:
        checkpoint_id (str): A checkpoint's id, chosen by the caller or named after the global step.
        source_job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is
            never `capacity` (that route wins).
        global_steps (int | Unset): The step count restored with it.
    """

    checkpoint_id: str
    source_job_id: str
    global_steps: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoint_id = self.checkpoint_id

        source_job_id = self.source_job_id

        global_steps = self.global_steps

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checkpoint_id": checkpoint_id,
                "source_job_id": source_job_id,
            }
        )
        if global_steps is not UNSET:
            field_dict["global_steps"] = global_steps

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        checkpoint_id = d.pop("checkpoint_id")

        source_job_id = d.pop("source_job_id")

        global_steps = d.pop("global_steps", UNSET)

        load_result = cls(
            checkpoint_id=checkpoint_id,
            source_job_id=source_job_id,
            global_steps=global_steps,
        )

        load_result.additional_properties = d
        return load_result

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
