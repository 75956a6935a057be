# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PeakMemory")


@_attrs_define
class PeakMemory:
    """Per-step peak memory in bytes, present when the training config sets
    `step_peak_memory_log`: `gpu_peak` is the job-wide GPU high-water mark across ranks for
    this forward-backward plus step cycle, `cpu_peak` rank 0's process RSS.

        Attributes:
            gpu_peak (int): Bytes.
            cpu_peak (int): Bytes.
    """

    gpu_peak: int
    cpu_peak: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        gpu_peak = self.gpu_peak

        cpu_peak = self.cpu_peak

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpu_peak": gpu_peak,
                "cpu_peak": cpu_peak,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        gpu_peak = d.pop("gpu_peak")

        cpu_peak = d.pop("cpu_peak")

        peak_memory = cls(
            gpu_peak=gpu_peak,
            cpu_peak=cpu_peak,
        )

        peak_memory.additional_properties = d
        return peak_memory

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
