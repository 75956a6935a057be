# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sub_job_config import SubJobConfig


T = TypeVar("T", bound="CreateJobRequest")


@_attrs_define
class CreateJobRequest:
    """The body of `create_job`; open (unknown fields are ignored, an internal `debug` block is gated by the server).

    Attributes:
        sub_job_configs (list[SubJobConfig]): One entry per sub-job; at least one.
        experiment_name (str | Unset): The experiment to record the run in.
    """

    sub_job_configs: list[SubJobConfig]
    experiment_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        sub_job_configs = []
        for sub_job_configs_item_data in self.sub_job_configs:
            sub_job_configs_item = sub_job_configs_item_data.to_dict()
            sub_job_configs.append(sub_job_configs_item)

        experiment_name = self.experiment_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "sub_job_configs": sub_job_configs,
            }
        )
        if experiment_name is not UNSET:
            field_dict["experiment_name"] = experiment_name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sub_job_config import SubJobConfig  # noqa: PLC0415

        d = dict(src_dict)
        sub_job_configs = []
        _sub_job_configs = d.pop("sub_job_configs")
        for sub_job_configs_item_data in _sub_job_configs:
            sub_job_configs_item = SubJobConfig.from_dict(sub_job_configs_item_data)

            sub_job_configs.append(sub_job_configs_item)

        experiment_name = d.pop("experiment_name", UNSET)

        create_job_request = cls(
            sub_job_configs=sub_job_configs,
            experiment_name=experiment_name,
        )

        create_job_request.additional_properties = d
        return create_job_request

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
