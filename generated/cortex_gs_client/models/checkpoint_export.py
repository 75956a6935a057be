# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.exported_file import ExportedFile


T = TypeVar("T", bound="CheckpointExport")


@_attrs_define
class CheckpointExport:
    """Short-lived download links for a checkpoint's files.

    Attributes:
        checkpoint_id (str): A checkpoint's id, as the service named it (after the global step).
        files (list[ExportedFile]): One entry per file of the checkpoint.
        expires_at (datetime.datetime | Unset): When the links stop working.
    """

    checkpoint_id: str
    files: list[ExportedFile]
    expires_at: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoint_id = self.checkpoint_id

        files = []
        for files_item_data in self.files:
            files_item = files_item_data.to_dict()
            files.append(files_item)

        expires_at: str | Unset = UNSET
        if not isinstance(self.expires_at, Unset):
            expires_at = self.expires_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checkpoint_id": checkpoint_id,
                "files": files,
            }
        )
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.exported_file import ExportedFile  # noqa: PLC0415

        d = dict(src_dict)
        checkpoint_id = d.pop("checkpoint_id")

        files = []
        _files = d.pop("files")
        for files_item_data in _files:
            files_item = ExportedFile.from_dict(files_item_data)

            files.append(files_item)

        _expires_at = d.pop("expires_at", UNSET)
        expires_at: datetime.datetime | Unset
        if isinstance(_expires_at, Unset):
            expires_at = UNSET
        else:
            expires_at = datetime.datetime.fromisoformat(_expires_at)

        checkpoint_export = cls(
            checkpoint_id=checkpoint_id,
            files=files,
            expires_at=expires_at,
        )

        checkpoint_export.additional_properties = d
        return checkpoint_export

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
