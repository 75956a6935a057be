# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RequestChunkDescriptor")


@_attrs_define
class RequestChunkDescriptor:
    """A request chunk's descriptor; request chunks always carry `chunk_group_id` (the server's idempotency key) and
    `operation`.

        Attributes:
            chunk_idx (int): This chunk's index, from 0.
            total_chunks (int): Chunks in the group.
            frame_sha256 (str): A SHA-256 digest as 64 lowercase hex digits.
            frame_size_bytes (int): Size of the original frame in bytes.
            chunk_group_id (str): The idempotency key of one chunked operation, chosen by the client (a UUID4 today).
            operation (str): The operation the frame is for (`fwd-bwd`, `generate`<!-- proposed:start -->; proposed `fwd-no-
                grad`<!-- proposed:end -->).
    """

    chunk_idx: int
    total_chunks: int
    frame_sha256: str
    frame_size_bytes: int
    chunk_group_id: str
    operation: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        chunk_idx = self.chunk_idx

        total_chunks = self.total_chunks

        frame_sha256 = self.frame_sha256

        frame_size_bytes = self.frame_size_bytes

        chunk_group_id = self.chunk_group_id

        operation = self.operation

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "chunk_idx": chunk_idx,
                "total_chunks": total_chunks,
                "frame_sha256": frame_sha256,
                "frame_size_bytes": frame_size_bytes,
                "chunk_group_id": chunk_group_id,
                "operation": operation,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        chunk_idx = d.pop("chunk_idx")

        total_chunks = d.pop("total_chunks")

        frame_sha256 = d.pop("frame_sha256")

        frame_size_bytes = d.pop("frame_size_bytes")

        chunk_group_id = d.pop("chunk_group_id")

        operation = d.pop("operation")

        request_chunk_descriptor = cls(
            chunk_idx=chunk_idx,
            total_chunks=total_chunks,
            frame_sha256=frame_sha256,
            frame_size_bytes=frame_size_bytes,
            chunk_group_id=chunk_group_id,
            operation=operation,
        )

        request_chunk_descriptor.additional_properties = d
        return request_chunk_descriptor

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
