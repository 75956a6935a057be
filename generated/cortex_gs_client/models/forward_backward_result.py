# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_process_outputs import PostProcessOutputs
    from ..models.train_metrics import TrainMetrics


T = TypeVar("T", bound="ForwardBackwardResult")


@_attrs_define
class ForwardBackwardResult:
    """The value inside a forward-backward result frame.

    Attributes:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is never
            `capacity` (that route wins).
        avg_loss (float): Mean loss over the batch.
        metrics (TrainMetrics): Training metrics reduced over the batch; servers may add more keys.
        loss (float | Unset): Same as `avg_loss`; both are sent so either key works.
        post_process_outputs (PostProcessOutputs | Unset): Per-token outputs requested with `processing.post`, shape
            `[B, R]`.
    """

    job_id: str
    avg_loss: float
    metrics: TrainMetrics
    loss: float | Unset = UNSET
    post_process_outputs: PostProcessOutputs | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        avg_loss = self.avg_loss

        metrics = self.metrics.to_dict()

        loss = self.loss

        post_process_outputs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.post_process_outputs, Unset):
            post_process_outputs = self.post_process_outputs.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "avg_loss": avg_loss,
                "metrics": metrics,
            }
        )
        if loss is not UNSET:
            field_dict["loss"] = loss
        if post_process_outputs is not UNSET:
            field_dict["post_process_outputs"] = post_process_outputs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_process_outputs import PostProcessOutputs  # noqa: PLC0415
        from ..models.train_metrics import TrainMetrics  # noqa: PLC0415

        d = dict(src_dict)
        job_id = d.pop("job_id")

        avg_loss = d.pop("avg_loss")

        metrics = TrainMetrics.from_dict(d.pop("metrics"))

        loss = d.pop("loss", UNSET)

        _post_process_outputs = d.pop("post_process_outputs", UNSET)
        post_process_outputs: PostProcessOutputs | Unset
        if isinstance(_post_process_outputs, Unset):
            post_process_outputs = UNSET
        else:
            post_process_outputs = PostProcessOutputs.from_dict(_post_process_outputs)

        forward_backward_result = cls(
            job_id=job_id,
            avg_loss=avg_loss,
            metrics=metrics,
            loss=loss,
            post_process_outputs=post_process_outputs,
        )

        forward_backward_result.additional_properties = d
        return forward_backward_result

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
