# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.validation_issue import ValidationIssue


T = TypeVar("T", bound="Error")


@_attrs_define
class Error:
    """The one error body of this API, for every non-2xx status.

    Attributes:
        message (str): Human-readable; never contains credentials.
        code (int | str): A stable error code from the error table (a string); older servers may send an integer, which
            clients treat as opaque.
        request_id (str | Unset): The `x-snowflake-request-id` of the failed exchange, when known.
        details (list[ValidationIssue] | Unset): One entry per problem (validation errors, missing chunk indexes).
    """

    message: str
    code: int | str
    request_id: str | Unset = UNSET
    details: list[ValidationIssue] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        code: int | str
        code = self.code

        request_id = self.request_id

        details: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = []
            for details_item_data in self.details:
                details_item = details_item_data.to_dict()
                details.append(details_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
                "code": code,
            }
        )
        if request_id is not UNSET:
            field_dict["request_id"] = request_id
        if details is not UNSET:
            field_dict["details"] = details

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.validation_issue import ValidationIssue  # noqa: PLC0415

        d = dict(src_dict)
        message = d.pop("message")

        def _parse_code(data: object) -> int | str:
            return cast(int | str, data)

        code = _parse_code(d.pop("code"))

        request_id = d.pop("request_id", UNSET)

        _details = d.pop("details", UNSET)
        details: list[ValidationIssue] | Unset = UNSET
        if _details is not UNSET:
            details = []
            for details_item_data in _details:
                details_item = ValidationIssue.from_dict(details_item_data)

                details.append(details_item)

        error = cls(
            message=message,
            code=code,
            request_id=request_id,
            details=details,
        )

        error.additional_properties = d
        return error

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
