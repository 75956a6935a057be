# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.generation_output import GenerationOutput


T = TypeVar("T", bound="GenerateResult")


@_attrs_define
class GenerateResult:
    """The value inside a generate result frame; `results` follows the order of `prompts`.

    Attributes:
        results (list[GenerationOutput]): One entry per prompt (times `n`).
        job_id (str | Unset): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is
            never `capacity` (that route wins).
    """

    results: list[GenerationOutput]
    job_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        job_id = self.job_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "results": results,
            }
        )
        if job_id is not UNSET:
            field_dict["job_id"] = job_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.generation_output import GenerationOutput  # noqa: PLC0415

        d = dict(src_dict)
        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = GenerationOutput.from_dict(results_item_data)

            results.append(results_item)

        job_id = d.pop("job_id", UNSET)

        generate_result = cls(
            results=results,
            job_id=job_id,
        )

        generate_result.additional_properties = d
        return generate_result

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
