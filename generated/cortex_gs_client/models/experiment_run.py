# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ExperimentRun")


@_attrs_define
class ExperimentRun:
    """The experiment and run a job records to.

    Attributes:
        experiment_name (str | Unset): Fully qualified experiment name.
        experiment_run_name (str | Unset): The run's name within the experiment.
    """

    experiment_name: str | Unset = UNSET
    experiment_run_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        experiment_name = self.experiment_name

        experiment_run_name = self.experiment_run_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if experiment_name is not UNSET:
            field_dict["experiment_name"] = experiment_name
        if experiment_run_name is not UNSET:
            field_dict["experiment_run_name"] = experiment_run_name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        experiment_name = d.pop("experiment_name", UNSET)

        experiment_run_name = d.pop("experiment_run_name", UNSET)

        experiment_run = cls(
            experiment_name=experiment_name,
            experiment_run_name=experiment_run_name,
        )

        experiment_run.additional_properties = d
        return experiment_run

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
