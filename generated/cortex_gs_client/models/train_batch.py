# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tensor_ref import TensorRef


T = TypeVar("T", bound="TrainBatch")


@_attrs_define
class TrainBatch:
    """The pre-tokenised batch verl and SkyRL build, as the `kwargs` of a forward-backward
    frame. B is the batch size, P the prompt length and R the response length;
    `[B, P+R]` tensors cover the whole sequence. Extra keys pass through and must
    round-trip unchanged.

    Every per-token input (`old_log_probs`, `ref_log_prob`, `advantages`, `loss_mask`,
    `response_mask`, `rollout_is_weights`, wherever it sits: `kwargs`, `context`, or
    `meta` for `rollout_is_weights`) has one layout, `x-token-layout`: **token-aligned and
    right-justified against `input_ids`**. With `input_ids` of shape `[B, T]`, column `j`
    of a `[B, w]` tensor holds the value of token `input_ids[:, T - w + j]`: its
    log-probability under the old or the reference policy, its advantage, its mask bit,
    its importance weight. So a `[B, T]` tensor is aligned column for column with
    `input_ids` (column 0 is ignored: the first token has no log-probability), a
    `[B, R]` response tensor is aligned with `responses`, and a `[B, T-1]` tensor starts
    at the second token. Answers differ: `logprobs` and `entropy` come back in the
    shifted (roll) layout, `[B, T]` with column `i` scoring `input_ids[:, i + 1]` and the
    last column zero, so an answer sent back as `old_log_probs` must first move one
    column right (or drop its last column, which makes it a valid `[B, T-1]` input).

    Inputs that cannot line up are refused when the forward-backward frame is
    accepted: `422` (`validation_error`; the detail's `type` is `token_layout` and its
    `loc` names the tensor). Every per-token input must be a 2-D tensor with the `B`
    rows of `input_ids` and at most `T` columns; `responses` `[B, R]` must have
    `R < T` (they are the last `R` tokens), and then every per-token input must have
    at least `R` columns, so that each response token has its value.

        Attributes:
            input_ids (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            attention_mask (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On
                the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            position_ids (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On
                the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            prompts (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            responses (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            response_mask (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On
                the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            advantages (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            old_log_probs (TensorRef): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape. On
                the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            loss_mask (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape.
                On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            ref_log_prob (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and
                shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            rollout_is_weights (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names)
                and shape. On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
    """

    input_ids: TensorRef
    attention_mask: TensorRef
    position_ids: TensorRef
    prompts: TensorRef
    responses: TensorRef
    response_mask: TensorRef
    advantages: TensorRef
    old_log_probs: TensorRef
    loss_mask: TensorRef | Unset = UNSET
    ref_log_prob: TensorRef | Unset = UNSET
    rollout_is_weights: TensorRef | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_ids = self.input_ids.to_dict()

        attention_mask = self.attention_mask.to_dict()

        position_ids = self.position_ids.to_dict()

        prompts = self.prompts.to_dict()

        responses = self.responses.to_dict()

        response_mask = self.response_mask.to_dict()

        advantages = self.advantages.to_dict()

        old_log_probs = self.old_log_probs.to_dict()

        loss_mask: dict[str, Any] | Unset = UNSET
        if not isinstance(self.loss_mask, Unset):
            loss_mask = self.loss_mask.to_dict()

        ref_log_prob: dict[str, Any] | Unset = UNSET
        if not isinstance(self.ref_log_prob, Unset):
            ref_log_prob = self.ref_log_prob.to_dict()

        rollout_is_weights: dict[str, Any] | Unset = UNSET
        if not isinstance(self.rollout_is_weights, Unset):
            rollout_is_weights = self.rollout_is_weights.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input_ids": input_ids,
                "attention_mask": attention_mask,
                "position_ids": position_ids,
                "prompts": prompts,
                "responses": responses,
                "response_mask": response_mask,
                "advantages": advantages,
                "old_log_probs": old_log_probs,
            }
        )
        if loss_mask is not UNSET:
            field_dict["loss_mask"] = loss_mask
        if ref_log_prob is not UNSET:
            field_dict["ref_log_prob"] = ref_log_prob
        if rollout_is_weights is not UNSET:
            field_dict["rollout_is_weights"] = rollout_is_weights

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tensor_ref import TensorRef  # noqa: PLC0415

        d = dict(src_dict)
        input_ids = TensorRef.from_dict(d.pop("input_ids"))

        attention_mask = TensorRef.from_dict(d.pop("attention_mask"))

        position_ids = TensorRef.from_dict(d.pop("position_ids"))

        prompts = TensorRef.from_dict(d.pop("prompts"))

        responses = TensorRef.from_dict(d.pop("responses"))

        response_mask = TensorRef.from_dict(d.pop("response_mask"))

        advantages = TensorRef.from_dict(d.pop("advantages"))

        old_log_probs = TensorRef.from_dict(d.pop("old_log_probs"))

        _loss_mask = d.pop("loss_mask", UNSET)
        loss_mask: TensorRef | Unset
        if isinstance(_loss_mask, Unset):
            loss_mask = UNSET
        else:
            loss_mask = TensorRef.from_dict(_loss_mask)

        _ref_log_prob = d.pop("ref_log_prob", UNSET)
        ref_log_prob: TensorRef | Unset
        if isinstance(_ref_log_prob, Unset):
            ref_log_prob = UNSET
        else:
            ref_log_prob = TensorRef.from_dict(_ref_log_prob)

        _rollout_is_weights = d.pop("rollout_is_weights", UNSET)
        rollout_is_weights: TensorRef | Unset
        if isinstance(_rollout_is_weights, Unset):
            rollout_is_weights = UNSET
        else:
            rollout_is_weights = TensorRef.from_dict(_rollout_is_weights)

        train_batch = cls(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            prompts=prompts,
            responses=responses,
            response_mask=response_mask,
            advantages=advantages,
            old_log_probs=old_log_probs,
            loss_mask=loss_mask,
            ref_log_prob=ref_log_prob,
            rollout_is_weights=rollout_is_weights,
        )

        train_batch.additional_properties = d
        return train_batch

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
