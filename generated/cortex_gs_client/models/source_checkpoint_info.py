# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SourceCheckpointInfo")


@_attrs_define
class SourceCheckpointInfo:
    """Start the sub-job from a checkpoint, possibly one of another job.

    Attributes:
        checkpoint_id (str): A checkpoint's id, chosen by the caller or named after the global step.
        source_job_id (str | Unset): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator)
            and is never `capacity` (that route wins).
    """

    checkpoint_id: str
    source_job_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        checkpoint_id = self.checkpoint_id

        source_job_id = self.source_job_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "checkpoint_id": checkpoint_id,
            }
        )
        if source_job_id is not UNSET:
            field_dict["source_job_id"] = source_job_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        checkpoint_id = d.pop("checkpoint_id")

        source_job_id = d.pop("source_job_id", UNSET)

        source_checkpoint_info = cls(
            checkpoint_id=checkpoint_id,
            source_job_id=source_job_id,
        )

        return source_checkpoint_info
