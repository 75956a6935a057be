# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResetPrefixCachePayload")


@_attrs_define
class ResetPrefixCachePayload:
    """The payload of `reset-prefix-cache` (the values shown are the client defaults); extra fields pass through.

    Attributes:
        drain (bool | Unset): Wait for in-flight requests before resetting.
        timeout_s (float | Unset): How long to wait for the drain, in seconds.
        retry_interval_s (float | Unset): How often to retry while draining, in seconds.
    """

    drain: bool | Unset = UNSET
    timeout_s: float | Unset = UNSET
    retry_interval_s: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        drain = self.drain

        timeout_s = self.timeout_s

        retry_interval_s = self.retry_interval_s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if drain is not UNSET:
            field_dict["drain"] = drain
        if timeout_s is not UNSET:
            field_dict["timeout_s"] = timeout_s
        if retry_interval_s is not UNSET:
            field_dict["retry_interval_s"] = retry_interval_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        drain = d.pop("drain", UNSET)

        timeout_s = d.pop("timeout_s", UNSET)

        retry_interval_s = d.pop("retry_interval_s", UNSET)

        reset_prefix_cache_payload = cls(
            drain=drain,
            timeout_s=timeout_s,
            retry_interval_s=retry_interval_s,
        )

        reset_prefix_cache_payload.additional_properties = d
        return reset_prefix_cache_payload

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
