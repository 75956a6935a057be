# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="GenerationOutput")


@_attrs_define
class GenerationOutput:
    """One completion.

    Attributes:
        text (str): The completion text.
        token_ids (list[int]): The completion's token ids.
        finish_reason (str): Why generation stopped (`stop`, `length`, `abort`).
        logprobs (list[float] | None | Unset): Log-probability of each generated token, when asked for.
        prompt_len (int | Unset): Prompt length in tokens.
        generation_len (int | Unset): Completion length in tokens.
    """

    text: str
    token_ids: list[int]
    finish_reason: str
    logprobs: list[float] | None | Unset = UNSET
    prompt_len: int | Unset = UNSET
    generation_len: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        token_ids = self.token_ids

        finish_reason = self.finish_reason

        logprobs: list[float] | None | Unset
        if isinstance(self.logprobs, Unset):
            logprobs = UNSET
        elif isinstance(self.logprobs, list):
            logprobs = self.logprobs

        else:
            logprobs = self.logprobs

        prompt_len = self.prompt_len

        generation_len = self.generation_len

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "text": text,
                "token_ids": token_ids,
                "finish_reason": finish_reason,
            }
        )
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if prompt_len is not UNSET:
            field_dict["prompt_len"] = prompt_len
        if generation_len is not UNSET:
            field_dict["generation_len"] = generation_len

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        text = d.pop("text")

        token_ids = cast(list[int], d.pop("token_ids"))

        finish_reason = d.pop("finish_reason")

        def _parse_logprobs(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                logprobs_type_0 = cast(list[float], data)

                return logprobs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        logprobs = _parse_logprobs(d.pop("logprobs", UNSET))

        prompt_len = d.pop("prompt_len", UNSET)

        generation_len = d.pop("generation_len", UNSET)

        generation_output = cls(
            text=text,
            token_ids=token_ids,
            finish_reason=finish_reason,
            logprobs=logprobs,
            prompt_len=prompt_len,
            generation_len=generation_len,
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
