# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tensor_ref import TensorRef


T = TypeVar("T", bound="PostProcessOutputs")


@_attrs_define
class PostProcessOutputs:
    """What the post-processors computed. With `compute_logprobs`, `logprobs` holds the
    per-token log-probabilities as nested lists (the service's published description,
    which says `{}`, is stale on this).

        Attributes:
            logprobs (list[list[float]] | Unset): `[B, T]` nested lists of numbers, rectangular and padded to the full
                width; shifted
                convention: column `i` scores `input_ids[:, i + 1]` of the rows as sent (left-aligned).
            entropy (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape.
                On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
    """

    logprobs: list[list[float]] | Unset = UNSET
    entropy: TensorRef | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        logprobs: list[list[float]] | Unset = UNSET
        if not isinstance(self.logprobs, Unset):
            logprobs = []
            for logprobs_item_data in self.logprobs:
                logprobs_item = logprobs_item_data

                logprobs.append(logprobs_item)

        entropy: dict[str, Any] | Unset = UNSET
        if not isinstance(self.entropy, Unset):
            entropy = self.entropy.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if entropy is not UNSET:
            field_dict["entropy"] = entropy

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tensor_ref import TensorRef  # noqa: PLC0415

        d = dict(src_dict)
        _logprobs = d.pop("logprobs", UNSET)
        logprobs: list[list[float]] | Unset = UNSET
        if _logprobs is not UNSET:
            logprobs = []
            for logprobs_item_data in _logprobs:
                logprobs_item = cast(list[float], logprobs_item_data)

                logprobs.append(logprobs_item)

        _entropy = d.pop("entropy", UNSET)
        entropy: TensorRef | Unset
        if isinstance(_entropy, Unset):
            entropy = UNSET
        else:
            entropy = TensorRef.from_dict(_entropy)

        post_process_outputs = cls(
            logprobs=logprobs,
            entropy=entropy,
        )

        post_process_outputs.additional_properties = d
        return post_process_outputs

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
