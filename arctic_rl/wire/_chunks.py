"""Chunk envelopes: how a frame is cut into byte ranges, and what each range says.

Each chunk is itself a DSSST1 frame ``{"payload": uint8[L]}`` whose ``op`` metadata
holds one descriptor under ``request_chunk`` or ``result_chunk``. The descriptor binds
every chunk to the whole frame's size and SHA-256, so reassembly can verify both.
Encoding yields :class:`ChunkFrame` objects that carry their descriptor, and
:func:`read_chunk` parses a received one once, so no caller re-reads a header that
was just built or already checked.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _buffers
from ._decode import Buffer, as_memoryview, parse_dss, parse_header
from ._dtypes import BY_CODE
from ._encode import EncodedFrame, build_prefix, encode_frame, iter_frame_slices
from ._errors import WireError
from ._limits import CHUNK_HEADROOM, CHUNK_KINDS, DEFAULT_LIMITS, MAX_BODY_BYTES, VERSION, Limits

_CHUNK_TREE = ["d", [["payload", ["t", "payload"]]]]
_CHUNK_DSS = json.dumps({"v": VERSION, "tree": _CHUNK_TREE})
_HEX64 = re.compile(r"[0-9a-f]{64}")
_U8 = BY_CODE["U8"]


def _check_kind(kind: str) -> None:
    if kind not in CHUNK_KINDS:
        raise WireError("bad_value", f"chunk kind must be one of {CHUNK_KINDS}, got {kind!r}")


@dataclass(frozen=True, slots=True)
class Chunking:
    """How one frame travels: its direction, the body cap, and the group it belongs to.

    ``max_bytes`` caps each chunk frame; its payload is ``max_bytes - CHUNK_HEADROOM``.
    A frame of at most ``bare_max_bytes`` (default: ``max_bytes``) travels bare, as one
    :class:`ChunkFrame` without a descriptor; ``bare_max_bytes=0`` always wraps it in an
    envelope (forward-backward binds its idempotency key that way). A ``request_chunk``
    plan without ``chunk_group_id`` gets a fresh random one each time it is used; pass
    your own to make retries (and streamed vs one-shot output) byte-identical.
    """

    kind: str
    max_bytes: int = MAX_BODY_BYTES
    chunk_group_id: str | None = None
    operation: str | None = None
    bare_max_bytes: int | None = None

    def __post_init__(self) -> None:
        _check_kind(self.kind)
        if type(self.max_bytes) is not int or self.max_bytes <= CHUNK_HEADROOM:
            raise WireError("bad_value", f"max_bytes must be an int above {CHUNK_HEADROOM}")
        bare = self.bare_max_bytes
        if bare is not None and (type(bare) is not int or bare < 0):
            raise WireError("bad_value", "bare_max_bytes must be a non-negative int")

    @classmethod
    def for_payload(
        cls,
        payload_bytes: int,
        *,
        kind: str,
        chunk_group_id: str | None = None,
        operation: str | None = None,
        bare_max_bytes: int | None = None,
    ) -> Chunking:
        """The plan whose chunks carry ``payload_bytes`` of the frame each."""
        return cls(kind, payload_bytes + CHUNK_HEADROOM, chunk_group_id, operation, bare_max_bytes)

    @property
    def payload_bytes(self) -> int:
        """Frame bytes per chunk (the last one carries the rest)."""
        return self.max_bytes - CHUNK_HEADROOM

    def travels_bare(self, frame_size: int) -> bool:
        """Whether a frame of ``frame_size`` bytes is sent as is, without an envelope."""
        limit = self.max_bytes if self.bare_max_bytes is None else self.bare_max_bytes
        return frame_size <= limit


@dataclass(frozen=True, slots=True)
class ChunkDescriptor:
    """What one chunk says about itself and about the whole frame it belongs to."""

    kind: str
    chunk_idx: int
    total_chunks: int
    frame_sha256: str
    frame_size_bytes: int
    chunk_group_id: str | None = None
    operation: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The descriptor as it travels in ``op`` (key order matters for byte identity)."""
        out: dict[str, Any] = {
            "chunk_idx": self.chunk_idx,
            "total_chunks": self.total_chunks,
            "frame_sha256": self.frame_sha256,
            "frame_size_bytes": self.frame_size_bytes,
        }
        if self.chunk_group_id is not None:
            out["chunk_group_id"] = self.chunk_group_id
        if self.operation is not None:
            out["operation"] = self.operation
        return out

    def same_frame(self, other: ChunkDescriptor) -> bool:
        """True when both chunks claim the same frame and group."""
        return self._frame_key() == other._frame_key()

    def _frame_key(self) -> tuple[Any, ...]:
        return (
            self.kind,
            self.total_chunks,
            self.frame_sha256,
            self.frame_size_bytes,
            self.chunk_group_id,
            self.operation,
        )


class _Placed:
    """Where a chunk sits in its frame, from its descriptor (``None``: a bare frame)."""

    __slots__ = ()
    descriptor: ChunkDescriptor | None

    @property
    def index(self) -> int:
        """This chunk's position in its frame (0 for a bare frame)."""
        return 0 if self.descriptor is None else self.descriptor.chunk_idx

    @property
    def total(self) -> int:
        """How many chunks the frame travels in (1 for a bare frame)."""
        return 1 if self.descriptor is None else self.descriptor.total_chunks

    @property
    def frame_size(self) -> int:
        """Size of the whole frame this chunk belongs to."""
        return self._body_size() if self.descriptor is None else self.descriptor.frame_size_bytes

    def _body_size(self) -> int:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class ChunkFrame(_Placed):
    """One body on the wire: its bytes and, for an envelope, its parsed descriptor.

    ``descriptor`` is ``None`` for a bare frame (one that fits and travels as is). The
    frame part it carries (the envelope's payload, or the bare frame itself) starts at
    ``payload_offset`` and runs to the end of ``data``.
    """

    data: Buffer
    descriptor: ChunkDescriptor | None
    payload_offset: int = field(default=0, repr=False)

    def __bytes__(self) -> bytes:
        return bytes(self.data)

    def _body_size(self) -> int:
        return len(self.data)

    @property
    def payload(self) -> memoryview:
        """The frame bytes this chunk carries, as a view of ``data``."""
        return as_memoryview(self.data)[self.payload_offset :]


@dataclass(frozen=True, slots=True)
class ChunkParts(_Placed):
    """One body on the wire as the buffers it is made of, uncopied: ``b"".join(parts)``
    is the :class:`ChunkFrame` ``data`` that :func:`iter_chunks` would give. The parts
    view the encoded value's own memory, which must not change until they are sent."""

    parts: tuple[bytes | memoryview, ...]
    descriptor: ChunkDescriptor | None
    size: int

    def _body_size(self) -> int:
        return self.size


def _chunk_prefix(desc: ChunkDescriptor, length: int, max_bytes: int) -> bytes:
    """The header of an envelope ``dumps({"payload": u8[length]}, metadata={kind: desc})``."""
    op = json.dumps({desc.kind: desc.as_dict()})
    prefix = build_prefix(
        [("dss", _CHUNK_DSS), ("op", op)], [("payload", "U8", (length,), 0, length)]
    )
    if len(prefix) + length > max_bytes:
        raise WireError("too_large", "chunk header does not fit in the chunk headroom")
    return prefix


def _parts_of(frame: EncodedFrame, chunking: Chunking) -> Iterator[ChunkParts]:
    if chunking.travels_bare(frame.size):
        yield ChunkParts(tuple(frame.parts()), None, frame.size)
        return
    group_id = chunking.chunk_group_id
    if group_id is None and chunking.kind == "request_chunk":
        group_id = uuid.uuid4().hex  # a fresh group per logical operation
    payload = chunking.payload_bytes
    sha = frame.sha256()
    total = math.ceil(frame.size / payload)
    for idx, parts in enumerate(iter_frame_slices(frame, payload)):
        desc = ChunkDescriptor(
            chunking.kind, idx, total, sha, frame.size, group_id, chunking.operation
        )
        length = sum(len(p) for p in parts)
        prefix = _chunk_prefix(desc, length, chunking.max_bytes)
        yield ChunkParts((prefix, *parts), desc, len(prefix) + length)


def _frames_of(frame: EncodedFrame, chunking: Chunking) -> Iterator[ChunkFrame]:
    # A chunk the receiver has let go of is refilled for a later one (no fresh pages).
    recycler = _buffers.Recycler()
    for chunk in _parts_of(frame, chunking):
        if chunk.descriptor is None:
            yield ChunkFrame(frame.join(), None)
        else:  # (no local keeps the buffer: the recycler must see it let go)
            parts, desc = chunk.parts, chunk.descriptor
            yield ChunkFrame(_buffers.gather(parts, chunk.size, recycler), desc, len(parts[0]))


def iter_chunks(
    value: Any, chunking: Chunking, *, metadata: Mapping[str, Any] | None = None
) -> Iterator[ChunkFrame]:
    """Encode ``value`` straight to chunk frames without building the whole frame.

    Tensor bytes are read twice (once to hash, once to emit) and never copied whole.
    The generator keeps at most two chunks it has handed out, to refill once the
    receiver lets go of them; it never holds more than that. Output equals
    ``split_chunks(dumps(value, metadata=metadata), chunking)`` given the same group id.
    """
    return _frames_of(encode_frame(value, metadata=metadata), chunking)


def iter_chunk_parts(
    value: Any, chunking: Chunking, *, metadata: Mapping[str, Any] | None = None
) -> Iterator[ChunkParts]:
    """The bodies :func:`iter_chunks` would give, each as the buffers it is made of.

    Nothing is copied: a sender that writes the parts in order (the socket copies them
    anyway) skips the copy into one chunk buffer. Tensor bytes are read twice (once to
    hash, once to send).
    """
    return _parts_of(encode_frame(value, metadata=metadata), chunking)


def iter_frame_chunk_parts(frame: EncodedFrame, chunking: Chunking) -> Iterator[ChunkParts]:
    """:func:`iter_chunk_parts` of a frame already encoded (`encode_frame`): a sender that
    needed the frame's digest first hashes its tensors once, not twice."""
    return _parts_of(frame, chunking)


def split_chunks(frame: Buffer, chunking: Chunking) -> list[ChunkFrame]:
    """Cut an encoded frame into chunk frames of at most ``chunking.max_bytes`` each."""
    view = as_memoryview(frame)
    return list(_frames_of(EncodedFrame(b"", [view], len(view)), chunking))


def _descriptor_from_op(op: dict[str, Any]) -> ChunkDescriptor | None:
    kinds = [k for k in CHUNK_KINDS if k in op]
    if not kinds:
        return None
    if len(kinds) > 1:
        raise WireError("bad_structure", "chunk carries both request and result descriptors")
    kind = kinds[0]
    d = op[kind]
    if not isinstance(d, dict):
        raise WireError("bad_structure", "chunk descriptor is not an object")
    idx, total = d.get("chunk_idx"), d.get("total_chunks")
    sha, size = d.get("frame_sha256"), d.get("frame_size_bytes")
    group, operation = d.get("chunk_group_id"), d.get("operation")
    if type(idx) is not int or type(total) is not int or type(size) is not int:
        raise WireError("bad_structure", "chunk_idx, total_chunks, frame_size_bytes must be ints")
    if not isinstance(sha, str) or not _HEX64.fullmatch(sha):
        raise WireError("bad_structure", "frame_sha256 must be 64 lowercase hex digits")
    if group is not None and not isinstance(group, str):
        raise WireError("bad_structure", "chunk_group_id must be a string")
    if operation is not None and not isinstance(operation, str):
        raise WireError("bad_structure", "operation must be a string")
    if size < 1 or total < 1 or total > size:
        raise WireError("bad_structure", "frame_size_bytes/total_chunks out of range")
    if not 0 <= idx < total:
        raise WireError("bad_structure", f"chunk_idx {idx} outside 0..{total - 1}")
    return ChunkDescriptor(kind, idx, total, sha, size, group, operation)


def read_chunk(data: Buffer, *, limits: Limits = DEFAULT_LIMITS) -> ChunkFrame:
    """Parse a received body once: an envelope with its descriptor, or a bare frame.

    Validates the header (not the payload bytes, which reassembly hashes); hand the
    result to :meth:`ChunkAssembler.add` so the header is not read again.
    """
    view = as_memoryview(data)
    header = parse_header(view, limits)
    tree, op = parse_dss(header)
    desc = _descriptor_from_op(op)
    if desc is None:
        return ChunkFrame(data, None)
    info = header.tensors.get("payload")
    if tree != _CHUNK_TREE or info is None or len(header.tensors) != 1:
        raise WireError("bad_structure", "chunk frame must hold exactly {'payload': uint8[n]}")
    if info.dtype is not _U8 or len(info.shape) != 1 or info.shape[0] < 1:
        raise WireError("bad_structure", "chunk payload must be a non-empty 1-D uint8 tensor")
    return ChunkFrame(data, desc, header.data_start + info.begin)
