# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.error_code import ErrorCode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.validation_issue import ValidationIssue


T = TypeVar("T", bound="Error")


@_attrs_define
class Error:
    """An error body, in one of today's two shapes: `{message, code}` with an integer code
    (the chunk-group errors carry a string code), or FastAPI's validation body
    `{detail: [...]}`. An older missing-chunks answer is `{chunk_group_id, message}`. Open:
    servers may add fields.

        Attributes:
            message (str | Unset): Human-readable; never contains credentials.
            code (int | str | Unset): Today an integer (for example 409), or one of the chunk-group codes
                `chunk_group_restart_required`, `chunk_group_conflict`,
                `chunk_group_missing_chunks`.<!-- proposed:start --> The proposed stable string code
                travels beside it, in `error_code`.<!-- proposed:end -->
            detail (list[ValidationIssue] | Unset): FastAPI validation problems, one per offending value.
            chunk_group_id (str | Unset): The idempotency key of one chunked operation, chosen by the client (a UUID4
                today).
            error_code (ErrorCode | Unset): A stable error code, sent as `error_code` (see the proposed code table in the
                introduction).
            request_id (str | Unset): The `x-snowflake-request-id` of the failed exchange.
            details (list[ValidationIssue] | Unset): One entry per problem (validation errors, missing chunk indexes), with
                the string codes.
            missing_chunk_count (int | Unset): On `chunk_group_missing_chunks`: how many chunks the group still lacks.
                `details` lists
                at most the first 64 of them, so a client resends everything when this is larger.
            expired_request_id (str | Unset): A data-plane request's id, opaque; a self-describing id may embed the owning
                sub-job (with `:`).
    """

    message: str | Unset = UNSET
    code: int | str | Unset = UNSET
    detail: list[ValidationIssue] | Unset = UNSET
    chunk_group_id: str | Unset = UNSET
    error_code: ErrorCode | Unset = UNSET
    request_id: str | Unset = UNSET
    details: list[ValidationIssue] | Unset = UNSET
    missing_chunk_count: int | Unset = UNSET
    expired_request_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        code: int | str | Unset
        if isinstance(self.code, Unset):
            code = UNSET
        else:
            code = self.code

        detail: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.detail, Unset):
            detail = []
            for detail_item_data in self.detail:
                detail_item = detail_item_data.to_dict()
                detail.append(detail_item)

        chunk_group_id = self.chunk_group_id

        error_code: str | Unset = UNSET
        if not isinstance(self.error_code, Unset):
            error_code = self.error_code.value

        request_id = self.request_id

        details: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = []
            for details_item_data in self.details:
                details_item = details_item_data.to_dict()
                details.append(details_item)

        missing_chunk_count = self.missing_chunk_count

        expired_request_id = self.expired_request_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if message is not UNSET:
            field_dict["message"] = message
        if code is not UNSET:
            field_dict["code"] = code
        if detail is not UNSET:
            field_dict["detail"] = detail
        if chunk_group_id is not UNSET:
            field_dict["chunk_group_id"] = chunk_group_id
        if error_code is not UNSET:
            field_dict["error_code"] = error_code
        if request_id is not UNSET:
            field_dict["request_id"] = request_id
        if details is not UNSET:
            field_dict["details"] = details
        if missing_chunk_count is not UNSET:
            field_dict["missing_chunk_count"] = missing_chunk_count
        if expired_request_id is not UNSET:
            field_dict["expired_request_id"] = expired_request_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.validation_issue import ValidationIssue  # noqa: PLC0415

        d = dict(src_dict)
        message = d.pop("message", UNSET)

        def _parse_code(data: object) -> int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(int | str | Unset, data)

        code = _parse_code(d.pop("code", UNSET))

        _detail = d.pop("detail", UNSET)
        detail: list[ValidationIssue] | Unset = UNSET
        if _detail is not UNSET:
            detail = []
            for detail_item_data in _detail:
                detail_item = ValidationIssue.from_dict(detail_item_data)

                detail.append(detail_item)

        chunk_group_id = d.pop("chunk_group_id", UNSET)

        _error_code = d.pop("error_code", UNSET)
        error_code: ErrorCode | Unset
        if isinstance(_error_code, Unset):
            error_code = UNSET
        else:
            error_code = ErrorCode(_error_code)

        request_id = d.pop("request_id", UNSET)

        _details = d.pop("details", UNSET)
        details: list[ValidationIssue] | Unset = UNSET
        if _details is not UNSET:
            details = []
            for details_item_data in _details:
                details_item = ValidationIssue.from_dict(details_item_data)

                details.append(details_item)

        missing_chunk_count = d.pop("missing_chunk_count", UNSET)

        expired_request_id = d.pop("expired_request_id", UNSET)

        error = cls(
            message=message,
            code=code,
            detail=detail,
            chunk_group_id=chunk_group_id,
            error_code=error_code,
            request_id=request_id,
            details=details,
            missing_chunk_count=missing_chunk_count,
            expired_request_id=expired_request_id,
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
