# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ChunkAccepted")


@_attrs_define
class ChunkAccepted:
    """A non-final chunk of a group was stored.

    Attributes:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is never
            `capacity` (that route wins).
        chunk_group_id (str): The idempotency key of one chunked operation, chosen by the client (a UUID4 today).
        chunk_idx (int): Index of the chunk just stored.
        received_chunks (int): Distinct chunks of the group stored so far.
        total_chunks (int): Chunks in the group.
    """

    job_id: str
    chunk_group_id: str
    chunk_idx: int
    received_chunks: int
    total_chunks: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        chunk_group_id = self.chunk_group_id

        chunk_idx = self.chunk_idx

        received_chunks = self.received_chunks

        total_chunks = self.total_chunks

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "chunk_group_id": chunk_group_id,
                "chunk_idx": chunk_idx,
                "received_chunks": received_chunks,
                "total_chunks": total_chunks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        chunk_group_id = d.pop("chunk_group_id")

        chunk_idx = d.pop("chunk_idx")

        received_chunks = d.pop("received_chunks")

        total_chunks = d.pop("total_chunks")

        chunk_accepted = cls(
            job_id=job_id,
            chunk_group_id=chunk_group_id,
            chunk_idx=chunk_idx,
            received_chunks=received_chunks,
            total_chunks=total_chunks,
        )

        chunk_accepted.additional_properties = d
        return chunk_accepted

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
