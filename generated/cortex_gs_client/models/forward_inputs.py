# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tensor_ref import TensorRef


T = TypeVar("T", bound="ForwardInputs")


@_attrs_define
class ForwardInputs:
    """The model inputs of a forward-no-grad frame; extra keys pass through.

    Attributes:
        input_ids (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On the
            wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
        attention_mask (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On
            the
            wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
        position_ids (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On
            the
            wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
        responses (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape.
            On the
            wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
        response_mask (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and
            shape. On the
            wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
    """

    input_ids: TensorRef
    attention_mask: TensorRef
    position_ids: TensorRef
    responses: TensorRef | Unset = UNSET
    response_mask: TensorRef | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_ids = self.input_ids.to_dict()

        attention_mask = self.attention_mask.to_dict()

        position_ids = self.position_ids.to_dict()

        responses: dict[str, Any] | Unset = UNSET
        if not isinstance(self.responses, Unset):
            responses = self.responses.to_dict()

        response_mask: dict[str, Any] | Unset = UNSET
        if not isinstance(self.response_mask, Unset):
            response_mask = self.response_mask.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input_ids": input_ids,
                "attention_mask": attention_mask,
                "position_ids": position_ids,
            }
        )
        if responses is not UNSET:
            field_dict["responses"] = responses
        if response_mask is not UNSET:
            field_dict["response_mask"] = response_mask

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tensor_ref import TensorRef  # noqa: PLC0415

        d = dict(src_dict)
        input_ids = TensorRef.from_dict(d.pop("input_ids"))

        attention_mask = TensorRef.from_dict(d.pop("attention_mask"))

        position_ids = TensorRef.from_dict(d.pop("position_ids"))

        _responses = d.pop("responses", UNSET)
        responses: TensorRef | Unset
        if isinstance(_responses, Unset):
            responses = UNSET
        else:
            responses = TensorRef.from_dict(_responses)

        _response_mask = d.pop("response_mask", UNSET)
        response_mask: TensorRef | Unset
        if isinstance(_response_mask, Unset):
            response_mask = UNSET
        else:
            response_mask = TensorRef.from_dict(_response_mask)

        forward_inputs = cls(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            responses=responses,
            response_mask=response_mask,
        )

        forward_inputs.additional_properties = d
        return forward_inputs

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
