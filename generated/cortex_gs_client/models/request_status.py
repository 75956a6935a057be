# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.request_state import RequestState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.inline_binary_result import InlineBinaryResult
    from ..models.json_result import JsonResult
    from ..models.request_event import RequestEvent


T = TypeVar("T", bound="RequestStatus")


@_attrs_define
class RequestStatus:
    """One poll of a data-plane request (proto3 JSON: empty fields may be absent). `result` is
    set once `status` is a success: a JSON object for JSON results, an
    `InlineBinaryResult` for small DSSST1 results; large DSSST1 results arrive as
    `result_chunk` events instead. `error` is a string, `""` when there is none.

        Attributes:
            request_id (str): A data-plane request's id, opaque; a self-describing id may embed the owning sub-job (with
                `:`).
            status (RequestState): A data-plane request's state. In flight: `pending`, `running`, `streaming`. Success:
                `done` (what the service sends), `completed`, `succeeded`. Failure: `failed`.
                Cancelled: `cancelled`, `canceled`. Raw enum names such as `REQUEST_STATE_DONE` can
                also appear; clients lowercase and drop the prefix.<!-- proposed:start -->

                *Proposed, not built:* a request outlives a restart of the service (a deploy, a
                preemption). One that was `running` when the service stopped goes back to `pending`
                and runs again, from the state before it: nothing of a run is kept until the run is
                `done`, so it takes effect once. A client polling it across the restart sees it end
                as if nothing had happened; while the service is down, its polls and submits fail to
                connect or answer `503`, and it retries them (submits with the same `Idempotency-Key`
                or chunk group id). The one exception is a `streaming` request (generate-stream, from
                its start): its events are handed out as they are read, so it is never run twice; it
                fails with `internal_error`, and the client submits it again. A request that failed
                on its own stays `failed`.<!-- proposed:end -->
            created_at (datetime.datetime | Unset): When the request was accepted.
            started_at (datetime.datetime | Unset): When it began to run (absent while it is `pending`).
            updated_at (datetime.datetime | Unset): When it last changed.
            result (InlineBinaryResult | JsonResult | None | Unset): The result, when done (see above).
            error (str | Unset): Why the request failed; `""` when it did not.
            error_code (str | Unset): A stable string naming why the request failed (`ErrorCode` values where they apply).
            events (list[RequestEvent] | Unset): One page of events, oldest first.
            next_cursor (str | Unset): Cursor of the next result-chunk page; non-empty only while more result chunks are
                queued, `""` otherwise.
    """

    request_id: str
    status: RequestState
    created_at: datetime.datetime | Unset = UNSET
    started_at: datetime.datetime | Unset = UNSET
    updated_at: datetime.datetime | Unset = UNSET
    result: InlineBinaryResult | JsonResult | None | Unset = UNSET
    error: str | Unset = UNSET
    error_code: str | Unset = UNSET
    events: list[RequestEvent] | Unset = UNSET
    next_cursor: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.inline_binary_result import InlineBinaryResult  # noqa: PLC0415
        from ..models.json_result import JsonResult  # noqa: PLC0415

        request_id = self.request_id

        status = self.status.value

        created_at: str | Unset = UNSET
        if not isinstance(self.created_at, Unset):
            created_at = self.created_at.isoformat()

        started_at: str | Unset = UNSET
        if not isinstance(self.started_at, Unset):
            started_at = self.started_at.isoformat()

        updated_at: str | Unset = UNSET
        if not isinstance(self.updated_at, Unset):
            updated_at = self.updated_at.isoformat()

        result: dict[str, Any] | None | Unset
        if isinstance(self.result, Unset):
            result = UNSET
        elif isinstance(self.result, InlineBinaryResult):
            result = self.result.to_dict()
        elif isinstance(self.result, JsonResult):
            result = self.result.to_dict()
        else:
            result = self.result

        error = self.error

        error_code = self.error_code

        events: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.to_dict()
                events.append(events_item)

        next_cursor = self.next_cursor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "request_id": request_id,
                "status": status,
            }
        )
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at
        if result is not UNSET:
            field_dict["result"] = result
        if error is not UNSET:
            field_dict["error"] = error
        if error_code is not UNSET:
            field_dict["error_code"] = error_code
        if events is not UNSET:
            field_dict["events"] = events
        if next_cursor is not UNSET:
            field_dict["next_cursor"] = next_cursor

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.inline_binary_result import InlineBinaryResult  # noqa: PLC0415
        from ..models.json_result import JsonResult  # noqa: PLC0415
        from ..models.request_event import RequestEvent  # noqa: PLC0415

        d = dict(src_dict)
        request_id = d.pop("request_id")

        status = RequestState(d.pop("status"))

        _created_at = d.pop("created_at", UNSET)
        created_at: datetime.datetime | Unset
        if isinstance(_created_at, Unset):
            created_at = UNSET
        else:
            created_at = datetime.datetime.fromisoformat(_created_at)

        _started_at = d.pop("started_at", UNSET)
        started_at: datetime.datetime | Unset
        if isinstance(_started_at, Unset):
            started_at = UNSET
        else:
            started_at = datetime.datetime.fromisoformat(_started_at)

        _updated_at = d.pop("updated_at", UNSET)
        updated_at: datetime.datetime | Unset
        if isinstance(_updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = datetime.datetime.fromisoformat(_updated_at)

        def _parse_result(data: object) -> InlineBinaryResult | JsonResult | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
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
            return cast(InlineBinaryResult | JsonResult | None | Unset, data)

        result = _parse_result(d.pop("result", UNSET))

        error = d.pop("error", UNSET)

        error_code = d.pop("error_code", UNSET)

        _events = d.pop("events", UNSET)
        events: list[RequestEvent] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = RequestEvent.from_dict(events_item_data)

                events.append(events_item)

        next_cursor = d.pop("next_cursor", UNSET)

        request_status = cls(
            request_id=request_id,
            status=status,
            created_at=created_at,
            started_at=started_at,
            updated_at=updated_at,
            result=result,
            error=error,
            error_code=error_code,
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
