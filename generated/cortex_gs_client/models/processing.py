# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.loss_config import LossConfig


T = TypeVar("T", bound="Processing")


@_attrs_define
class Processing:
    """What the backend does with the batch. Loss functions and post-processors come from the
    deployed training backend's registries (`x-registries`): a name outside them is
    refused before any model call. Today there is no `apply_temperature` (the trainer
    scores at temperature 1.0 only) and no entropy post-processor.

        Attributes:
            post (list[str] | Unset): Post-processors to run (`identity`, `compute_logprobs`).
            loss_fn (str | Unset): Loss function name (`causal_cross_entropy`, `grpo`, `grpo_echo_v1`); absent means the
                job's configured loss.
            config (LossConfig | Unset): Loss settings passed to the loss function as given. Stock `grpo` reads `eps_clip`
                (default 0.2, symmetric), `loss_agg_mode` (default `token-mean`), `entropy_coeff`
                (default 0.0), and optionally `global_batch_size` and `batch_num_tokens` (the
                token-mean divisor: `batch_num_tokens = 1` cancels it). Its gradient with respect to
                the log-probabilities is `-advantages * ratio`. Do not send `dp_size`: the service divides
                the loss by it.
    """

    post: list[str] | Unset = UNSET
    loss_fn: str | Unset = UNSET
    config: LossConfig | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        post: list[str] | Unset = UNSET
        if not isinstance(self.post, Unset):
            post = self.post

        loss_fn = self.loss_fn

        config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.config, Unset):
            config = self.config.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if post is not UNSET:
            field_dict["post"] = post
        if loss_fn is not UNSET:
            field_dict["loss_fn"] = loss_fn
        if config is not UNSET:
            field_dict["config"] = config

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.loss_config import LossConfig  # noqa: PLC0415

        d = dict(src_dict)
        post = cast(list[str], d.pop("post", UNSET))

        loss_fn = d.pop("loss_fn", UNSET)

        _config = d.pop("config", UNSET)
        config: LossConfig | Unset
        if isinstance(_config, Unset):
            config = UNSET
        else:
            config = LossConfig.from_dict(_config)

        processing = cls(
            post=post,
            loss_fn=loss_fn,
            config=config,
        )

        processing.additional_properties = d
        return processing

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
