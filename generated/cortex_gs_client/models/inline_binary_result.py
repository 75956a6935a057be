# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="InlineBinaryResult")


@_attrs_define
class InlineBinaryResult:
    """A small DSSST1 result, base64 in the poll answer.

    Attributes:
        content_type (Literal['application/octet-stream']): Media type of the decoded payload.
        encoding (Literal['base64']): How `payload_b64` is encoded.
        wire_format (Literal['DSSST1']): Format of the decoded payload.
        payload_b64 (str): Standard base64 (RFC 4648, with padding).
    """

    content_type: Literal["application/octet-stream"]
    encoding: Literal["base64"]
    wire_format: Literal["DSSST1"]
    payload_b64: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content_type = self.content_type

        encoding = self.encoding

        wire_format = self.wire_format

        payload_b64 = self.payload_b64

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content_type": content_type,
                "encoding": encoding,
                "wire_format": wire_format,
                "payload_b64": payload_b64,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        content_type = cast(Literal["application/octet-stream"], d.pop("content_type"))
        if content_type != "application/octet-stream":
            raise ValueError(
                f"content_type must match const 'application/octet-stream', got '{content_type}'"
            )

        encoding = cast(Literal["base64"], d.pop("encoding"))
        if encoding != "base64":
            raise ValueError(f"encoding must match const 'base64', got '{encoding}'")

        wire_format = cast(Literal["DSSST1"], d.pop("wire_format"))
        if wire_format != "DSSST1":
            raise ValueError(f"wire_format must match const 'DSSST1', got '{wire_format}'")

        payload_b64 = d.pop("payload_b64")

        inline_binary_result = cls(
            content_type=content_type,
            encoding=encoding,
            wire_format=wire_format,
            payload_b64=payload_b64,
        )

        inline_binary_result.additional_properties = d
        return inline_binary_result

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
