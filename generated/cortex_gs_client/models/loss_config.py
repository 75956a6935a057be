# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LossConfig")


@_attrs_define
class LossConfig:
    """Loss settings passed to the loss function as given. Stock `grpo` reads `eps_clip`
    (default 0.2, symmetric), `loss_agg_mode` (default `token-mean`), `entropy_coeff`
    (default 0.0), and optionally `global_batch_size` and `batch_num_tokens` (the
    token-mean divisor: `batch_num_tokens = 1` cancels it). Its gradient with respect to
    the log-probabilities is `-advantages * ratio`. Do not send `dp_size`: the service divides
    the loss by it.

    """

    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        loss_config = cls()

        loss_config.additional_properties = d
        return loss_config

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
