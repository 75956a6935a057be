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
    """A job and its sub-jobs (proto3 JSON; only `job_id` and `status` are always there).

    Attributes:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is never
            `capacity` (that route wins).
        status (JobState): A job's customer-facing state. `cancelled`, `terminated` and `failed` are terminal;
            `initializing` (placed, warming up) is neither running nor terminal. Legacy or internal
            answers can also hold `done`, `unknown` or enum names such as `JOB_STATE_RUNNING`;
            clients lowercase and drop the `JOB_STATE_` prefix.
        reason (None | str | Unset): Why the job is in this state (for example a placement or startup failure); often
            empty.
        created_at (datetime.datetime | Unset): When the job was created.
        updated_at (datetime.datetime | Unset): When the job last changed state.
        image_tag (None | str | Unset): The service image running the job; empty before placement.
        submitted_by (str | Unset): The submitting user's name; best-effort, may be absent.
        owner_role (str | Unset): The owning role's name; best-effort, may be absent.
        sub_jobs (list[SubJob] | Unset): One entry per sub-job config.
    """

    job_id: str
    status: JobState
    reason: None | str | Unset = UNSET
    created_at: datetime.datetime | Unset = UNSET
    updated_at: datetime.datetime | Unset = UNSET
    image_tag: None | str | Unset = UNSET
    submitted_by: str | Unset = UNSET
    owner_role: str | Unset = UNSET
    sub_jobs: list[SubJob] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        status = self.status.value

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        created_at: str | Unset = UNSET
        if not isinstance(self.created_at, Unset):
            created_at = self.created_at.isoformat()

        updated_at: str | Unset = UNSET
        if not isinstance(self.updated_at, Unset):
            updated_at = self.updated_at.isoformat()

        image_tag: None | str | Unset
        if isinstance(self.image_tag, Unset):
            image_tag = UNSET
        else:
            image_tag = self.image_tag

        submitted_by = self.submitted_by

        owner_role = self.owner_role

        sub_jobs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.sub_jobs, Unset):
            sub_jobs = []
            for sub_jobs_item_data in self.sub_jobs:
                sub_jobs_item = sub_jobs_item_data.to_dict()
                sub_jobs.append(sub_jobs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "status": status,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at
        if image_tag is not UNSET:
            field_dict["image_tag"] = image_tag
        if submitted_by is not UNSET:
            field_dict["submitted_by"] = submitted_by
        if owner_role is not UNSET:
            field_dict["owner_role"] = owner_role
        if sub_jobs is not UNSET:
            field_dict["sub_jobs"] = sub_jobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sub_job import SubJob  # noqa: PLC0415

        d = dict(src_dict)
        job_id = d.pop("job_id")

        status = JobState(d.pop("status"))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        _created_at = d.pop("created_at", UNSET)
        created_at: datetime.datetime | Unset
        if isinstance(_created_at, Unset):
            created_at = UNSET
        else:
            created_at = datetime.datetime.fromisoformat(_created_at)

        _updated_at = d.pop("updated_at", UNSET)
        updated_at: datetime.datetime | Unset
        if isinstance(_updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = datetime.datetime.fromisoformat(_updated_at)

        def _parse_image_tag(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        image_tag = _parse_image_tag(d.pop("image_tag", UNSET))

        submitted_by = d.pop("submitted_by", UNSET)

        owner_role = d.pop("owner_role", UNSET)

        _sub_jobs = d.pop("sub_jobs", UNSET)
        sub_jobs: list[SubJob] | Unset = UNSET
        if _sub_jobs is not UNSET:
            sub_jobs = []
            for sub_jobs_item_data in _sub_jobs:
                sub_jobs_item = SubJob.from_dict(sub_jobs_item_data)

                sub_jobs.append(sub_jobs_item)

        job = cls(
            job_id=job_id,
            status=status,
            reason=reason,
            created_at=created_at,
            updated_at=updated_at,
            image_tag=image_tag,
            submitted_by=submitted_by,
            owner_role=owner_role,
            sub_jobs=sub_jobs,
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
