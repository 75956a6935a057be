# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SaveResult")


@_attrs_define
class SaveResult:
    """The JSON result of `save_checkpoint`; its `checkpoint_id` is authoritative. Consumers use the fields present.

    Attributes:
        checkpoint_id (str): A checkpoint's id, as the service named it (after the global step).
        checkpoint_path (str | Unset): Where the service stored it.
        checkpoint_tag (str | Unset): The trainer's tag for it.
    """

    checkpoint_id: str
    checkpoint_path: str | Unset = UNSET
    checkpoint_tag: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoint_id = self.checkpoint_id

        checkpoint_path = self.checkpoint_path

        checkpoint_tag = self.checkpoint_tag

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checkpoint_id": checkpoint_id,
            }
        )
        if checkpoint_path is not UNSET:
            field_dict["checkpoint_path"] = checkpoint_path
        if checkpoint_tag is not UNSET:
            field_dict["checkpoint_tag"] = checkpoint_tag

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        checkpoint_id = d.pop("checkpoint_id")

        checkpoint_path = d.pop("checkpoint_path", UNSET)

        checkpoint_tag = d.pop("checkpoint_tag", UNSET)

        save_result = cls(
            checkpoint_id=checkpoint_id,
            checkpoint_path=checkpoint_path,
            checkpoint_tag=checkpoint_tag,
        )

        save_result.additional_properties = d
        return save_result

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
