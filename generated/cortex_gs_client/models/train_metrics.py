# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TrainMetrics")


@_attrs_define
class TrainMetrics:
    """Training metrics; the exact keys are backend and loss dependent (today often `{}`).

    Attributes:
        grad_norm (float | list[float] | Unset): Global gradient norm (a scalar, or one per rank).
        ppo_kl (float | Unset): Approximate KL between the old and the current policy.
        pg_clipfrac_lower (float | Unset): Fraction of tokens clipped at the lower ratio bound.
        pg_loss (float | Unset): The policy-gradient part of the loss.
        kl_loss (float | Unset): The KL-penalty part of the loss.
        kl_coef (float | Unset): The KL coefficient in effect.
    """

    grad_norm: float | list[float] | Unset = UNSET
    ppo_kl: float | Unset = UNSET
    pg_clipfrac_lower: float | Unset = UNSET
    pg_loss: float | Unset = UNSET
    kl_loss: float | Unset = UNSET
    kl_coef: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        grad_norm: float | list[float] | Unset
        if isinstance(self.grad_norm, Unset):
            grad_norm = UNSET
        elif isinstance(self.grad_norm, list):
            grad_norm = self.grad_norm

        else:
            grad_norm = self.grad_norm

        ppo_kl = self.ppo_kl

        pg_clipfrac_lower = self.pg_clipfrac_lower

        pg_loss = self.pg_loss

        kl_loss = self.kl_loss

        kl_coef = self.kl_coef

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if grad_norm is not UNSET:
            field_dict["grad_norm"] = grad_norm
        if ppo_kl is not UNSET:
            field_dict["ppo_kl"] = ppo_kl
        if pg_clipfrac_lower is not UNSET:
            field_dict["pg_clipfrac_lower"] = pg_clipfrac_lower
        if pg_loss is not UNSET:
            field_dict["pg_loss"] = pg_loss
        if kl_loss is not UNSET:
            field_dict["kl_loss"] = kl_loss
        if kl_coef is not UNSET:
            field_dict["kl_coef"] = kl_coef

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_grad_norm(data: object) -> float | list[float] | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                grad_norm_type_1 = cast(list[float], data)

                return grad_norm_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(float | list[float] | Unset, data)

        grad_norm = _parse_grad_norm(d.pop("grad_norm", UNSET))

        ppo_kl = d.pop("ppo_kl", UNSET)

        pg_clipfrac_lower = d.pop("pg_clipfrac_lower", UNSET)

        pg_loss = d.pop("pg_loss", UNSET)

        kl_loss = d.pop("kl_loss", UNSET)

        kl_coef = d.pop("kl_coef", UNSET)

        train_metrics = cls(
            grad_norm=grad_norm,
            ppo_kl=ppo_kl,
            pg_clipfrac_lower=pg_clipfrac_lower,
            pg_loss=pg_loss,
            kl_loss=kl_loss,
            kl_coef=kl_coef,
        )

        train_metrics.additional_properties = d
        return train_metrics

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
