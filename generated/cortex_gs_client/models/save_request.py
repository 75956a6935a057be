# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.checkpoint_type import CheckpointType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.save_request_stage_info import SaveRequestStageInfo


T = TypeVar("T", bound="SaveRequest")


@_attrs_define
class SaveRequest:
    """The body of `save_checkpoint`; open: fields the service does not use are accepted and
    ignored. `{}` saves a resumable checkpoint named after the step.

        Attributes:
            checkpoint_id (str | Unset): Sent by today's client when given; accepted but not forwarded (the service's save
                request has no such field), so any string is fine. Use the result's `checkpoint_id`.
            checkpoint_type (CheckpointType | Unset): `resumable` keeps optimizer and training state (the default);
                `weights-only` is Hugging Face-style model assets, for sampling.
            export_hf (bool | Unset): Sent by today's client (always `false` by default); accepted and not used by the
                service.
            path (str | Unset): Sent by today's client when given (an on-prem destination); accepted and not used by the
                service.
            step (int | Unset): Sent by today's client when given (on-prem); accepted and not used by the service.
            save_total_limit (int | Unset): Sent by today's client when given (on-prem); accepted and not used by the
                service.
            stage_info (SaveRequestStageInfo | Unset): Sent by today's client when given (on-prem); accepted and not used
                (the service stamps its own stage credentials).
    """

    checkpoint_id: str | Unset = UNSET
    checkpoint_type: CheckpointType | Unset = UNSET
    export_hf: bool | Unset = UNSET
    path: str | Unset = UNSET
    step: int | Unset = UNSET
    save_total_limit: int | Unset = UNSET
    stage_info: SaveRequestStageInfo | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoint_id = self.checkpoint_id

        checkpoint_type: str | Unset = UNSET
        if not isinstance(self.checkpoint_type, Unset):
            checkpoint_type = self.checkpoint_type.value

        export_hf = self.export_hf

        path = self.path

        step = self.step

        save_total_limit = self.save_total_limit

        stage_info: dict[str, Any] | Unset = UNSET
        if not isinstance(self.stage_info, Unset):
            stage_info = self.stage_info.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if checkpoint_id is not UNSET:
            field_dict["checkpoint_id"] = checkpoint_id
        if checkpoint_type is not UNSET:
            field_dict["checkpoint_type"] = checkpoint_type
        if export_hf is not UNSET:
            field_dict["export_hf"] = export_hf
        if path is not UNSET:
            field_dict["path"] = path
        if step is not UNSET:
            field_dict["step"] = step
        if save_total_limit is not UNSET:
            field_dict["save_total_limit"] = save_total_limit
        if stage_info is not UNSET:
            field_dict["stage_info"] = stage_info

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.save_request_stage_info import SaveRequestStageInfo  # noqa: PLC0415

        d = dict(src_dict)
        checkpoint_id = d.pop("checkpoint_id", UNSET)

        _checkpoint_type = d.pop("checkpoint_type", UNSET)
        checkpoint_type: CheckpointType | Unset
        if isinstance(_checkpoint_type, Unset):
            checkpoint_type = UNSET
        else:
            checkpoint_type = CheckpointType(_checkpoint_type)

        export_hf = d.pop("export_hf", UNSET)

        path = d.pop("path", UNSET)

        step = d.pop("step", UNSET)

        save_total_limit = d.pop("save_total_limit", UNSET)

        _stage_info = d.pop("stage_info", UNSET)
        stage_info: SaveRequestStageInfo | Unset
        if isinstance(_stage_info, Unset):
            stage_info = UNSET
        else:
            stage_info = SaveRequestStageInfo.from_dict(_stage_info)

        save_request = cls(
            checkpoint_id=checkpoint_id,
            checkpoint_type=checkpoint_type,
            export_hf=export_hf,
            path=path,
            step=step,
            save_total_limit=save_total_limit,
            stage_info=stage_info,
        )

        save_request.additional_properties = d
        return save_request

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
