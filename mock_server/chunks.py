"""The contract's chunk-group rules for the binary routes (forward-backward, generate, ...).

A body is either a bare DSSST1 frame or one ``request_chunk`` envelope of a group. A group
is the idempotency identity of its frame: chunks may arrive in any order and be resent; a
resent chunk must equal the one accepted; the final chunk needs every other one first and
then runs the frame exactly once, and repeating it answers the same request. Each chunk's
descriptor ``operation`` must be the one the contract names for its route
(``cortex_gs_contract.CHUNK_OPERATIONS``).

Cost per chunk is constant: an unfinished group lives in memory (which chunks arrived,
and the assembler that places and hashes them as they come), so a chunk never reads the
group back from the store; the store is read once per group and process (a restart).
Each chunk is hashed once (by the assembler, into the frame's SHA-256) and written once;
its write overlaps the upload of the next chunk. The contract's proposed limits apply:
unfinished groups per job, their lifetime, ``total_chunks``, a short missing-chunks answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from cortex_gs_contract import CHUNK_GROUP_ID_PATTERN, CHUNK_OPERATIONS, ErrorCode

from arctic_rl import wire
from mock_server import limits
from mock_server.errors import ApiError
from mock_server.settings import Settings
from mock_server.store import Store

_GROUP_ID = re.compile(CHUNK_GROUP_ID_PATTERN)
# The store's chunk rows keep no digest: a resent chunk is compared with its stored file.
_NO_CHUNK_DIGEST = ""
Answer = tuple[int, dict[str, Any]]
GroupKey = tuple[str, str]
Key = TypeVar("Key", bound=Hashable)


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
    assembler: wire.ChunkAssembler = field(
        default_factory=lambda: wire.ChunkAssembler(kind="request_chunk")
    )
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


# Stores a completed group's final chunk (with an empty digest) with the group's new
# request, and queues it with the decoded value: -> request id.
SubmitGroup = Callable[["Chunk", str, dict[str, Any]], Awaitable[str]]


class KeyedLocks(Generic[Key]):
    """One asyncio lock per key, forgotten once nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[Key, tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: Key) -> AsyncIterator[None]:
        entry = self._locks.get(key)
        if entry is None:
            entry = self._locks[key] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[key]


class ChunkGroups:
    """Accepts request chunks under the contract's rules; one lock per group."""

    def __init__(self, settings: Settings, store: Store, submit_group: SubmitGroup) -> None:
        self.settings = settings
        self.store = store
        self._submit_group = submit_group
        self._open: dict[GroupKey, OpenGroup] = {}
        self._locks: KeyedLocks[GroupKey] = KeyedLocks()
        self._swept_at = 0.0

    async def accept(self, job_id: str, kind: str, received: wire.ChunkFrame) -> Answer:
        """Apply the chunk-group rules to one chunk; (status, body) for the route."""
        chunk = _checked_chunk(job_id, kind, received)
        await self._sweep_if_due()
        async with self._locks.hold(chunk.key):
            group = self._open.get(chunk.key)
            if group is None:
                known = await self._load(chunk)
                if not isinstance(known, OpenGroup):
                    return known
                group = known
            elif self._expired(group.created_at):
                await self._drop(chunk.key)
                raise chunk.restart_required("expired")
            if chunk.binding != group.binding:
                raise chunk.conflict(
                    f"chunk group {chunk.group_id} was started for a different frame"
                )
            if group.have[chunk.idx]:
                return await self._repeat(chunk, group)
            if chunk.final:
                return await self._finish(chunk, group)
            await self._store_chunk(chunk, group)
            return chunk.accepted(group.received)

    # -- one chunk --------------------------------------------------------------------
    async def _store_chunk(self, chunk: Chunk, group: OpenGroup) -> None:
        """Place and hash a non-final chunk, then write it while the next one arrives.

        The write of chunk i overlaps the upload of chunk i+1, and the group waits for it
        before its next chunk (one write in flight per group, so memory stays bounded)
        and before the final chunk commits the group. A crash inside that window loses an
        answered chunk: after the restart the final chunk's ``chunk_group_missing_chunks``
        names it and the client resends it, and the group still runs once.
        """
        try:
            await group.written()
            await asyncio.to_thread(group.assembler.add, chunk.frame)
        except wire.WireError as exc:
            if not group.received:  # a refused first chunk leaves no group behind
                self._open.pop(chunk.key, None)
            raise self._refused(chunk, exc) from exc
        except BaseException:
            # The assembler may hold a chunk the store lacks: rebuild from the store.
            self._open.pop(chunk.key, None)
            raise
        group.have[chunk.idx] = 1
        group.received += 1
        group.writing = asyncio.ensure_future(
            asyncio.to_thread(
                self.store.add_chunk,
                chunk.job_id,
                chunk.group_id,
                chunk.descriptor.as_dict(),
                chunk.op_key,
                _NO_CHUNK_DIGEST,
                chunk.body,
            )
        )

    async def _finish(self, chunk: Chunk, group: OpenGroup) -> Answer:
        """The final chunk: every other one must be in; then verify, decode, check, run."""
        if group.received < chunk.total - 1:
            raise self._missing(chunk, group)
        job = self.store.get_job(chunk.job_id) or {}
        try:
            await group.written()
        except BaseException:
            self._open.pop(chunk.key, None)  # rebuild from what the store holds
            raise
        try:
            value = await asyncio.to_thread(self._complete, chunk, group, job)
        except ApiError:
            await self._drop(chunk.key)
            raise
        except wire.WireError as exc:
            await self._drop(chunk.key)
            raise ApiError(400, exc.code, exc.message) from exc
        # Done or not, the group leaves memory: the store says which it is now.
        self._open.pop(chunk.key, None)
        request_id = await self._submit_group(chunk, _NO_CHUNK_DIGEST, value)
        return 202, {"request_id": request_id, "job_id": chunk.job_id}

    def _complete(self, chunk: Chunk, group: OpenGroup, job: dict[str, Any]) -> dict[str, Any]:
        """Worker thread: the last placement checks the frame's SHA-256; decode, check."""
        group.assembler.add(chunk.frame)
        value = decode(group.assembler.buffer)
        limits.check_request(self.settings, job, chunk.kind, value)
        return value

    async def _repeat(self, chunk: Chunk, group: OpenGroup) -> Answer:
        """A chunk already accepted: harmless when it is the same bytes."""
        await group.written()
        stored = self.store.chunk_dir(*chunk.key) / f"{chunk.idx}.bin"
        same = await asyncio.to_thread(_same_bytes, stored, chunk.body)
        if not same:
            raise chunk.conflict(
                f"chunk {chunk.idx} of group {chunk.group_id} differs from the one accepted"
            )
        return chunk.accepted(group.received)

    def _refused(self, chunk: Chunk, exc: wire.WireError) -> ApiError:
        if exc.code == "chunk_mismatch":
            return chunk.conflict(exc.message)
        return ApiError(400, exc.code, exc.message)

    def _missing(self, chunk: Chunk, group: OpenGroup) -> ApiError:
        count, first = group.missing(self.settings.missing_chunks_listed)
        shown = ", ".join(map(str, first)) + (", ..." if count > len(first) else "")
        return ApiError(
            409,
            ErrorCode.chunk_group_missing_chunks,
            f"chunk group {chunk.group_id} is missing {count} chunk(s): [{shown}]",
            fields={"chunk_group_id": chunk.group_id, "missing_chunk_count": count},
            details=[
                {"loc": ["body", "chunk_idx", i], "msg": "chunk missing", "type": "missing_chunk"}
                for i in first
            ],
        )

    # -- a group not in memory ----------------------------------------------------------
    async def _load(self, chunk: Chunk) -> OpenGroup | Answer:
        """A group not in memory: new, already run, expired, or left by an earlier process."""
        row = await asyncio.to_thread(self.store.get_group, *chunk.key)
        if row is None:
            return await self._open_new(chunk)
        started = (row["total_chunks"], row["frame_sha256"], row["frame_size"], row["operation"])
        if started != chunk.binding:
            raise chunk.conflict(f"chunk group {chunk.group_id} was started for a different frame")
        if row["request_id"] is not None:
            # At most once: a repeated final chunk resolves to the original execution.
            if chunk.final:
                return 202, {"request_id": row["request_id"], "job_id": chunk.job_id}
            return chunk.accepted(chunk.total)
        if self._expired(row["created_at"]):
            await self._drop(chunk.key)
            raise chunk.restart_required("expired")
        group = OpenGroup(chunk.binding, row["created_at"])
        try:
            await asyncio.to_thread(self._refill, chunk, group, sorted(row["chunks"]))
        except (OSError, wire.WireError) as exc:
            await self._drop(chunk.key)
            raise chunk.restart_required(f"could not be restored ({exc})") from exc
        self._open[chunk.key] = group
        return group

    def _refill(self, chunk: Chunk, group: OpenGroup, indexes: list[int]) -> None:
        """Worker thread: put a stored group's chunks back into a fresh assembler."""
        directory = self.store.chunk_dir(*chunk.key)
        for idx in indexes:
            group.assembler.add((directory / f"{idx}.bin").read_bytes())
            group.have[idx] = 1
            group.received += 1

    async def _open_new(self, chunk: Chunk) -> OpenGroup:
        """A group's first chunk: it must be chunk 0, and within the limits."""
        if chunk.idx != 0:
            raise chunk.restart_required("is unknown")
        cap = self.settings.max_chunks_per_group
        if chunk.total > cap:
            raise ApiError(
                400, "too_large", f"{chunk.total} chunks declared in one group; at most {cap}"
            )
        most = self.settings.max_open_chunk_groups
        # Held here or stored (a chunk's row is written after its answer, and a restart
        # leaves groups only in the store): a group in both counts once.
        in_memory = {group for job, group in self._open if job == chunk.job_id}
        if len(in_memory.union(self.store.open_group_ids(chunk.job_id))) >= most:
            raise ApiError(
                409,
                ErrorCode.too_many_chunk_groups,
                f"job {chunk.job_id} already has {most} unfinished chunk groups; finish one"
                f" or wait until it expires ({self.settings.chunk_group_ttl_s:g} s after its"
                " first chunk)",
            )
        group = OpenGroup(chunk.binding, time.time())
        self._open[chunk.key] = group
        return group

    # -- expiry -------------------------------------------------------------------------
    def _expired(self, created_at: float) -> bool:
        return time.time() - created_at > self.settings.chunk_group_ttl_s

    async def _sweep_if_due(self) -> None:
        """Reclaim expired groups (rows, files, assemblers), at most every tenth of a TTL."""
        now = time.time()
        ttl = self.settings.chunk_group_ttl_s
        if now - self._swept_at < min(ttl / 10, 60.0):
            return
        self._swept_at = now
        for key in self.store.expired_groups(now - ttl):
            async with self._locks.hold(key):
                row = self.store.get_group(*key)
                if row is not None and row["request_id"] is None:
                    await self._drop(key)

    async def _drop(self, key: GroupKey) -> None:
        """Forget an unfinished group: its assembler, rows and chunk files."""
        group = self._open.pop(key, None)
        if group is not None:
            with contextlib.suppress(Exception):  # whatever it wrote goes anyway
                await group.written()
        await asyncio.to_thread(self.store.drop_group, *key)


def _same_bytes(path: Any, data: memoryview) -> bool:
    try:
        return bool(path.read_bytes() == data)
    except OSError:
        return False


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
