# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tensor_ref import TensorRef


T = TypeVar("T", bound="ForwardOperationResult")


@_attrs_define
class ForwardOperationResult:
    """The result of a `forward` operation: the log-probabilities as one top-level `[B, T]` tensor
    (shifted convention, rows as sent). The service may instead answer `payload_b64`, a
    DSSST1 frame holding this object.

        Attributes:
            job_id (str | Unset): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a separator) and is
                never `capacity` (that route wins).
            logprobs (TensorRef | Unset): A tensor inside a DSSST1 frame, described by dtype (safetensors names) and shape.
                On the
                wire the bytes live in the safetensors body; in this document a `TensorRef` marks where.
            payload_b64 (str | Unset): Standard base64 (RFC 4648, with padding).
    """

    job_id: str | Unset = UNSET
    logprobs: TensorRef | Unset = UNSET
    payload_b64: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        logprobs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.logprobs, Unset):
            logprobs = self.logprobs.to_dict()

        payload_b64 = self.payload_b64

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if job_id is not UNSET:
            field_dict["job_id"] = job_id
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if payload_b64 is not UNSET:
            field_dict["payload_b64"] = payload_b64

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tensor_ref import TensorRef  # noqa: PLC0415

        d = dict(src_dict)
        job_id = d.pop("job_id", UNSET)

        _logprobs = d.pop("logprobs", UNSET)
        logprobs: TensorRef | Unset
        if isinstance(_logprobs, Unset):
            logprobs = UNSET
        else:
            logprobs = TensorRef.from_dict(_logprobs)

        payload_b64 = d.pop("payload_b64", UNSET)

        forward_operation_result = cls(
            job_id=job_id,
            logprobs=logprobs,
            payload_b64=payload_b64,
        )

        forward_operation_result.additional_properties = d
        return forward_operation_result

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
