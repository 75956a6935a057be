"""The keyword-argument chunking calls, kept only until every caller passes a Chunking.

Removed in wave 2 once the client and the mock have switched (see ``iter_chunks``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, overload

from . import _chunks
from ._chunks import ChunkFrame, Chunking
from ._decode import Buffer
from ._errors import WireError


def _chunking(
    kind: str,
    max_bytes: int,
    chunk_group_id: str | None = None,
    operation: str | None = None,
    force: bool = False,
) -> Chunking:
    return Chunking(kind, max_bytes, chunk_group_id, operation, 0 if force else None)


@overload
def iter_chunks(
    value: Any, chunking: Chunking, *, metadata: Mapping[str, Any] | None = None
) -> Iterator[ChunkFrame]: ...
@overload
def iter_chunks(
    value: Any, chunking: None = None, *, metadata: Mapping[str, Any] | None = None, **old: Any
) -> Iterator[bytes]: ...
def iter_chunks(
    value: Any,
    chunking: Chunking | None = None,
    *,
    metadata: Mapping[str, Any] | None = None,
    **old: Any,
) -> Iterator[ChunkFrame] | Iterator[bytes]:
    """``iter_chunks(value, Chunking(...))``; the old keyword form yields bare bytes."""
    if chunking is not None:
        return _chunks.iter_chunks(value, chunking, metadata=metadata)
    frames = _chunks.iter_chunks(value, _chunking(**old), metadata=metadata)
    return (bytes(frame.data) for frame in frames)


@overload
def split_chunks(frame: Buffer, chunking: Chunking) -> list[ChunkFrame]: ...
@overload
def split_chunks(frame: Buffer, chunking: None = None, **old: Any) -> list[bytes]: ...
def split_chunks(
    frame: Buffer, chunking: Chunking | None = None, **old: Any
) -> list[ChunkFrame] | list[bytes]:
    """``split_chunks(frame, Chunking(...))``; the old keyword form returns bare bytes."""
    if chunking is not None:
        return _chunks.split_chunks(frame, chunking)
    return [bytes(c.data) for c in _chunks.split_chunks(frame, _chunking(**old))]


def read_chunk_descriptor(chunk: Buffer) -> dict[str, Any]:
    """The chunk's descriptor plus ``kind``; use ``read_chunk(chunk).descriptor`` instead."""
    desc = _chunks.read_chunk(chunk).descriptor
    if desc is None:
        raise WireError("bad_structure", "frame is not a chunk envelope")
    return {"kind": desc.kind, **desc.as_dict()}
