# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Capacity")


@_attrs_define
class Capacity:
    """The account's GPU budget. Proto3 JSON omits false and zero fields, so every field may be absent (read it as false or
    0).

        Attributes:
            has_reservation (bool | Unset): Whether the account holds a GPU reservation.
            max_total_gpus (int | Unset): The account's GPU ceiling.
            reserved_gpus (int | Unset): Deprecated; read `max_total_gpus` with `has_reservation`.
            in_use_gpus (int | Unset): GPUs used by the account's pending, placing, initializing and running jobs.
            available_gpus (int | Unset): Remaining capacity, floored at zero and possibly capped by what is schedulable
                now.
    """

    has_reservation: bool | Unset = UNSET
    max_total_gpus: int | Unset = UNSET
    reserved_gpus: int | Unset = UNSET
    in_use_gpus: int | Unset = UNSET
    available_gpus: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_reservation = self.has_reservation

        max_total_gpus = self.max_total_gpus

        reserved_gpus = self.reserved_gpus

        in_use_gpus = self.in_use_gpus

        available_gpus = self.available_gpus

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if has_reservation is not UNSET:
            field_dict["has_reservation"] = has_reservation
        if max_total_gpus is not UNSET:
            field_dict["max_total_gpus"] = max_total_gpus
        if reserved_gpus is not UNSET:
            field_dict["reserved_gpus"] = reserved_gpus
        if in_use_gpus is not UNSET:
            field_dict["in_use_gpus"] = in_use_gpus
        if available_gpus is not UNSET:
            field_dict["available_gpus"] = available_gpus

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        has_reservation = d.pop("has_reservation", UNSET)

        max_total_gpus = d.pop("max_total_gpus", UNSET)

        reserved_gpus = d.pop("reserved_gpus", UNSET)

        in_use_gpus = d.pop("in_use_gpus", UNSET)

        available_gpus = d.pop("available_gpus", UNSET)

        capacity = cls(
            has_reservation=has_reservation,
            max_total_gpus=max_total_gpus,
            reserved_gpus=reserved_gpus,
            in_use_gpus=in_use_gpus,
            available_gpus=available_gpus,
        )

        capacity.additional_properties = d
        return capacity

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
