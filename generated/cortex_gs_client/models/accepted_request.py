# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AcceptedRequest")


@_attrs_define
class AcceptedRequest:
    """Work was scheduled; poll `get_request` with this id.

    Attributes:
        request_id (str): A data-plane request's id, opaque; a self-describing id may embed the owning sub-job (with
            `:`).
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is never
            `capacity` (that route wins).
    """

    request_id: str
    job_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        request_id = self.request_id

        job_id = self.job_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "request_id": request_id,
                "job_id": job_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        request_id = d.pop("request_id")

        job_id = d.pop("job_id")

        accepted_request = cls(
            request_id=request_id,
            job_id=job_id,
        )

        accepted_request.additional_properties = d
        return accepted_request

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
