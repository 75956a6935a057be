# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chunk_descriptor import ChunkDescriptor
    from ..models.request_chunk_descriptor import RequestChunkDescriptor
    from ..models.response_options import ResponseOptions


T = TypeVar("T", bound="FrameOpMetadata")


@_attrs_define
class FrameOpMetadata:
    """The `op` metadata of a DSSST1 frame. Today's client puts
    `response_options: {format: dssst1, delivery: chunked}` in every request frame; chunk
    frames hold their descriptor under `request_chunk` or `result_chunk`.

        Attributes:
            response_options (ResponseOptions | Unset): How the client wants the result delivered.
            request_chunk (RequestChunkDescriptor | Unset): A request chunk's descriptor; request chunks always carry
                `chunk_group_id` (the server's idempotency key) and `operation`.
            result_chunk (ChunkDescriptor | Unset): The descriptor in a chunk frame's `op` metadata, under `request_chunk`
                or `result_chunk`.
                `frame_sha256` and `frame_size_bytes` describe the whole original frame and are equal in
                every chunk of a group.
            router_replay (Any | Unset): Router-replay metadata, a backend contract.
    """

    response_options: ResponseOptions | Unset = UNSET
    request_chunk: RequestChunkDescriptor | Unset = UNSET
    result_chunk: ChunkDescriptor | Unset = UNSET
    router_replay: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        response_options: dict[str, Any] | Unset = UNSET
        if not isinstance(self.response_options, Unset):
            response_options = self.response_options.to_dict()

        request_chunk: dict[str, Any] | Unset = UNSET
        if not isinstance(self.request_chunk, Unset):
            request_chunk = self.request_chunk.to_dict()

        result_chunk: dict[str, Any] | Unset = UNSET
        if not isinstance(self.result_chunk, Unset):
            result_chunk = self.result_chunk.to_dict()

        router_replay = self.router_replay

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if response_options is not UNSET:
            field_dict["response_options"] = response_options
        if request_chunk is not UNSET:
            field_dict["request_chunk"] = request_chunk
        if result_chunk is not UNSET:
            field_dict["result_chunk"] = result_chunk
        if router_replay is not UNSET:
            field_dict["router_replay"] = router_replay

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chunk_descriptor import ChunkDescriptor  # noqa: PLC0415
        from ..models.request_chunk_descriptor import RequestChunkDescriptor  # noqa: PLC0415
        from ..models.response_options import ResponseOptions  # noqa: PLC0415

        d = dict(src_dict)
        _response_options = d.pop("response_options", UNSET)
        response_options: ResponseOptions | Unset
        if isinstance(_response_options, Unset):
            response_options = UNSET
        else:
            response_options = ResponseOptions.from_dict(_response_options)

        _request_chunk = d.pop("request_chunk", UNSET)
        request_chunk: RequestChunkDescriptor | Unset
        if isinstance(_request_chunk, Unset):
            request_chunk = UNSET
        else:
            request_chunk = RequestChunkDescriptor.from_dict(_request_chunk)

        _result_chunk = d.pop("result_chunk", UNSET)
        result_chunk: ChunkDescriptor | Unset
        if isinstance(_result_chunk, Unset):
            result_chunk = UNSET
        else:
            result_chunk = ChunkDescriptor.from_dict(_result_chunk)

        router_replay = d.pop("router_replay", UNSET)

        frame_op_metadata = cls(
            response_options=response_options,
            request_chunk=request_chunk,
            result_chunk=result_chunk,
            router_replay=router_replay,
        )

        frame_op_metadata.additional_properties = d
        return frame_op_metadata

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
