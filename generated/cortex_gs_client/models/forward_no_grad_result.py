# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.forward_no_grad_metrics import ForwardNoGradMetrics
    from ..models.model_outputs import ModelOutputs


T = TypeVar("T", bound="ForwardNoGradResult")


@_attrs_define
class ForwardNoGradResult:
    """The value inside a forward-no-grad result frame.

    Attributes:
        model_outputs (ModelOutputs): Per-token outputs of a forward-no-grad, shape `[B, T]` (shifted convention: column
            `i`
            scores `input_ids[:, i + 1]`, the last column is zero). Sent back as a per-token input
            they must first be token-aligned (`TrainBatch`, `x-token-layout`).
        metrics (ForwardNoGradMetrics | Unset): Timing and diagnostic metrics of a forward-no-grad; servers choose the
            keys.
    """

    model_outputs: ModelOutputs
    metrics: ForwardNoGradMetrics | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model_outputs = self.model_outputs.to_dict()

        metrics: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metrics, Unset):
            metrics = self.metrics.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model_outputs": model_outputs,
            }
        )
        if metrics is not UNSET:
            field_dict["metrics"] = metrics

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.forward_no_grad_metrics import ForwardNoGradMetrics  # noqa: PLC0415
        from ..models.model_outputs import ModelOutputs  # noqa: PLC0415

        d = dict(src_dict)
        model_outputs = ModelOutputs.from_dict(d.pop("model_outputs"))

        _metrics = d.pop("metrics", UNSET)
        metrics: ForwardNoGradMetrics | Unset
        if isinstance(_metrics, Unset):
            metrics = UNSET
        else:
            metrics = ForwardNoGradMetrics.from_dict(_metrics)

        forward_no_grad_result = cls(
            model_outputs=model_outputs,
            metrics=metrics,
        )

        forward_no_grad_result.additional_properties = d
        return forward_no_grad_result

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
