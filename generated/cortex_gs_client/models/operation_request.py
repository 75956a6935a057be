# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_type import JobType
from ..models.operation_type import OperationType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.operation_payload import OperationPayload


T = TypeVar("T", bound="OperationRequest")


@_attrs_define
class OperationRequest:
    """The body of `run_operation`. `operation_type` is required; `sub_job_id` and
    `sub_job_type` are optional routing hints that must agree when both are given. The
    payload depends on `operation_type` (stated as one `allOf` if/then/else chain; every
    payload is open): `forward` a `ForwardOperationPayload`, `weight-sync` a `WeightSyncPayload`,
    `bootstrap-router-replay` a `BootstrapRouterReplayPayload`, `router-replay-discard` a
    `RouterReplayDiscardPayload`, `reset-prefix-cache` a `ResetPrefixCachePayload`,
    `cancel-request` a `CancelRequestPayload`, `tail-logs` a `TailLogsPayload`.

        Attributes:
            operation_type (OperationType): The operation types the service accepts. Scheduled (answer `202
                AcceptedRequest`):
                `forward`, `weight-sync`. Inline (answer `200` with the result itself):
                `bootstrap-router-replay` (a deployment may schedule it instead), `router-replay-discard`,
                `reset-prefix-cache`, `cancel-request`, `tail-logs`. There is no `sleep`/`wake-up` on the
                wire (training and sampling never share GPUs on Cortex) and no `zmd-events`.
            sub_job_id (str | Unset): `{job_id}:{training|sampling|log_prob}:{index}`. Note `log_prob` here but
                `log_probability` as a job type.
            sub_job_type (JobType | Unset): What a sub-job does.
            payload (OperationPayload | Unset): An operation's arguments, specific to its `operation_type` (see
                `OperationRequest`).
    """

    operation_type: OperationType
    sub_job_id: str | Unset = UNSET
    sub_job_type: JobType | Unset = UNSET
    payload: OperationPayload | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

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
        field_dict.update(self.additional_properties)
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

        operation_request.additional_properties = d
        return operation_request

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
