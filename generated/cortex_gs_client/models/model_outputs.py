# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tensor_ref import TensorRef


T = TypeVar("T", bound="ModelOutputs")


@_attrs_define
class ModelOutputs:
    """Per-token outputs of a forward-no-grad, shape `[B, T]` (shifted convention: column `i`
    scores `input_ids[:, i + 1]`, the last column is zero). Sent back as a per-token input
    they must first be token-aligned (`TrainBatch`, `x-token-layout`).

        Attributes:
            logprobs (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            entropy (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape.
                On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
    """

    logprobs: TensorRef
    entropy: TensorRef | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        logprobs = self.logprobs.to_dict()

        entropy: dict[str, Any] | Unset = UNSET
        if not isinstance(self.entropy, Unset):
            entropy = self.entropy.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "logprobs": logprobs,
            }
        )
        if entropy is not UNSET:
            field_dict["entropy"] = entropy

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tensor_ref import TensorRef  # noqa: PLC0415

        d = dict(src_dict)
        logprobs = TensorRef.from_dict(d.pop("logprobs"))

        _entropy = d.pop("entropy", UNSET)
        entropy: TensorRef | Unset
        if isinstance(_entropy, Unset):
            entropy = UNSET
        else:
            entropy = TensorRef.from_dict(_entropy)

        model_outputs = cls(
            logprobs=logprobs,
            entropy=entropy,
        )

        model_outputs.additional_properties = d
        return model_outputs

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
