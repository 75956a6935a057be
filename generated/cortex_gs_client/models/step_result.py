# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.peak_memory import PeakMemory
    from ..models.train_metrics import TrainMetrics


T = TypeVar("T", bound="StepResult")


@_attrs_define
class StepResult:
    """The JSON result of `step` (a conventional backend result, open).

    Attributes:
        global_steps (int): Optimizer steps taken so far.
        last_lr (float | list[float]): Learning rate used (a scalar or a list, depending on the backend).
        peak_memory (PeakMemory | Unset): Per-step peak memory in bytes, present when the training config sets
            `step_peak_memory_log`: `gpu_peak` is the job-wide GPU high-water mark across ranks for
            this forward-backward plus step cycle, `cpu_peak` rank 0's process RSS.
        metrics (TrainMetrics | Unset): Training metrics; the exact keys are backend and loss dependent (today often
            `{}`).
    """

    global_steps: int
    last_lr: float | list[float]
    peak_memory: PeakMemory | Unset = UNSET
    metrics: TrainMetrics | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        global_steps = self.global_steps

        last_lr: float | list[float]
        if isinstance(self.last_lr, list):
            last_lr = self.last_lr

        else:
            last_lr = self.last_lr

        peak_memory: dict[str, Any] | Unset = UNSET
        if not isinstance(self.peak_memory, Unset):
            peak_memory = self.peak_memory.to_dict()

        metrics: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metrics, Unset):
            metrics = self.metrics.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "global_steps": global_steps,
                "last_lr": last_lr,
            }
        )
        if peak_memory is not UNSET:
            field_dict["peak_memory"] = peak_memory
        if metrics is not UNSET:
            field_dict["metrics"] = metrics

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.peak_memory import PeakMemory  # noqa: PLC0415
        from ..models.train_metrics import TrainMetrics  # noqa: PLC0415

        d = dict(src_dict)
        global_steps = d.pop("global_steps")

        def _parse_last_lr(data: object) -> float | list[float]:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                last_lr_type_1 = cast(list[float], data)

                return last_lr_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(float | list[float], data)

        last_lr = _parse_last_lr(d.pop("last_lr"))

        _peak_memory = d.pop("peak_memory", UNSET)
        peak_memory: PeakMemory | Unset
        if isinstance(_peak_memory, Unset):
            peak_memory = UNSET
        else:
            peak_memory = PeakMemory.from_dict(_peak_memory)

        _metrics = d.pop("metrics", UNSET)
        metrics: TrainMetrics | Unset
        if isinstance(_metrics, Unset):
            metrics = UNSET
        else:
            metrics = TrainMetrics.from_dict(_metrics)

        step_result = cls(
            global_steps=global_steps,
            last_lr=last_lr,
            peak_memory=peak_memory,
            metrics=metrics,
        )

        step_result.additional_properties = d
        return step_result

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
