# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.job_type import JobType
from ..models.operation_type import OperationType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.operation_payload import OperationPayload


T = TypeVar("T", bound="OperationRequest")


@_attrs_define
class OperationRequest:
    """The body of `run_operation`. The payload's shape depends on `operation_type` (stated
    as `allOf` if/then rules): `weight-sync` takes a `SyncWeightsRequest` (`{}` or no
    payload uses the defaults), `forward` a `LogProbsRequest`, `cancel-request` a
    `CancelRequestPayload`; the other types take any object (`{}`). A payload that breaks
    its rule answers `422 validation_error`.

        Attributes:
            operation_type (OperationType): An operation with no route of its own. Asynchronous (answer `202
                AcceptedRequest`):
                `weight-sync` (payload a `SyncWeightsRequest`), `forward` (payload a `LogProbsRequest`).
                Inline (answer `200 OperationResult`): `reset-prefix-cache`, `cancel-request` (payload
                a `CancelRequestPayload`), `tail-logs` (payload `{sub_job_id?, lines?}`), and the
                colocation no-ops `sleep`, `wake-up`. Any other value answers `422 validation_error`.
            sub_job_id (str | Unset): `{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but
                `log_probability` as a job type.
            sub_job_type (JobType | Unset): What a sub-job does.
            payload (OperationPayload | Unset): An operation's arguments, specific to its `operation_type`; `{}` when it
                takes none.
    """

    operation_type: OperationType
    sub_job_id: str | Unset = UNSET
    sub_job_type: JobType | Unset = UNSET
    payload: OperationPayload | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        operation_type = self.operation_type.value

        sub_job_id = self.sub_job_id

        sub_job_type: str | Unset = UNSET
        if not isinstance(self.sub_job_type, Unset):
            sub_job_type = self.sub_job_type.value

        payload: dict[str, Any] | Unset = UNSET
        if not isinstance(self.payload, Unset):
            payload = self.payload.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "operation_type": operation_type,
            }
        )
        if sub_job_id is not UNSET:
            field_dict["sub_job_id"] = sub_job_id
        if sub_job_type is not UNSET:
            field_dict["sub_job_type"] = sub_job_type
        if payload is not UNSET:
            field_dict["payload"] = payload

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.operation_payload import OperationPayload  # noqa: PLC0415

        d = dict(src_dict)
        operation_type = OperationType(d.pop("operation_type"))

        sub_job_id = d.pop("sub_job_id", UNSET)

        _sub_job_type = d.pop("sub_job_type", UNSET)
        sub_job_type: JobType | Unset
        if isinstance(_sub_job_type, Unset):
            sub_job_type = UNSET
        else:
            sub_job_type = JobType(_sub_job_type)

        _payload = d.pop("payload", UNSET)
        payload: OperationPayload | Unset
        if isinstance(_payload, Unset):
            payload = UNSET
        else:
            payload = OperationPayload.from_dict(_payload)

        operation_request = cls(
            operation_type=operation_type,
            sub_job_id=sub_job_id,
            sub_job_type=sub_job_type,
            payload=payload,
        )

        return operation_request
