# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.request_state import RequestState

if TYPE_CHECKING:
    from ..models.error import Error
    from ..models.inline_binary_result import InlineBinaryResult
    from ..models.json_result import JsonResult
    from ..models.request_event import RequestEvent


T = TypeVar("T", bound="RequestStatus")


@_attrs_define
class RequestStatus:
    """One poll of a data-plane request. `result` is set once `status` is `completed`: a JSON
    object for JSON results, an `InlineBinaryResult` for small DSSST1 results, and null for
    large DSSST1 results, which arrive as `result_chunk` events instead. `error` is set once
    `status` is `failed`.

        Attributes:
            request_id (str): A data-plane request's id.
            job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is never
                `capacity` (that route wins).
            status (RequestState): A data-plane request's state. `completed`, `failed` and `cancelled` are terminal. Older
                servers send `done`/`succeeded`, `canceled` or `REQUEST_STATE_`-prefixed names; the SDK
                normalises them.
            created_at (datetime.datetime): When the request was accepted.
            updated_at (datetime.datetime): When it last changed.
            result (InlineBinaryResult | JsonResult | None): The result, when done (see above).
            error (Error | None): Why the request failed.
            events (list[RequestEvent]): One page of events, oldest first.
            next_cursor (None | str): Cursor of the next page; null when the request is terminal and every event was read.
    """

    request_id: str
    job_id: str
    status: RequestState
    created_at: datetime.datetime
    updated_at: datetime.datetime
    result: InlineBinaryResult | JsonResult | None
    error: Error | None
    events: list[RequestEvent]
    next_cursor: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.error import Error  # noqa: PLC0415
        from ..models.inline_binary_result import InlineBinaryResult  # noqa: PLC0415
        from ..models.json_result import JsonResult  # noqa: PLC0415

        request_id = self.request_id

        job_id = self.job_id

        status = self.status.value

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        result: dict[str, Any] | None
        if isinstance(self.result, InlineBinaryResult):
            result = self.result.to_dict()
        elif isinstance(self.result, JsonResult):
            result = self.result.to_dict()
        else:
            result = self.result

        error: dict[str, Any] | None
        if isinstance(self.error, Error):
            error = self.error.to_dict()
        else:
            error = self.error

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.to_dict()
            events.append(events_item)

        next_cursor: None | str
        next_cursor = self.next_cursor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "request_id": request_id,
                "job_id": job_id,
                "status": status,
                "created_at": created_at,
                "updated_at": updated_at,
                "result": result,
                "error": error,
                "events": events,
                "next_cursor": next_cursor,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.error import Error  # noqa: PLC0415
        from ..models.inline_binary_result import InlineBinaryResult  # noqa: PLC0415
        from ..models.json_result import JsonResult  # noqa: PLC0415
        from ..models.request_event import RequestEvent  # noqa: PLC0415

        d = dict(src_dict)
        request_id = d.pop("request_id")

        job_id = d.pop("job_id")

        status = RequestState(d.pop("status"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_result(data: object) -> InlineBinaryResult | JsonResult | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = InlineBinaryResult.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_1 = JsonResult.from_dict(data)

                return result_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InlineBinaryResult | JsonResult | None, data)

        result = _parse_result(d.pop("result"))

        def _parse_error(data: object) -> Error | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = Error.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Error | None, data)

        error = _parse_error(d.pop("error"))

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = RequestEvent.from_dict(events_item_data)

            events.append(events_item)

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor"))

        request_status = cls(
            request_id=request_id,
            job_id=job_id,
            status=status,
            created_at=created_at,
            updated_at=updated_at,
            result=result,
            error=error,
            events=events,
            next_cursor=next_cursor,
        )

        request_status.additional_properties = d
        return request_status

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
