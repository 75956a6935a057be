# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_meta import BatchMeta
    from ..models.forward_backward_context import ForwardBackwardContext
    from ..models.model_kwargs import ModelKwargs
    from ..models.processing import Processing


T = TypeVar("T", bound="ForwardBackwardBatch")


@_attrs_define
class ForwardBackwardBatch:
    """The value inside a forward-backward frame. The minimal frame is
    `{args: [], kwargs: {input_ids, labels}}`; ArcticTraining adds backend-owned `context`
    and `processing`. Other keys pass through<!-- proposed:start --> (the proposed
    pre-tokenised batch is `TrainBatch`)<!-- proposed:end -->.

        Attributes:
            kwargs (ModelKwargs): The model's keyword arguments in a forward-backward frame, generally `[batch, sequence]`
                tensors. The minimal conventional frame carries `input_ids` and `labels`; today's
                arctic-platform client sends `input_ids`, `attention_mask` and, when it has them,
                `position_ids` and `labels` (its loss comes from `context` and `processing`). Other
                keys pass through.

                Rows are **left-aligned** (`x-row-layout`): each row's real tokens sit in its leading
                columns (`attention_mask` is ones, then zeros), padding after. The trainer packs rows
                and refuses a row with padding before a real token ("packing requires left-aligned
                rows"). Answers come back in that aligned frame: a client that aligned a caller's
                left-padded rows puts every answer column back where the caller's row had it. A batch
                needs at least as many rows as the training sub-job has GPUs (`n_gpus`).
            args (list[Any] | Unset): Positional arguments; normally empty.
            context (ForwardBackwardContext | Unset): Backend-owned loss inputs (an open backend contract: the deployed
                training backend, not
                this API, decides the keys). Stock `grpo` (and `grpo_echo_v1`) reads `input_ids`,
                `advantages` and a boolean `loss_mask`, all `[B, T]` like `kwargs.input_ids`, and
                optionally `old_log_probs_shifted`; a grpo batch without `advantages` or `loss_mask`
                here is refused before any model call, naming the key (never trained as next-token
                prediction instead).
            processing (Processing | Unset): What the backend does with the batch. Loss functions and post-processors come
                from the
                deployed training backend's registries (`x-registries`): a name outside them is
                refused before any model call. Today there is no `apply_temperature` (the trainer
                scores at temperature 1.0 only) and no entropy post-processor.
            router_replay (Any | Unset): Router-replay data the client adds when given, a backend contract.
            meta (BatchMeta | Unset): Batch metadata carried next to the tensors and passed through to the trainer (verl
                puts
                `global_batch_size`, `batch_num_tokens` as a 0-d tensor, `actor_config` and
                `policy_loss_config` here).
    """

    kwargs: ModelKwargs
    args: list[Any] | Unset = UNSET
    context: ForwardBackwardContext | Unset = UNSET
    processing: Processing | Unset = UNSET
    router_replay: Any | Unset = UNSET
    meta: BatchMeta | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kwargs = self.kwargs.to_dict()

        args: list[Any] | Unset = UNSET
        if not isinstance(self.args, Unset):
            args = self.args

        context: dict[str, Any] | Unset = UNSET
        if not isinstance(self.context, Unset):
            context = self.context.to_dict()

        processing: dict[str, Any] | Unset = UNSET
        if not isinstance(self.processing, Unset):
            processing = self.processing.to_dict()

        router_replay = self.router_replay

        meta: dict[str, Any] | Unset = UNSET
        if not isinstance(self.meta, Unset):
            meta = self.meta.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kwargs": kwargs,
            }
        )
        if args is not UNSET:
            field_dict["args"] = args
        if context is not UNSET:
            field_dict["context"] = context
        if processing is not UNSET:
            field_dict["processing"] = processing
        if router_replay is not UNSET:
            field_dict["router_replay"] = router_replay
        if meta is not UNSET:
            field_dict["meta"] = meta

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_meta import BatchMeta  # noqa: PLC0415
        from ..models.forward_backward_context import ForwardBackwardContext  # noqa: PLC0415
        from ..models.model_kwargs import ModelKwargs  # noqa: PLC0415
        from ..models.processing import Processing  # noqa: PLC0415

        d = dict(src_dict)
        kwargs = ModelKwargs.from_dict(d.pop("kwargs"))

        args = cast(list[Any], d.pop("args", UNSET))

        _context = d.pop("context", UNSET)
        context: ForwardBackwardContext | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = ForwardBackwardContext.from_dict(_context)

        _processing = d.pop("processing", UNSET)
        processing: Processing | Unset
        if isinstance(_processing, Unset):
            processing = UNSET
        else:
            processing = Processing.from_dict(_processing)

        router_replay = d.pop("router_replay", UNSET)

        _meta = d.pop("meta", UNSET)
        meta: BatchMeta | Unset
        if isinstance(_meta, Unset):
            meta = UNSET
        else:
            meta = BatchMeta.from_dict(_meta)

        forward_backward_batch = cls(
            kwargs=kwargs,
            args=args,
            context=context,
            processing=processing,
            router_replay=router_replay,
            meta=meta,
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
