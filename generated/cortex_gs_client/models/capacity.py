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
    """The account's GPU budget.

    Attributes:
        has_reservation (bool): Whether the account holds a GPU reservation.
        max_total_gpus (int): GPUs the account may use at once.
        in_use_gpus (int): GPUs held by the account's jobs now.
        available_gpus (int): GPUs a new job could get now.
        reserved_gpus (int | Unset): Deprecated; read `max_total_gpus`.
    """

    has_reservation: bool
    max_total_gpus: int
    in_use_gpus: int
    available_gpus: int
    reserved_gpus: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_reservation = self.has_reservation

        max_total_gpus = self.max_total_gpus

        in_use_gpus = self.in_use_gpus

        available_gpus = self.available_gpus

        reserved_gpus = self.reserved_gpus

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "has_reservation": has_reservation,
                "max_total_gpus": max_total_gpus,
                "in_use_gpus": in_use_gpus,
                "available_gpus": available_gpus,
            }
        )
        if reserved_gpus is not UNSET:
            field_dict["reserved_gpus"] = reserved_gpus

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        has_reservation = d.pop("has_reservation")

        max_total_gpus = d.pop("max_total_gpus")

        in_use_gpus = d.pop("in_use_gpus")

        available_gpus = d.pop("available_gpus")

        reserved_gpus = d.pop("reserved_gpus", UNSET)

        capacity = cls(
            has_reservation=has_reservation,
            max_total_gpus=max_total_gpus,
            in_use_gpus=in_use_gpus,
            available_gpus=available_gpus,
            reserved_gpus=reserved_gpus,
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
