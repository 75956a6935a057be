# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_state import JobState
from ..types import UNSET, Unset

T = TypeVar("T", bound="JobSummary")


@_attrs_define
class JobSummary:
    """One job in a listing.

    Attributes:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is never
            `capacity` (that route wins).
        status (JobState): A job's lifecycle state. `cancelled`, `terminated` and `failed` are terminal. Older servers
            send `JOB_STATE_RUNNING`-style names, `done` or `unknown`; the SDK normalises them.
        created_at (datetime.datetime): When the job was created.
        updated_at (datetime.datetime): When the job last changed state.
        reason (None | str | Unset): Why the job is in this state, when the server knows.
        experiment_name (None | str | Unset): The label given at creation.
    """

    job_id: str
    status: JobState
    created_at: datetime.datetime
    updated_at: datetime.datetime
    reason: None | str | Unset = UNSET
    experiment_name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        status = self.status.value

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        experiment_name: None | str | Unset
        if isinstance(self.experiment_name, Unset):
            experiment_name = UNSET
        else:
            experiment_name = self.experiment_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "status": status,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if experiment_name is not UNSET:
            field_dict["experiment_name"] = experiment_name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        status = JobState(d.pop("status"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_experiment_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        experiment_name = _parse_experiment_name(d.pop("experiment_name", UNSET))

        job_summary = cls(
            job_id=job_id,
            status=status,
            created_at=created_at,
            updated_at=updated_at,
            reason=reason,
            experiment_name=experiment_name,
        )

        job_summary.additional_properties = d
        return job_summary

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
