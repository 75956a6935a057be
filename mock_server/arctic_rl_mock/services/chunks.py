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
import time
from collections.abc import Awaitable, Callable
from typing import Any

from cortex_gs_contract import ErrorCode

from arctic_rl import wire
from arctic_rl_mock.errors import ApiError
from arctic_rl_mock.services import limits
from arctic_rl_mock.services.chunk_group import (
    Answer,
    Chunk,
    GroupKey,
    OpenGroup,
    checked_chunk,
    decode,
)
from arctic_rl_mock.services.keyed_locks import KeyedLocks
from arctic_rl_mock.settings import ON_LOOP_BYTES, Settings
from arctic_rl_mock.store import Store
from arctic_rl_mock.web import disk_errors

# The store's chunk rows keep no digest: a resent chunk is compared with its stored file.
NO_CHUNK_DIGEST = ""
# How many groups a full disk dropped are remembered (see ChunkGroups._still_full).
DROPPED_KEPT = 1024
# Stores a completed group's final chunk with the group's new request, and queues it
# with the decoded value: -> request id.
SubmitGroup = Callable[[Chunk, dict[str, Any]], Awaitable[str]]


class ChunkGroups:
    """Accepts request chunks under the contract's rules; one lock per group."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        submit_group: SubmitGroup,
        storage_faults: disk_errors.StorageFaults,
    ) -> None:
        self.settings = settings
        self.store = store
        self.storage_faults = storage_faults
        self._submit_group = submit_group
        self._open: dict[GroupKey, OpenGroup] = {}
        # The groups' assemblies share released frame buffers and hashing threads.
        self._assembly = wire.AssemblyPool()
        self._locks: KeyedLocks[GroupKey] = KeyedLocks()
        self._swept_at = 0.0
        # Groups a full disk dropped (oldest first, at most DROPPED_KEPT), see _still_full.
        self._dropped_full: dict[GroupKey, None] = {}

    async def accept(self, job_id: str, kind: str, received: wire.ChunkFrame) -> Answer:
        """Apply the chunk-group rules to one chunk; (status, body) for the route."""
        chunk = checked_chunk(job_id, kind, received)
        await self._sweep_if_due()
        async with self._locks.hold(chunk.key):
            try:
                return await self._accept(chunk)
            except Exception as exc:
                fault = self.storage_faults.answer(exc, f"storing chunk group {chunk.group_id}")
                if fault is None:
                    raise
                await self._free(chunk.key, full=fault.status_code == 507)
                raise fault from exc

    async def _accept(self, chunk: Chunk) -> Answer:
        """The rules for one chunk, under its group's lock."""
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
            raise chunk.conflict(f"chunk group {chunk.group_id} was started for a different frame")
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
                self.store.groups.add_chunk,
                chunk.job_id,
                chunk.group_id,
                chunk.descriptor.as_dict(),
                chunk.op_key,
                NO_CHUNK_DIGEST,
                chunk.body,
            )
        )

    async def _finish(self, chunk: Chunk, group: OpenGroup) -> Answer:
        """The final chunk: every other one must be in; then verify, decode, check, run."""
        if group.received < chunk.total - 1:
            raise self._missing(chunk, group)
        job = self.store.jobs.get_job(chunk.job_id) or {}
        try:
            await group.written()
        except BaseException:
            self._open.pop(chunk.key, None)  # rebuild from what the store holds
            raise
        try:
            if chunk.descriptor.frame_size_bytes < ON_LOOP_BYTES:  # microseconds: no hop
                value = self._complete(chunk, group, job)
            else:
                value = await asyncio.to_thread(self._complete, chunk, group, job)
        except ApiError:
            await self._drop(chunk.key)
            raise
        except wire.WireError as exc:
            await self._drop(chunk.key)
            raise ApiError(400, exc.code, exc.message) from exc
        # Done or not, the group leaves memory: the store says which it is now.
        self._open.pop(chunk.key, None)
        request_id = await self._submit_group(chunk, value)
        return 202, {"request_id": request_id, "job_id": chunk.job_id}

    def _complete(self, chunk: Chunk, group: OpenGroup, job: dict[str, Any]) -> dict[str, Any]:
        """The last placement checks the frame's SHA-256; decode, check (in a worker
        thread unless the frame is small)."""
        group.assembler.add(chunk.frame)
        value = decode(group.assembler.buffer)
        limits.check_request(self.settings, job, chunk.kind, value)
        return value

    async def _repeat(self, chunk: Chunk, group: OpenGroup) -> Answer:
        """A chunk already accepted: harmless when it is the same bytes."""
        await group.written()
        stored = self.store.files.chunk_dir(*chunk.key) / f"{chunk.idx}.bin"
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
        row = await asyncio.to_thread(self._stored_group, chunk.key)
        if row is None:
            return await self._open_new(chunk)
        if row.get("pruned"):  # its request ran and was pruned: answer it again, never rerun
            return self._ran(chunk, row["request_id"])
        started = (row["total_chunks"], row["frame_sha256"], row["frame_size"], row["operation"])
        if started != chunk.binding:
            raise chunk.conflict(f"chunk group {chunk.group_id} was started for a different frame")
        if row["request_id"] is not None:
            return self._ran(chunk, row["request_id"])
        if self._expired(row["created_at"]):
            await self._drop(chunk.key)
            raise chunk.restart_required("expired")
        group = self._new_group(chunk, row["created_at"])
        try:
            await asyncio.to_thread(self._refill, chunk, group, sorted(row["chunks"]))
        except (OSError, wire.WireError) as exc:
            await self._drop(chunk.key)
            raise chunk.restart_required(f"could not be restored ({exc})") from exc
        self._open[chunk.key] = group
        return group

    def _new_group(self, chunk: Chunk, created_at: float) -> OpenGroup:
        """An empty group for ``chunk``'s frame, its assembler drawing on the shared pool."""
        assembler = wire.ChunkAssembler(kind="request_chunk", pool=self._assembly)
        return OpenGroup(chunk.binding, created_at, assembler)

    def _stored_group(self, key: GroupKey) -> dict[str, Any] | None:
        """Store thread: the group's row, else (``pruned``) the pruned request it became."""
        row = self.store.groups.get_group(*key)
        if (
            row is None
            and (request_id := self.store.retention.pruned_group_request(*key)) is not None
        ):
            return {"pruned": True, "request_id": request_id}
        return row

    @staticmethod
    def _ran(chunk: Chunk, request_id: str) -> Answer:
        """At most once: a repeated final chunk resolves to the original execution."""
        if chunk.final:
            return 202, {"request_id": request_id, "job_id": chunk.job_id}
        return chunk.accepted(chunk.total)

    def _refill(self, chunk: Chunk, group: OpenGroup, indexes: list[int]) -> None:
        """Worker thread: put a stored group's chunks back into a fresh assembler."""
        directory = self.store.files.chunk_dir(*chunk.key)
        for idx in indexes:
            group.assembler.add((directory / f"{idx}.bin").read_bytes())
            group.have[idx] = 1
            group.received += 1

    async def _open_new(self, chunk: Chunk) -> OpenGroup:
        """A group's first chunk: it must be chunk 0, and within the limits."""
        if chunk.idx != 0:
            raise self._still_full(chunk) or chunk.restart_required("is unknown")
        self._dropped_full.pop(chunk.key, None)
        cap = self.settings.max_chunks_per_group
        if chunk.total > cap:
            raise ApiError(
                400, "too_large", f"{chunk.total} chunks declared in one group; at most {cap}"
            )
        most = self.settings.max_open_chunk_groups
        # Held here or stored (a chunk's row is written after its answer, and a restart
        # leaves groups only in the store): a group in both counts once.
        in_memory = {group for job, group in self._open if job == chunk.job_id}
        stored = await asyncio.to_thread(self.store.groups.open_group_ids, chunk.job_id)
        if len(in_memory.union(stored)) >= most:
            raise ApiError(
                409,
                ErrorCode.too_many_chunk_groups,
                f"job {chunk.job_id} already has {most} unfinished chunk groups; finish one,"
                " abandon one (DELETE /{job_id}/chunk-groups/{chunk_group_id}, proposed) or"
                f" wait until it expires ({self.settings.chunk_group_ttl_s:g} s after its"
                " first chunk)",
            )
        group = self._new_group(chunk, time.time())
        self._open[chunk.key] = group
        return group

    def _still_full(self, chunk: Chunk) -> ApiError | None:
        """A later chunk of a group a full disk dropped: ``507`` again while the disk still
        lacks room for the group's frame (retrying it later is what helps); once there is
        room, None: the group is unknown, and restarts at chunk 0."""
        if chunk.key not in self._dropped_full:
            return None
        if self.store.hooks.free_bytes(self.store.root) >= chunk.descriptor.frame_size_bytes:
            del self._dropped_full[chunk.key]
            return None
        return disk_errors.full(
            f"chunk group {chunk.group_id} was dropped when the server's storage filled up;"
            " send it again from chunk 0 once space is freed",
            fields={"chunk_group_id": chunk.group_id},
        )

    async def abandon(self, job_id: str, group_id: str) -> None:
        """The proposed abandon route: drop an unfinished group (its room among the job's
        unfinished groups is free again); a group that has run stays, and says so."""
        key = (job_id, group_id)
        async with self._locks.hold(key):
            row = await asyncio.to_thread(self.store.groups.get_group, job_id, group_id)
            if row is not None and row["request_id"] is not None:
                raise ApiError(
                    409,
                    ErrorCode.chunk_group_conflict,
                    f"chunk group {group_id} has run (request {row['request_id']}); it stays",
                    fields={"chunk_group_id": group_id},
                )
            if row is None and key not in self._open:
                raise ApiError(
                    404,
                    ErrorCode.not_found,
                    f"job {job_id} has no unfinished chunk group {group_id}",
                )
            await self._drop(key)

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
        for key in await asyncio.to_thread(self.store.groups.expired_groups, now - ttl):
            async with self._locks.hold(key):
                await self._forget(key)
                await asyncio.to_thread(self.store.groups.drop_unfinished_group, *key)

    async def _drop(self, key: GroupKey) -> None:
        """Forget an unfinished group: its assembler, rows and chunk files."""
        await self._forget(key)
        await asyncio.to_thread(self.store.groups.drop_group, *key)

    async def _free(self, key: GroupKey, *, full: bool) -> None:
        """A storage fault: an unfinished group goes whole (assembler, files, rows), so the
        disk does not stay full; the client sends it again from chunk 0.

        Its files go first; if its rows cannot be deleted yet (the same fault), they name
        files that are gone, which a later chunk 0 or start-up clears. A group a full disk
        dropped is remembered (see :meth:`_still_full`).
        """
        if full:
            self._dropped_full[key] = None
            while len(self._dropped_full) > DROPPED_KEPT:
                del self._dropped_full[next(iter(self._dropped_full))]
        await self._forget(key)
        try:
            await asyncio.to_thread(self.store.groups.drop_unfinished_group, *key)
        except Exception as exc:
            if disk_errors.kind_of(exc) is None:
                raise

    async def _forget(self, key: GroupKey) -> None:
        """Drop a group's assembler once the write it has in flight (if any) is over."""
        group = self._open.pop(key, None)
        if group is not None:
            with contextlib.suppress(Exception):  # whatever it wrote goes anyway
                await group.written()


def _same_bytes(path: Any, data: memoryview) -> bool:
    try:
        return bool(path.read_bytes() == data)
    except OSError:
        return False
