# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tensor_ref_dtype import TensorRefDtype

T = TypeVar("T", bound="TensorRef")


@_attrs_define
class TensorRef:
    """A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On the
    wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.

        Attributes:
            dtype (TensorRefDtype): Safetensors dtype name.
            shape (list[int]): Dimensions; `[]` for a 0-d tensor.
    """

    dtype: TensorRefDtype
    shape: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dtype = self.dtype.value

        shape = self.shape

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dtype": dtype,
                "shape": shape,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        dtype = TensorRefDtype(d.pop("dtype"))

        shape = cast(list[int], d.pop("shape"))

        tensor_ref = cls(
            dtype=dtype,
            shape=shape,
        )

        tensor_ref.additional_properties = d
        return tensor_ref

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
