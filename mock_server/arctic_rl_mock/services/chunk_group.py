"""One request chunk as the chunk-group rules see it, and an unfinished group in memory.

A binary route's body is parsed once (:func:`read_request_chunk`): a ``request_chunk``
envelope becomes a :class:`Chunk` checked against its route (:func:`checked_chunk`);
anything else is a bare DSSST1 frame. :class:`OpenGroup` holds which chunks of a group
arrived and the assembler that places and hashes them as they come.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from cortex_gs_contract import CHUNK_GROUP_ID_PATTERN, CHUNK_OPERATIONS, ErrorCode

from arctic_rl import wire
from arctic_rl_mock.errors import ApiError

_GROUP_ID = re.compile(CHUNK_GROUP_ID_PATTERN)
Answer = tuple[int, dict[str, Any]]
GroupKey = tuple[str, str]


def sha256_hex(data: bytes | memoryview) -> str:
    """Hex SHA-256, the contract's digest format."""
    return hashlib.sha256(data).hexdigest()


def decode(frame: bytes | memoryview) -> dict[str, Any]:
    """Decode a request frame; bad frames are the client's 400 with the codec's code."""
    try:
        value = wire.loads(frame)
    except wire.WireError as exc:
        raise ApiError(400, exc.code, exc.message) from exc
    if not isinstance(value, dict):
        raise ApiError(400, ErrorCode.bad_structure, "the frame's value must be a dict")
    return value


@dataclass(frozen=True)
class Chunk:
    """One request chunk, parsed once, and the route it came in on."""

    job_id: str
    kind: str
    group_id: str
    frame: wire.ChunkFrame
    descriptor: wire.ChunkDescriptor

    @property
    def key(self) -> GroupKey:
        return self.job_id, self.group_id

    @property
    def idx(self) -> int:
        return self.descriptor.chunk_idx

    @property
    def total(self) -> int:
        return self.descriptor.total_chunks

    @property
    def body(self) -> memoryview:
        """The chunk frame as received (a view: writing it to disk copies nothing)."""
        return memoryview(self.frame.data)

    @property
    def final(self) -> bool:
        return self.idx == self.total - 1

    @property
    def op_key(self) -> str:
        """What a group is bound to: its route and descriptor operation."""
        return f"{self.kind}:{self.descriptor.operation or ''}"

    @property
    def binding(self) -> tuple[int, str, int, str]:
        """What every chunk of one group must agree on."""
        desc = self.descriptor
        return (self.total, desc.frame_sha256, desc.frame_size_bytes, self.op_key)

    def conflict(self, message: str) -> ApiError:
        return ApiError(
            409, ErrorCode.chunk_group_conflict, message, fields={"chunk_group_id": self.group_id}
        )

    def restart_required(self, why: str) -> ApiError:
        return ApiError(
            409,
            ErrorCode.chunk_group_restart_required,
            f"chunk group {self.group_id} {why}; restart it at chunk 0",
            fields={"chunk_group_id": self.group_id},
        )

    def accepted(self, received: int) -> Answer:
        """A non-final chunk's (or a repeat's) 200 ``ChunkAccepted``."""
        return 200, {
            "job_id": self.job_id,
            "chunk_group_id": self.group_id,
            "chunk_idx": self.idx,
            "received_chunks": received,
            "total_chunks": self.total,
        }


@dataclass
class OpenGroup:
    """An unfinished group in memory: what it is bound to, which chunks are in, and the
    assembler that holds them (allocated as chunks arrive)."""

    binding: tuple[int, str, int, str]
    created_at: float
    assembler: wire.ChunkAssembler
    have: bytearray = field(default_factory=bytearray)
    received: int = 0
    writing: asyncio.Future[None] | None = None

    def __post_init__(self) -> None:
        if not self.have:
            self.have = bytearray(self.binding[0])

    async def written(self) -> None:
        """Wait for the chunk write still in flight, if any (its failure surfaces here)."""
        writing, self.writing = self.writing, None
        if writing is not None:
            await writing

    def missing(self, listed: int) -> tuple[int, list[int]]:
        """How many non-final chunks are missing, and the first ``listed`` of them."""
        count = len(self.have) - 1 - self.received
        first: list[int] = []
        idx = self.have.find(0)
        while idx != -1 and idx < len(self.have) - 1 and len(first) < listed:
            first.append(idx)
            idx = self.have.find(0, idx + 1)
        return count, first


def read_request_chunk(body: bytes | memoryview) -> wire.ChunkFrame | None:
    """Parse a binary route's body once: a request chunk, or ``None`` for a bare frame.

    Only a ``request_chunk`` descriptor makes a chunk (as the contract says); a bad
    header or descriptor is the client's 400 with the codec's code.
    """
    try:
        received = wire.read_chunk(body)
    except wire.WireError as exc:
        raise ApiError(400, exc.code, exc.message) from exc
    desc = received.descriptor
    return received if desc is not None and desc.kind == "request_chunk" else None


def checked_chunk(job_id: str, kind: str, received: wire.ChunkFrame) -> Chunk:
    """The chunk checked against its route: a valid group id, the route's operation."""
    desc = received.descriptor
    assert desc is not None  # read_request_chunk returns envelopes only
    group_id = desc.chunk_group_id
    if group_id is None or _GROUP_ID.fullmatch(group_id) is None:
        raise ApiError(400, ErrorCode.bad_structure, "request chunks need a valid chunk_group_id")
    chunk = Chunk(job_id, kind, group_id, received, desc)
    if desc.operation is not None and desc.operation != CHUNK_OPERATIONS[kind]:
        raise chunk.conflict(f"chunk operation {desc.operation!r} does not belong on this route")
    return chunk
