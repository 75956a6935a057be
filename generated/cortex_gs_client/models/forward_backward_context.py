# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tensor_ref import TensorRef


T = TypeVar("T", bound="ForwardBackwardContext")


@_attrs_define
class ForwardBackwardContext:
    """Backend-owned loss inputs (an open backend contract: the deployed training backend, not
    this API, decides the keys). Stock `grpo` (and `grpo_echo_v1`) reads `input_ids`,
    `advantages` and a boolean `loss_mask`, all `[B, T]` like `kwargs.input_ids`, and
    optionally `old_log_probs_shifted`; a grpo batch without `advantages` or `loss_mask`
    here is refused before any model call, naming the key (never trained as next-token
    prediction instead).

        Attributes:
            input_ids (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape.
                On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            advantages (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and
                shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            loss_mask (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape.
                On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            old_log_probs_shifted (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors
                names) and shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
    """

    input_ids: TensorRef | Unset = UNSET
    advantages: TensorRef | Unset = UNSET
    loss_mask: TensorRef | Unset = UNSET
    old_log_probs_shifted: TensorRef | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_ids: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_ids, Unset):
            input_ids = self.input_ids.to_dict()

        advantages: dict[str, Any] | Unset = UNSET
        if not isinstance(self.advantages, Unset):
            advantages = self.advantages.to_dict()

        loss_mask: dict[str, Any] | Unset = UNSET
        if not isinstance(self.loss_mask, Unset):
            loss_mask = self.loss_mask.to_dict()

        old_log_probs_shifted: dict[str, Any] | Unset = UNSET
        if not isinstance(self.old_log_probs_shifted, Unset):
            old_log_probs_shifted = self.old_log_probs_shifted.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if input_ids is not UNSET:
            field_dict["input_ids"] = input_ids
        if advantages is not UNSET:
            field_dict["advantages"] = advantages
        if loss_mask is not UNSET:
            field_dict["loss_mask"] = loss_mask
        if old_log_probs_shifted is not UNSET:
            field_dict["old_log_probs_shifted"] = old_log_probs_shifted

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tensor_ref import TensorRef  # noqa: PLC0415

        d = dict(src_dict)
        _input_ids = d.pop("input_ids", UNSET)
        input_ids: TensorRef | Unset
        if isinstance(_input_ids, Unset):
            input_ids = UNSET
        else:
            input_ids = TensorRef.from_dict(_input_ids)

        _advantages = d.pop("advantages", UNSET)
        advantages: TensorRef | Unset
        if isinstance(_advantages, Unset):
            advantages = UNSET
        else:
            advantages = TensorRef.from_dict(_advantages)

        _loss_mask = d.pop("loss_mask", UNSET)
        loss_mask: TensorRef | Unset
        if isinstance(_loss_mask, Unset):
            loss_mask = UNSET
        else:
            loss_mask = TensorRef.from_dict(_loss_mask)

        _old_log_probs_shifted = d.pop("old_log_probs_shifted", UNSET)
        old_log_probs_shifted: TensorRef | Unset
        if isinstance(_old_log_probs_shifted, Unset):
            old_log_probs_shifted = UNSET
        else:
            old_log_probs_shifted = TensorRef.from_dict(_old_log_probs_shifted)

        forward_backward_context = cls(
            input_ids=input_ids,
            advantages=advantages,
            loss_mask=loss_mask,
            old_log_probs_shifted=old_log_probs_shifted,
        )

        forward_backward_context.additional_properties = d
        return forward_backward_context

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
