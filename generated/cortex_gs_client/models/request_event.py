# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RequestEvent")


@_attrs_define
class RequestEvent:
    """One event of a request; events are opaque backend objects. `result_chunk` events carry
    one DSSST1 `result_chunk` frame of a large result (`payload_b64`, and `payload_sha256`
    of the decoded payload); a generate-stream's events are `GenerateStreamEvent`s. Clients
    ignore types they do not know.

        Attributes:
            type_ (str): The event type.
            payload_b64 (str | Unset): Standard base64 (RFC 4648, with padding).
            payload_sha256 (str | Unset): A SHA-256 digest as 64 lowercase hex digits.
            chunk_idx (int | Unset): Index of this result chunk (also inside the chunk frame's descriptor).
            total_chunks (int | Unset): Result chunks in all (also inside the chunk frame's descriptor).
    """

    type_: str
    payload_b64: str | Unset = UNSET
    payload_sha256: str | Unset = UNSET
    chunk_idx: int | Unset = UNSET
    total_chunks: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        payload_b64 = self.payload_b64

        payload_sha256 = self.payload_sha256

        chunk_idx = self.chunk_idx

        total_chunks = self.total_chunks

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if payload_b64 is not UNSET:
            field_dict["payload_b64"] = payload_b64
        if payload_sha256 is not UNSET:
            field_dict["payload_sha256"] = payload_sha256
        if chunk_idx is not UNSET:
            field_dict["chunk_idx"] = chunk_idx
        if total_chunks is not UNSET:
            field_dict["total_chunks"] = total_chunks

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = d.pop("type")

        payload_b64 = d.pop("payload_b64", UNSET)

        payload_sha256 = d.pop("payload_sha256", UNSET)

        chunk_idx = d.pop("chunk_idx", UNSET)

        total_chunks = d.pop("total_chunks", UNSET)

        request_event = cls(
            type_=type_,
            payload_b64=payload_b64,
            payload_sha256=payload_sha256,
            chunk_idx=chunk_idx,
            total_chunks=total_chunks,
        )

        request_event.additional_properties = d
        return request_event

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
