# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.generation_output_logprobs_item_type_0 import GenerationOutputLogprobsItemType0


T = TypeVar("T", bound="GenerationOutput")


@_attrs_define
class GenerationOutput:
    """One completion; the backend can add fields such as log-probabilities or action masks.

    Attributes:
        text (str | Unset): The completion text.
        token_ids (list[int] | Unset): The completion's token ids.
        finish_reason (str | Unset): Why generation stopped (`stop`, `length`, `abort`).
        logprobs (list[float | GenerationOutputLogprobsItemType0] | Unset): One entry per generated token: a dict from
            token id, **as a string**, to its
            log-probability (the sampled token's entry among them). Read the sampled token's
            log-prob by its id, never by position in the dict.
    """

    text: str | Unset = UNSET
    token_ids: list[int] | Unset = UNSET
    finish_reason: str | Unset = UNSET
    logprobs: list[float | GenerationOutputLogprobsItemType0] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.generation_output_logprobs_item_type_0 import (
            GenerationOutputLogprobsItemType0,  # noqa: PLC0415
        )

        text = self.text

        token_ids: list[int] | Unset = UNSET
        if not isinstance(self.token_ids, Unset):
            token_ids = self.token_ids

        finish_reason = self.finish_reason

        logprobs: list[dict[str, Any] | float] | Unset = UNSET
        if not isinstance(self.logprobs, Unset):
            logprobs = []
            for logprobs_item_data in self.logprobs:
                logprobs_item: dict[str, Any] | float
                if isinstance(logprobs_item_data, GenerationOutputLogprobsItemType0):
                    logprobs_item = logprobs_item_data.to_dict()
                else:
                    logprobs_item = logprobs_item_data
                logprobs.append(logprobs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if text is not UNSET:
            field_dict["text"] = text
        if token_ids is not UNSET:
            field_dict["token_ids"] = token_ids
        if finish_reason is not UNSET:
            field_dict["finish_reason"] = finish_reason
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.generation_output_logprobs_item_type_0 import (
            GenerationOutputLogprobsItemType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        text = d.pop("text", UNSET)

        token_ids = cast(list[int], d.pop("token_ids", UNSET))

        finish_reason = d.pop("finish_reason", UNSET)

        _logprobs = d.pop("logprobs", UNSET)
        logprobs: list[float | GenerationOutputLogprobsItemType0] | Unset = UNSET
        if _logprobs is not UNSET:
            logprobs = []
            for logprobs_item_data in _logprobs:

                def _parse_logprobs_item(data: object) -> float | GenerationOutputLogprobsItemType0:
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        logprobs_item_type_0 = GenerationOutputLogprobsItemType0.from_dict(data)

                        return logprobs_item_type_0
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    return cast(float | GenerationOutputLogprobsItemType0, data)

                logprobs_item = _parse_logprobs_item(logprobs_item_data)

                logprobs.append(logprobs_item)

        generation_output = cls(
            text=text,
            token_ids=token_ids,
            finish_reason=finish_reason,
            logprobs=logprobs,
        )

        generation_output.additional_properties = d
        return generation_output

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
