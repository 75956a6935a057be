# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RequestEvent")


@_attrs_define
class RequestEvent:
    """One event of a request. Known `type`s: `result_chunk` (one DSSST1 `result_chunk` frame
    of a large result, with `chunk_idx`, `total_chunks`, `payload_b64` and `payload_sha256`,
    the SHA-256 of the decoded payload), `progress` and `log` (with `message`). Clients
    ignore types they do not know.

        Attributes:
            type_ (str): The event type.
            chunk_idx (int | Unset): Index of this result chunk.
            total_chunks (int | Unset): Result chunks in all.
            payload_b64 (str | Unset): Standard base64 (RFC 4648, with padding).
            payload_sha256 (str | Unset): A SHA-256 digest as 64 lowercase hex digits.
            message (str | Unset): Text of a `progress` or `log` event.
            timestamp (datetime.datetime | Unset): When the event happened.
    """

    type_: str
    chunk_idx: int | Unset = UNSET
    total_chunks: int | Unset = UNSET
    payload_b64: str | Unset = UNSET
    payload_sha256: str | Unset = UNSET
    message: str | Unset = UNSET
    timestamp: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        chunk_idx = self.chunk_idx

        total_chunks = self.total_chunks

        payload_b64 = self.payload_b64

        payload_sha256 = self.payload_sha256

        message = self.message

        timestamp: str | Unset = UNSET
        if not isinstance(self.timestamp, Unset):
            timestamp = self.timestamp.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if chunk_idx is not UNSET:
            field_dict["chunk_idx"] = chunk_idx
        if total_chunks is not UNSET:
            field_dict["total_chunks"] = total_chunks
        if payload_b64 is not UNSET:
            field_dict["payload_b64"] = payload_b64
        if payload_sha256 is not UNSET:
            field_dict["payload_sha256"] = payload_sha256
        if message is not UNSET:
            field_dict["message"] = message
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = d.pop("type")

        chunk_idx = d.pop("chunk_idx", UNSET)

        total_chunks = d.pop("total_chunks", UNSET)

        payload_b64 = d.pop("payload_b64", UNSET)

        payload_sha256 = d.pop("payload_sha256", UNSET)

        message = d.pop("message", UNSET)

        _timestamp = d.pop("timestamp", UNSET)
        timestamp: datetime.datetime | Unset
        if isinstance(_timestamp, Unset):
            timestamp = UNSET
        else:
            timestamp = datetime.datetime.fromisoformat(_timestamp)

        request_event = cls(
            type_=type_,
            chunk_idx=chunk_idx,
            total_chunks=total_chunks,
            payload_b64=payload_b64,
            payload_sha256=payload_sha256,
            message=message,
            timestamp=timestamp,
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
