# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="GenerateStreamAccepted")


@_attrs_define
class GenerateStreamAccepted:
    """Streaming generation started; `count` is the number of prompts.

    Attributes:
        request_id (str): A data-plane request's id, opaque; a self-describing id may embed the owning sub-job (with
            `:`).
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is never
            `capacity` (that route wins).
        count (int | Unset): Prompts in the request.
    """

    request_id: str
    job_id: str
    count: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        request_id = self.request_id

        job_id = self.job_id

        count = self.count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "request_id": request_id,
                "job_id": job_id,
            }
        )
        if count is not UNSET:
            field_dict["count"] = count

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        request_id = d.pop("request_id")

        job_id = d.pop("job_id")

        count = d.pop("count", UNSET)

        generate_stream_accepted = cls(
            request_id=request_id,
            job_id=job_id,
            count=count,
        )

        generate_stream_accepted.additional_properties = d
        return generate_stream_accepted

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
