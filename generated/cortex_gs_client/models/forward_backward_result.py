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
    """The value inside a forward-backward result frame (a conventional backend result, open).

    Attributes:
        avg_loss (float): Mean loss over the batch (there is no `loss` alias).
        job_id (str | Unset): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is
            never `capacity` (that route wins).
        metrics (TrainMetrics | Unset): Training metrics; the exact keys are backend and loss dependent (today often
            `{}`).
        post_process_outputs (PostProcessOutputs | Unset): What the post-processors computed. With `compute_logprobs`,
            `logprobs` holds the
            per-token log-probabilities as nested lists (the service's published description,
            which says `{}`, is stale on this).
    """

    avg_loss: float
    job_id: str | Unset = UNSET
    metrics: TrainMetrics | Unset = UNSET
    post_process_outputs: PostProcessOutputs | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        avg_loss = self.avg_loss

        job_id = self.job_id

        metrics: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metrics, Unset):
            metrics = self.metrics.to_dict()

        post_process_outputs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.post_process_outputs, Unset):
            post_process_outputs = self.post_process_outputs.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "avg_loss": avg_loss,
            }
        )
        if job_id is not UNSET:
            field_dict["job_id"] = job_id
        if metrics is not UNSET:
            field_dict["metrics"] = metrics
        if post_process_outputs is not UNSET:
            field_dict["post_process_outputs"] = post_process_outputs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post_process_outputs import PostProcessOutputs  # noqa: PLC0415
        from ..models.train_metrics import TrainMetrics  # noqa: PLC0415

        d = dict(src_dict)
        avg_loss = d.pop("avg_loss")

        job_id = d.pop("job_id", UNSET)

        _metrics = d.pop("metrics", UNSET)
        metrics: TrainMetrics | Unset
        if isinstance(_metrics, Unset):
            metrics = UNSET
        else:
            metrics = TrainMetrics.from_dict(_metrics)

        _post_process_outputs = d.pop("post_process_outputs", UNSET)
        post_process_outputs: PostProcessOutputs | Unset
        if isinstance(_post_process_outputs, Unset):
            post_process_outputs = UNSET
        else:
            post_process_outputs = PostProcessOutputs.from_dict(_post_process_outputs)

        forward_backward_result = cls(
            avg_loss=avg_loss,
            job_id=job_id,
            metrics=metrics,
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
