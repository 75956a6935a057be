# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ForwardOperationPayload")


@_attrs_define
class ForwardOperationPayload:
    """The payload of the `forward` operation: a byte payload (at most 60 MiB, never chunked)
    as base64 in JSON. One backend forward; `fwd()` and `fwd_no_grad()` in the service's
    own client send exactly this and add no no-gradient semantics. The service's
    description notes that the backend behind it expects raw DSSST1 bytes, so this path is
    not end-to-end compatible today; it is not a log-probability API.

        Attributes:
            payload_b64 (str): Standard base64 (RFC 4648, with padding).
            content_type (str | Unset): Media type of the decoded bytes (`application/octet-stream`).
    """

    payload_b64: str
    content_type: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        payload_b64 = self.payload_b64

        content_type = self.content_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "payload_b64": payload_b64,
            }
        )
        if content_type is not UNSET:
            field_dict["content_type"] = content_type

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        payload_b64 = d.pop("payload_b64")

        content_type = d.pop("content_type", UNSET)

        forward_operation_payload = cls(
            payload_b64=payload_b64,
            content_type=content_type,
        )

        forward_operation_payload.additional_properties = d
        return forward_operation_payload

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
