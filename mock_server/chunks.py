"""The contract's chunk-group rules for the binary routes (forward-backward, generate, ...).

A body is either a bare DSSST1 frame or one ``request_chunk`` envelope of a group. A group
is the idempotency identity of its frame: chunks may arrive in any order and be resent; a
resent chunk must equal the one accepted; the final chunk needs every other one first and
then runs the frame exactly once, and repeating it answers the same request. Each chunk's
descriptor ``operation`` must be the one the contract names for its route
(``cortex_gs_contract.CHUNK_OPERATIONS``).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cortex_gs_contract import CHUNK_GROUP_ID_PATTERN, CHUNK_OPERATIONS, ErrorCode

from arctic_rl import wire
from mock_server.errors import ApiError
from mock_server.store import Store

_GROUP_ID = re.compile(CHUNK_GROUP_ID_PATTERN)
Answer = tuple[int, dict[str, Any]]


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
    def idx(self) -> int:
        return self.descriptor.chunk_idx

    @property
    def total(self) -> int:
        return self.descriptor.total_chunks

    @property
    def body(self) -> bytes:
        return bytes(self.frame.data)

    @property
    def final(self) -> bool:
        return self.idx == self.total - 1

    @property
    def op_key(self) -> str:
        """What a group is bound to: its route and descriptor operation."""
        return f"{self.kind}:{self.descriptor.operation or ''}"

    def conflict(self, message: str) -> ApiError:
        return ApiError(
            409, ErrorCode.chunk_group_conflict, message, fields={"chunk_group_id": self.group_id}
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


# Runs a completed frame: (job_id, kind, group_id, decoded value) -> request id.
SubmitGroup = Callable[[str, str, str, dict[str, Any]], str]


class ChunkGroups:
    """Accepts request chunks under the contract's rules; one lock per group."""

    def __init__(self, store: Store, submit_group: SubmitGroup) -> None:
        self.store = store
        self._submit_group = submit_group
        self._assemblers: dict[tuple[str, str], wire.ChunkAssembler] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    async def accept(self, job_id: str, kind: str, received: wire.ChunkFrame) -> Answer:
        """Apply the chunk-group rules to one chunk; (status, body) for the route."""
        chunk = _checked_chunk(job_id, kind, received)
        async with self._locks.setdefault((job_id, chunk.group_id), asyncio.Lock()):
            return await self._accept_locked(chunk)

    async def _accept_locked(self, chunk: Chunk) -> Answer:
        chunk_sha = await asyncio.to_thread(sha256_hex, chunk.body)
        group = self.store.get_group(chunk.job_id, chunk.group_id)
        if group is None:
            if chunk.idx != 0:
                raise ApiError(
                    409,
                    ErrorCode.chunk_group_restart_required,
                    f"chunk group {chunk.group_id} is unknown; restart it at chunk 0",
                    fields={"chunk_group_id": chunk.group_id},
                )
            have: dict[int, str] = {}
        else:
            have = group["chunks"]
            repeat = _known_group_answer(chunk, group, chunk_sha)
            if repeat is not None:
                return repeat
        if chunk.final:
            _require_all_before_final(chunk, have)
        assembler = await self._add(chunk)
        await asyncio.to_thread(
            self.store.add_chunk,
            chunk.job_id,
            chunk.group_id,
            chunk.descriptor.as_dict(),
            chunk.op_key,
            chunk_sha,
            chunk.body,
        )
        if not assembler.complete:
            return chunk.accepted(len(have) + 1)
        return 202, {"request_id": await self._run(chunk, assembler), "job_id": chunk.job_id}

    async def _add(self, chunk: Chunk) -> wire.ChunkAssembler:
        """Place the chunk in its group's assembler; a bad final chunk drops the group."""
        key = (chunk.job_id, chunk.group_id)
        assembler = self._assemblers.get(key)
        if assembler is None:
            assembler = wire.ChunkAssembler(kind="request_chunk")
            for stored in await asyncio.to_thread(self.store.read_chunks, *key):
                assembler.add(stored)
            self._assemblers[key] = assembler
        try:
            await asyncio.to_thread(assembler.add, chunk.frame)
        except wire.WireError as exc:
            if exc.code == "chunk_mismatch":
                raise chunk.conflict(exc.message) from exc
            if chunk.final or exc.code == "hash_mismatch":
                # The final chunk failed verification: the group is dropped, per the contract.
                self._assemblers.pop(key, None)
                self.store.drop_group(*key)
            raise ApiError(400, exc.code, exc.message) from exc
        return assembler

    async def _run(self, chunk: Chunk, assembler: wire.ChunkAssembler) -> str:
        """The group is complete: decode its frame once and queue it, bound to the group."""
        self._assemblers.pop((chunk.job_id, chunk.group_id), None)
        try:
            value = await asyncio.to_thread(decode, assembler.buffer)
        except ApiError:
            self.store.drop_group(chunk.job_id, chunk.group_id)
            raise
        request_id = self._submit_group(chunk.job_id, chunk.kind, chunk.group_id, value)
        self.store.bind_group(chunk.job_id, chunk.group_id, request_id)
        return request_id


def read_request_chunk(body: bytes) -> wire.ChunkFrame | None:
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


def _checked_chunk(job_id: str, kind: str, received: wire.ChunkFrame) -> Chunk:
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


def _known_group_answer(chunk: Chunk, group: dict[str, Any], chunk_sha: str) -> Answer | None:
    """A chunk of a group already started: a conflict, a repeat's answer, or ``None``."""
    desc = chunk.descriptor
    started = (
        group["total_chunks"],
        group["frame_sha256"],
        group["frame_size"],
        group["operation"],
    )
    sent = (chunk.total, desc.frame_sha256, desc.frame_size_bytes, chunk.op_key)
    if started != sent:
        raise chunk.conflict(f"chunk group {chunk.group_id} was started for a different frame")
    have = group["chunks"]
    if chunk.idx in have and have[chunk.idx] != chunk_sha:
        raise chunk.conflict(
            f"chunk {chunk.idx} of group {chunk.group_id} differs from the one accepted"
        )
    if group["request_id"] is not None:
        # At most once: a repeated final chunk resolves to the original execution.
        if chunk.final:
            return 202, {"request_id": group["request_id"], "job_id": chunk.job_id}
        return chunk.accepted(chunk.total)
    if chunk.idx in have:
        return chunk.accepted(len(have))
    return None


def _require_all_before_final(chunk: Chunk, have: dict[int, str]) -> None:
    missing = [i for i in range(chunk.total - 1) if i not in have]
    if missing:
        raise ApiError(
            409,
            ErrorCode.chunk_group_missing_chunks,
            f"chunk group {chunk.group_id} is missing chunks {missing[:16]}",
            fields={"chunk_group_id": chunk.group_id},
            details=[
                {"loc": ["body", "chunk_idx", i], "msg": "chunk missing", "type": "missing_chunk"}
                for i in missing
            ],
        )
