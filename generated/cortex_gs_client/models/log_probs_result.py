# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tensor_ref import TensorRef


T = TypeVar("T", bound="LogProbsResult")


@_attrs_define
class LogProbsResult:
    """The value inside a log-probs result frame; one entry per prompt, shifted convention.

    Attributes:
        logprobs (list[TensorRef]): One 1-D float32 tensor per prompt (plus completion).
        token_ids (list[TensorRef] | Unset): The scored token ids, one 1-D int64 tensor per prompt.
        top_k_token_ids (list[TensorRef] | Unset): With `top_k > 0`, one `[len, top_k]` int64 tensor per prompt.
    """

    logprobs: list[TensorRef]
    token_ids: list[TensorRef] | Unset = UNSET
    top_k_token_ids: list[TensorRef] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        logprobs = []
        for logprobs_item_data in self.logprobs:
            logprobs_item = logprobs_item_data.to_dict()
            logprobs.append(logprobs_item)

        token_ids: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.token_ids, Unset):
            token_ids = []
            for token_ids_item_data in self.token_ids:
                token_ids_item = token_ids_item_data.to_dict()
                token_ids.append(token_ids_item)

        top_k_token_ids: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.top_k_token_ids, Unset):
            top_k_token_ids = []
            for top_k_token_ids_item_data in self.top_k_token_ids:
                top_k_token_ids_item = top_k_token_ids_item_data.to_dict()
                top_k_token_ids.append(top_k_token_ids_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "logprobs": logprobs,
            }
        )
        if token_ids is not UNSET:
            field_dict["token_ids"] = token_ids
        if top_k_token_ids is not UNSET:
            field_dict["top_k_token_ids"] = top_k_token_ids

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tensor_ref import TensorRef  # noqa: PLC0415

        d = dict(src_dict)
        logprobs = []
        _logprobs = d.pop("logprobs")
        for logprobs_item_data in _logprobs:
            logprobs_item = TensorRef.from_dict(logprobs_item_data)

            logprobs.append(logprobs_item)

        _token_ids = d.pop("token_ids", UNSET)
        token_ids: list[TensorRef] | Unset = UNSET
        if _token_ids is not UNSET:
            token_ids = []
            for token_ids_item_data in _token_ids:
                token_ids_item = TensorRef.from_dict(token_ids_item_data)

                token_ids.append(token_ids_item)

        _top_k_token_ids = d.pop("top_k_token_ids", UNSET)
        top_k_token_ids: list[TensorRef] | Unset = UNSET
        if _top_k_token_ids is not UNSET:
            top_k_token_ids = []
            for top_k_token_ids_item_data in _top_k_token_ids:
                top_k_token_ids_item = TensorRef.from_dict(top_k_token_ids_item_data)

                top_k_token_ids.append(top_k_token_ids_item)

        log_probs_result = cls(
            logprobs=logprobs,
            token_ids=token_ids,
            top_k_token_ids=top_k_token_ids,
        )

        log_probs_result.additional_properties = d
        return log_probs_result

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
