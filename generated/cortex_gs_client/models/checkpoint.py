# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.checkpoint_type import CheckpointType
from ..types import UNSET, Unset

T = TypeVar("T", bound="Checkpoint")


@_attrs_define
class Checkpoint:
    """One saved checkpoint (proto3 JSON; zero fields may be absent).

    Attributes:
        checkpoint_id (str): A checkpoint's id, as the service named it (after the global step).
        global_steps (int | Unset): Optimizer steps taken when it was saved.
        avg_loss (float | None | Unset): Average loss of the last forward-backward before the save, if any.
        created_at (datetime.datetime | Unset): When it was saved.
        checkpoint_type (CheckpointType | Unset): `resumable` keeps optimizer and training state (the default);
            `weights-only` is Hugging Face-style model assets, for sampling.
    """

    checkpoint_id: str
    global_steps: int | Unset = UNSET
    avg_loss: float | None | Unset = UNSET
    created_at: datetime.datetime | Unset = UNSET
    checkpoint_type: CheckpointType | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoint_id = self.checkpoint_id

        global_steps = self.global_steps

        avg_loss: float | None | Unset
        if isinstance(self.avg_loss, Unset):
            avg_loss = UNSET
        else:
            avg_loss = self.avg_loss

        created_at: str | Unset = UNSET
        if not isinstance(self.created_at, Unset):
            created_at = self.created_at.isoformat()

        checkpoint_type: str | Unset = UNSET
        if not isinstance(self.checkpoint_type, Unset):
            checkpoint_type = self.checkpoint_type.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checkpoint_id": checkpoint_id,
            }
        )
        if global_steps is not UNSET:
            field_dict["global_steps"] = global_steps
        if avg_loss is not UNSET:
            field_dict["avg_loss"] = avg_loss
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if checkpoint_type is not UNSET:
            field_dict["checkpoint_type"] = checkpoint_type

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        checkpoint_id = d.pop("checkpoint_id")

        global_steps = d.pop("global_steps", UNSET)

        def _parse_avg_loss(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        avg_loss = _parse_avg_loss(d.pop("avg_loss", UNSET))

        _created_at = d.pop("created_at", UNSET)
        created_at: datetime.datetime | Unset
        if isinstance(_created_at, Unset):
            created_at = UNSET
        else:
            created_at = datetime.datetime.fromisoformat(_created_at)

        _checkpoint_type = d.pop("checkpoint_type", UNSET)
        checkpoint_type: CheckpointType | Unset
        if isinstance(_checkpoint_type, Unset):
            checkpoint_type = UNSET
        else:
            checkpoint_type = CheckpointType(_checkpoint_type)

        checkpoint = cls(
            checkpoint_id=checkpoint_id,
            global_steps=global_steps,
            avg_loss=avg_loss,
            created_at=created_at,
            checkpoint_type=checkpoint_type,
        )

        checkpoint.additional_properties = d
        return checkpoint

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
