# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="BootstrapRouterReplayPayload")


@_attrs_define
class BootstrapRouterReplayPayload:
    """The payload of `bootstrap-router-replay`; the sampling sub-job is the routing source, the training sub-job the
    replay target (and operation receiver).

        Attributes:
            source_sub_job_id (str): `{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but
                `log_probability` as a job type.
            target_sub_job_id (str): `{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but
                `log_probability` as a job type.
            max_cache_bytes (int | Unset): Bound on the replay cache.
    """

    source_sub_job_id: str
    target_sub_job_id: str
    max_cache_bytes: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        source_sub_job_id = self.source_sub_job_id

        target_sub_job_id = self.target_sub_job_id

        max_cache_bytes = self.max_cache_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "source_sub_job_id": source_sub_job_id,
                "target_sub_job_id": target_sub_job_id,
            }
        )
        if max_cache_bytes is not UNSET:
            field_dict["max_cache_bytes"] = max_cache_bytes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        source_sub_job_id = d.pop("source_sub_job_id")

        target_sub_job_id = d.pop("target_sub_job_id")

        max_cache_bytes = d.pop("max_cache_bytes", UNSET)

        bootstrap_router_replay_payload = cls(
            source_sub_job_id=source_sub_job_id,
            target_sub_job_id=target_sub_job_id,
            max_cache_bytes=max_cache_bytes,
        )

        bootstrap_router_replay_payload.additional_properties = d
        return bootstrap_router_replay_payload

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
