# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.operation_output import OperationOutput


T = TypeVar("T", bound="OperationResult")


@_attrs_define
class OperationResult:
    """An inline operation's answer.

    Attributes:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is never
            `capacity` (that route wins).
        operation_type (str): The operation that ran.
        result (OperationOutput): An inline operation's output, specific to its `operation_type` (`{}` for no-ops).
    """

    job_id: str
    operation_type: str
    result: OperationOutput
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        operation_type = self.operation_type

        result = self.result.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "operation_type": operation_type,
                "result": result,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.operation_output import OperationOutput  # noqa: PLC0415

        d = dict(src_dict)
        job_id = d.pop("job_id")

        operation_type = d.pop("operation_type")

        result = OperationOutput.from_dict(d.pop("result"))

        operation_result = cls(
            job_id=job_id,
            operation_type=operation_type,
            result=result,
        )

        operation_result.additional_properties = d
        return operation_result

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
