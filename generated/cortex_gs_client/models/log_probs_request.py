# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="LogProbsRequest")


@_attrs_define
class LogProbsRequest:
    """The body of `log_probs`.

    Attributes:
        prompts (list[list[int] | str]): Prompts as text or token ids, at most 1024.
        completions (list[list[int] | str] | Unset): One completion per prompt, scored after it; absent scores the
            prompts alone.
        top_k (int | Unset): Also answer the top-k candidate tokens per position; 0 for none. Default: 0.
    """

    prompts: list[list[int] | str]
    completions: list[list[int] | str] | Unset = UNSET
    top_k: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        prompts = []
        for prompts_item_data in self.prompts:
            prompts_item: list[int] | str
            if isinstance(prompts_item_data, list):
                prompts_item = prompts_item_data

            else:
                prompts_item = prompts_item_data
            prompts.append(prompts_item)

        completions: list[list[int] | str] | Unset = UNSET
        if not isinstance(self.completions, Unset):
            completions = []
            for completions_item_data in self.completions:
                completions_item: list[int] | str
                if isinstance(completions_item_data, list):
                    completions_item = completions_item_data

                else:
                    completions_item = completions_item_data
                completions.append(completions_item)

        top_k = self.top_k

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "prompts": prompts,
            }
        )
        if completions is not UNSET:
            field_dict["completions"] = completions
        if top_k is not UNSET:
            field_dict["top_k"] = top_k

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        prompts = []
        _prompts = d.pop("prompts")
        for prompts_item_data in _prompts:

            def _parse_prompts_item(data: object) -> list[int] | str:
                try:
                    if not isinstance(data, list):
                        raise TypeError()
                    componentsschemas_prompt_type_1 = cast(list[int], data)

                    return componentsschemas_prompt_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(list[int] | str, data)

            prompts_item = _parse_prompts_item(prompts_item_data)

            prompts.append(prompts_item)

        _completions = d.pop("completions", UNSET)
        completions: list[list[int] | str] | Unset = UNSET
        if _completions is not UNSET:
            completions = []
            for completions_item_data in _completions:

                def _parse_completions_item(data: object) -> list[int] | str:
                    try:
                        if not isinstance(data, list):
                            raise TypeError()
                        componentsschemas_prompt_type_1 = cast(list[int], data)

                        return componentsschemas_prompt_type_1
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    return cast(list[int] | str, data)

                completions_item = _parse_completions_item(completions_item_data)

                completions.append(completions_item)

        top_k = d.pop("top_k", UNSET)

        log_probs_request = cls(
            prompts=prompts,
            completions=completions,
            top_k=top_k,
        )

        return log_probs_request
