# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_meta import BatchMeta
    from ..models.processing import Processing
    from ..models.train_batch import TrainBatch


T = TypeVar("T", bound="ForwardBackwardBatch")


@_attrs_define
class ForwardBackwardBatch:
    """The value inside a forward-backward frame.

    Attributes:
        kwargs (TrainBatch): The pre-tokenised batch (the `kwargs` of a forward-backward frame). B is the batch size,
            P the prompt length and R the response length; `[B, P+R]` tensors cover the whole
            sequence. Extra keys pass through and must round-trip unchanged.
        args (list[Any] | Unset): Positional arguments; normally empty.
        meta (BatchMeta | Unset): Batch metadata carried next to the tensors and passed through to the trainer (verl
            puts
            `global_batch_size`, `batch_num_tokens` as a 0-d tensor, `actor_config` and
            `policy_loss_config` here).
        processing (Processing | Unset): What the trainer does with the batch; absent keys take the job's configured
            defaults.
    """

    kwargs: TrainBatch
    args: list[Any] | Unset = UNSET
    meta: BatchMeta | Unset = UNSET
    processing: Processing | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kwargs = self.kwargs.to_dict()

        args: list[Any] | Unset = UNSET
        if not isinstance(self.args, Unset):
            args = self.args

        meta: dict[str, Any] | Unset = UNSET
        if not isinstance(self.meta, Unset):
            meta = self.meta.to_dict()

        processing: dict[str, Any] | Unset = UNSET
        if not isinstance(self.processing, Unset):
            processing = self.processing.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kwargs": kwargs,
            }
        )
        if args is not UNSET:
            field_dict["args"] = args
        if meta is not UNSET:
            field_dict["meta"] = meta
        if processing is not UNSET:
            field_dict["processing"] = processing

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_meta import BatchMeta  # noqa: PLC0415
        from ..models.processing import Processing  # noqa: PLC0415
        from ..models.train_batch import TrainBatch  # noqa: PLC0415

        d = dict(src_dict)
        kwargs = TrainBatch.from_dict(d.pop("kwargs"))

        args = cast(list[Any], d.pop("args", UNSET))

        _meta = d.pop("meta", UNSET)
        meta: BatchMeta | Unset
        if isinstance(_meta, Unset):
            meta = UNSET
        else:
            meta = BatchMeta.from_dict(_meta)

        _processing = d.pop("processing", UNSET)
        processing: Processing | Unset
        if isinstance(_processing, Unset):
            processing = UNSET
        else:
            processing = Processing.from_dict(_processing)

        forward_backward_batch = cls(
            kwargs=kwargs,
            args=args,
            meta=meta,
            processing=processing,
        )

        forward_backward_batch.additional_properties = d
        return forward_backward_batch

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
