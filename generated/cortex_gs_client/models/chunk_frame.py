# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.tensor_ref import TensorRef


T = TypeVar("T", bound="ChunkFrame")


@_attrs_define
class ChunkFrame:
    """The value of a chunk frame: one byte range of the original frame. Its `op` metadata holds
    a `ChunkDescriptor` under `request_chunk` or `result_chunk`.

        Attributes:
            payload (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
    """

    payload: TensorRef
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        payload = self.payload.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "payload": payload,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tensor_ref import TensorRef  # noqa: PLC0415

        d = dict(src_dict)
        payload = TensorRef.from_dict(d.pop("payload"))

        chunk_frame = cls(
            payload=payload,
        )

        chunk_frame.additional_properties = d
        return chunk_frame

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
