# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RouterReplayDiscardPayload")


@_attrs_define
class RouterReplayDiscardPayload:
    """The payload of `router-replay-discard`; extra fields pass through.

    Attributes:
        sample_ids (list[str] | Unset): The samples whose routing records to drop.
    """

    sample_ids: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        sample_ids: list[str] | Unset = UNSET
        if not isinstance(self.sample_ids, Unset):
            sample_ids = self.sample_ids

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if sample_ids is not UNSET:
            field_dict["sample_ids"] = sample_ids

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        sample_ids = cast(list[str], d.pop("sample_ids", UNSET))

        router_replay_discard_payload = cls(
            sample_ids=sample_ids,
        )

        router_replay_discard_payload.additional_properties = d
        return router_replay_discard_payload

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
