# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.generation_output import GenerationOutput


T = TypeVar("T", bound="GenerateStreamEvent")


@_attrs_define
class GenerateStreamEvent:
    """One event of a generate-stream request. Common shapes: `{type: result, index, result}`
    per finished prompt, `{type: error, index, error}` per failed prompt, then
    `{type: done, completed, failed}`. Open: the backend may add fields.

        Attributes:
            type_ (str): `result`, `error` or `done`.
            index (int | Unset): The prompt's index (result and error events).
            result (GenerationOutput | Unset): One completion; the backend can add fields such as log-probabilities or
                action masks.
            error (str | Unset): Why the prompt failed (error events).
            completed (int | Unset): Prompts that finished (the done event).
            failed (int | Unset): Prompts that failed (the done event).
    """

    type_: str
    index: int | Unset = UNSET
    result: GenerationOutput | Unset = UNSET
    error: str | Unset = UNSET
    completed: int | Unset = UNSET
    failed: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        index = self.index

        result: dict[str, Any] | Unset = UNSET
        if not isinstance(self.result, Unset):
            result = self.result.to_dict()

        error = self.error

        completed = self.completed

        failed = self.failed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if index is not UNSET:
            field_dict["index"] = index
        if result is not UNSET:
            field_dict["result"] = result
        if error is not UNSET:
            field_dict["error"] = error
        if completed is not UNSET:
            field_dict["completed"] = completed
        if failed is not UNSET:
            field_dict["failed"] = failed

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.generation_output import GenerationOutput  # noqa: PLC0415

        d = dict(src_dict)
        type_ = d.pop("type")

        index = d.pop("index", UNSET)

        _result = d.pop("result", UNSET)
        result: GenerationOutput | Unset
        if isinstance(_result, Unset):
            result = UNSET
        else:
            result = GenerationOutput.from_dict(_result)

        error = d.pop("error", UNSET)

        completed = d.pop("completed", UNSET)

        failed = d.pop("failed", UNSET)

        generate_stream_event = cls(
            type_=type_,
            index=index,
            result=result,
            error=error,
            completed=completed,
            failed=failed,
        )

        generate_stream_event.additional_properties = d
        return generate_stream_event

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
