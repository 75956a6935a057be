# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TailLogsPage")


@_attrs_define
class TailLogsPage:
    """The inline answer of `tail-logs`: one page of the sub-job's stdout. While the job is
    placing, pages can be empty and not `eof`.

        Attributes:
            entries (list[Any]): Log entries, oldest first.
            next_cursor (str): Pass as `cursor` to read on.
            eof (bool): Whether the log has ended for now (stop unless following).
    """

    entries: list[Any]
    next_cursor: str
    eof: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entries = self.entries

        next_cursor = self.next_cursor

        eof = self.eof

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entries": entries,
                "next_cursor": next_cursor,
                "eof": eof,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        entries = cast(list[Any], d.pop("entries"))

        next_cursor = d.pop("next_cursor")

        eof = d.pop("eof")

        tail_logs_page = cls(
            entries=entries,
            next_cursor=next_cursor,
            eof=eof,
        )

        tail_logs_page.additional_properties = d
        return tail_logs_page

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
