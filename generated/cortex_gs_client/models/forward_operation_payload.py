# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ForwardOperationPayload")


@_attrs_define
class ForwardOperationPayload:
    """The payload of the `forward` operation, today's forward without gradients: one complete
    DSSST1 frame of a `ForwardBackwardBatch` (`kwargs {input_ids, attention_mask,
    position_ids?}`, `context {input_ids}`, `processing {post: [compute_logprobs],
    loss_fn: null}`; frame metadata `response_options {format: dssst1, delivery: chunked}`)
    as base64 in JSON. Not chunked: the JSON body is at most 16 MiB (16777216 bytes) and
    the decoded frame at most 60 MiB, so a big batch is split by rows, never by bytes (the
    service decodes one whole frame a post). Only `compute_logprobs`; rows left-aligned
    (`ModelKwargs`). The answer is polled; its result is `ForwardOperationResult`, or a
    `payload_b64` frame holding one.

        Attributes:
            payload_b64 (str): Standard base64 (RFC 4648, with padding).
            content_type (str | Unset): Media type of the decoded bytes (`application/octet-stream`).
    """

    payload_b64: str
    content_type: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        payload_b64 = self.payload_b64

        content_type = self.content_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "payload_b64": payload_b64,
            }
        )
        if content_type is not UNSET:
            field_dict["content_type"] = content_type

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        payload_b64 = d.pop("payload_b64")

        content_type = d.pop("content_type", UNSET)

        forward_operation_payload = cls(
            payload_b64=payload_b64,
            content_type=content_type,
        )

        forward_operation_payload.additional_properties = d
        return forward_operation_payload

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
