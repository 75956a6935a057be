# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tensor_ref import TensorRef


T = TypeVar("T", bound="ModelKwargs")


@_attrs_define
class ModelKwargs:
    """The model's keyword arguments in a forward-backward frame, generally `[batch, sequence]`
    tensors. The minimal conventional frame carries `input_ids` and `labels`; today's
    arctic-platform client sends `input_ids`, `attention_mask` and, when it has them,
    `position_ids` and `labels` (its loss comes from `context` and `processing`). Other
    keys pass through.

    Rows are **left-aligned** (`x-row-layout`): each row's real tokens sit in its leading
    columns (`attention_mask` is ones, then zeros), padding after. The trainer packs rows
    and refuses a row with padding before a real token ("packing requires left-aligned
    rows"). Answers come back in that aligned frame: a client that aligned a caller's
    left-padded rows puts every answer column back where the caller's row had it. A batch
    needs at least as many rows as the training sub-job has GPUs (`n_gpus`).

        Attributes:
            input_ids (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            attention_mask (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and
                shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            position_ids (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and
                shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            labels (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On
                the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
    """

    input_ids: TensorRef
    attention_mask: TensorRef | Unset = UNSET
    position_ids: TensorRef | Unset = UNSET
    labels: TensorRef | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_ids = self.input_ids.to_dict()

        attention_mask: dict[str, Any] | Unset = UNSET
        if not isinstance(self.attention_mask, Unset):
            attention_mask = self.attention_mask.to_dict()

        position_ids: dict[str, Any] | Unset = UNSET
        if not isinstance(self.position_ids, Unset):
            position_ids = self.position_ids.to_dict()

        labels: dict[str, Any] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input_ids": input_ids,
            }
        )
        if attention_mask is not UNSET:
            field_dict["attention_mask"] = attention_mask
        if position_ids is not UNSET:
            field_dict["position_ids"] = position_ids
        if labels is not UNSET:
            field_dict["labels"] = labels

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tensor_ref import TensorRef  # noqa: PLC0415

        d = dict(src_dict)
        input_ids = TensorRef.from_dict(d.pop("input_ids"))

        _attention_mask = d.pop("attention_mask", UNSET)
        attention_mask: TensorRef | Unset
        if isinstance(_attention_mask, Unset):
            attention_mask = UNSET
        else:
            attention_mask = TensorRef.from_dict(_attention_mask)

        _position_ids = d.pop("position_ids", UNSET)
        position_ids: TensorRef | Unset
        if isinstance(_position_ids, Unset):
            position_ids = UNSET
        else:
            position_ids = TensorRef.from_dict(_position_ids)

        _labels = d.pop("labels", UNSET)
        labels: TensorRef | Unset
        if isinstance(_labels, Unset):
            labels = UNSET
        else:
            labels = TensorRef.from_dict(_labels)

        model_kwargs = cls(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            labels=labels,
        )

        model_kwargs.additional_properties = d
        return model_kwargs

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
