# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TailLogsPayload")


@_attrs_define
class TailLogsPayload:
    """The payload of `tail-logs`; absent `cursor` reads from the start.

    Attributes:
        cursor (str | Unset): The previous page's `next_cursor`.
        max_lines (int | Unset): Most log entries in this page.
    """

    cursor: str | Unset = UNSET
    max_lines: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cursor = self.cursor

        max_lines = self.max_lines

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if cursor is not UNSET:
            field_dict["cursor"] = cursor
        if max_lines is not UNSET:
            field_dict["max_lines"] = max_lines

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cursor = d.pop("cursor", UNSET)

        max_lines = d.pop("max_lines", UNSET)

        tail_logs_payload = cls(
            cursor=cursor,
            max_lines=max_lines,
        )

        tail_logs_payload.additional_properties = d
        return tail_logs_payload

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
