# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="NoGradProcessing")


@_attrs_define
class NoGradProcessing:
    """Which per-token outputs a forward-no-grad computes; extra keys pass through.

    Attributes:
        post (list[str] | Unset): Per-token outputs to return (`logprobs`, `entropy`); default `[logprobs]`.
        temperature (float | Unset): Divide logits by this before the log-softmax (match the sampler's temperature).
    """

    post: list[str] | Unset = UNSET
    temperature: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        post: list[str] | Unset = UNSET
        if not isinstance(self.post, Unset):
            post = self.post

        temperature = self.temperature

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if post is not UNSET:
            field_dict["post"] = post
        if temperature is not UNSET:
            field_dict["temperature"] = temperature

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        post = cast(list[str], d.pop("post", UNSET))

        temperature = d.pop("temperature", UNSET)

        no_grad_processing = cls(
            post=post,
            temperature=temperature,
        )

        no_grad_processing.additional_properties = d
        return no_grad_processing

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
