# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_state import JobState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sub_job import SubJob


T = TypeVar("T", bound="Job")


@_attrs_define
class Job:
    """A job and its sub-jobs.

    Attributes:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is never
            `capacity` (that route wins).
        status (JobState): A job's lifecycle state. `cancelled`, `terminated` and `failed` are terminal. Older servers
            send `JOB_STATE_RUNNING`-style names, `done` or `unknown`; the SDK normalises them.
        created_at (datetime.datetime): When the job was created.
        updated_at (datetime.datetime): When the job last changed state.
        sub_jobs (list[SubJob]): One entry per sub-job config, in creation order.
        reason (None | str | Unset): Why the job is in this state (for example a placement or startup failure).
        image_tag (None | str | Unset): The service image running the job.
        experiment_name (None | str | Unset): The label given at creation.
    """

    job_id: str
    status: JobState
    created_at: datetime.datetime
    updated_at: datetime.datetime
    sub_jobs: list[SubJob]
    reason: None | str | Unset = UNSET
    image_tag: None | str | Unset = UNSET
    experiment_name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        status = self.status.value

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        sub_jobs = []
        for sub_jobs_item_data in self.sub_jobs:
            sub_jobs_item = sub_jobs_item_data.to_dict()
            sub_jobs.append(sub_jobs_item)

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        image_tag: None | str | Unset
        if isinstance(self.image_tag, Unset):
            image_tag = UNSET
        else:
            image_tag = self.image_tag

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
                "sub_jobs": sub_jobs,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if image_tag is not UNSET:
            field_dict["image_tag"] = image_tag
        if experiment_name is not UNSET:
            field_dict["experiment_name"] = experiment_name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sub_job import SubJob  # noqa: PLC0415

        d = dict(src_dict)
        job_id = d.pop("job_id")

        status = JobState(d.pop("status"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        sub_jobs = []
        _sub_jobs = d.pop("sub_jobs")
        for sub_jobs_item_data in _sub_jobs:
            sub_jobs_item = SubJob.from_dict(sub_jobs_item_data)

            sub_jobs.append(sub_jobs_item)

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_image_tag(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        image_tag = _parse_image_tag(d.pop("image_tag", UNSET))

        def _parse_experiment_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        experiment_name = _parse_experiment_name(d.pop("experiment_name", UNSET))

        job = cls(
            job_id=job_id,
            status=status,
            created_at=created_at,
            updated_at=updated_at,
            sub_jobs=sub_jobs,
            reason=reason,
            image_tag=image_tag,
            experiment_name=experiment_name,
        )

        job.additional_properties = d
        return job

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
