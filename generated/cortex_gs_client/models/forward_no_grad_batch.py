# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_meta import BatchMeta
    from ..models.forward_inputs import ForwardInputs
    from ..models.no_grad_processing import NoGradProcessing


T = TypeVar("T", bound="ForwardNoGradBatch")


@_attrs_define
class ForwardNoGradBatch:
    """The value inside a forward-no-grad frame.

    Attributes:
        kwargs (ForwardInputs): The model inputs of a forward-no-grad frame; extra keys pass through.
        args (list[Any] | Unset): Positional arguments; normally empty.
        meta (BatchMeta | Unset): Batch metadata carried next to the tensors and passed through to the trainer (verl
            puts
            `global_batch_size`, `batch_num_tokens` as a 0-d tensor, `actor_config` and
            `policy_loss_config` here).
        processing (NoGradProcessing | Unset): Which per-token outputs a forward-no-grad computes; extra keys pass
            through.
        reference_model (bool | Unset): Run the frozen reference model (the `log_probability` sub-job) instead of the
            policy. Default: False.
    """

    kwargs: ForwardInputs
    args: list[Any] | Unset = UNSET
    meta: BatchMeta | Unset = UNSET
    processing: NoGradProcessing | Unset = UNSET
    reference_model: bool | Unset = False
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

        reference_model = self.reference_model

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
        if reference_model is not UNSET:
            field_dict["reference_model"] = reference_model

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_meta import BatchMeta  # noqa: PLC0415
        from ..models.forward_inputs import ForwardInputs  # noqa: PLC0415
        from ..models.no_grad_processing import NoGradProcessing  # noqa: PLC0415

        d = dict(src_dict)
        kwargs = ForwardInputs.from_dict(d.pop("kwargs"))

        args = cast(list[Any], d.pop("args", UNSET))

        _meta = d.pop("meta", UNSET)
        meta: BatchMeta | Unset
        if isinstance(_meta, Unset):
            meta = UNSET
        else:
            meta = BatchMeta.from_dict(_meta)

        _processing = d.pop("processing", UNSET)
        processing: NoGradProcessing | Unset
        if isinstance(_processing, Unset):
            processing = UNSET
        else:
            processing = NoGradProcessing.from_dict(_processing)

        reference_model = d.pop("reference_model", UNSET)

        forward_no_grad_batch = cls(
            kwargs=kwargs,
            args=args,
            meta=meta,
            processing=processing,
            reference_model=reference_model,
        )

        forward_no_grad_batch.additional_properties = d
        return forward_no_grad_batch

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
