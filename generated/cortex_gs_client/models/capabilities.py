# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.capabilities_proposals_item import CapabilitiesProposalsItem
from ..types import UNSET, Unset

T = TypeVar("T", bound="Capabilities")


@_attrs_define
class Capabilities:
    """The proposals a service serves (the answer of the proposed capabilities route).

    Attributes:
        proposals (list[CapabilitiesProposalsItem]): Each proposal served, by name; clients ignore names they do not
            know.
        service (str | Unset): A name for what the service plays (`proposed` on the mock).
    """

    proposals: list[CapabilitiesProposalsItem]
    service: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        proposals = []
        for proposals_item_data in self.proposals:
            proposals_item = proposals_item_data.value
            proposals.append(proposals_item)

        service = self.service

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "proposals": proposals,
            }
        )
        if service is not UNSET:
            field_dict["service"] = service

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        proposals = []
        _proposals = d.pop("proposals")
        for proposals_item_data in _proposals:
            proposals_item = CapabilitiesProposalsItem(proposals_item_data)

            proposals.append(proposals_item)

        service = d.pop("service", UNSET)

        capabilities = cls(
            proposals=proposals,
            service=service,
        )

        capabilities.additional_properties = d
        return capabilities

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
