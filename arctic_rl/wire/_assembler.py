"""Reassembly: chunk envelopes back into the verified frame, as they arrive."""

from __future__ import annotations

import hashlib
import math
import threading
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from . import _buffers
from ._chunks import ChunkDescriptor, ChunkFrame, _check_kind, read_chunk
from ._decode import Buffer, decode_view
from ._errors import WireError
from ._limits import DEFAULT_LIMITS, Limits

_THREAD_MIN = 32 * 1024 * 1024
"""Frames at least this large are hashed on a helper thread while the caller goes on."""
_HELPER_THREADS = 2
"""Helper threads of one pool (each assembler's hashing runs on one at a time)."""


class AssemblyPool:
    """What a receiver's chunk assemblies share: released frame buffers and hashing threads.

    A receiver that assembles large frames one after another (a client's results, the
    mock's uploads) holds one and passes it to each :class:`ChunkAssembler`, so a frame
    lands in the pages an earlier, released one faulted in, and the helper threads that
    hash large frames are started once, not per frame. Each receiver holds its own: a
    client and a mock in one process never hold each other's memory. Safe to share
    between threads; its threads end when it is collected.
    """

    def __init__(self) -> None:
        self.spares = _buffers.SpareMaps()
        self._helpers: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def helpers(self) -> ThreadPoolExecutor:
        """The helper threads, started on first use: they never grow with assemblers."""
        with self._lock:
            if self._helpers is None:
                self._helpers = ThreadPoolExecutor(
                    _HELPER_THREADS, thread_name_prefix="dssst1-assembler"
                )
            return self._helpers


_HASH_PIECE = 8 * 1024 * 1024
"""Queued ranges are hashed in pieces this large, so either thread can take the next."""


class _QueuedHash:
    """A SHA-256 over ranges of a growing buffer, in order, off the caller's thread.

    Ranges are queued in pieces. A task on the pool's helper threads hashes them, and the
    caller takes pieces too whenever it would otherwise wait (or has fallen a chunk
    behind), so on a busy machine the hash advances on whichever thread gets the CPU.
    One lock, held while a piece is taken and hashed, keeps the pieces in order.
    """

    def __init__(self, buf: _buffers.AppendBuffer, hash_: Any, pool: AssemblyPool) -> None:
        self.hash = hash_
        self._buf = buf
        self._pool = pool
        self._pieces: deque[tuple[int, int]] = deque()
        self._queued = 0
        self._state = threading.Lock()  # guards the queue and the task
        self._order = threading.Lock()  # held while one piece is taken and hashed
        self._task: Future[None] | None = None

    def add(self, start: int, n: int, *, keep_up: int) -> None:
        """Queue ``[start, start + n)``; hash here while more than ``keep_up`` bytes wait."""
        with self._state:
            for offset in range(start, start + n, _HASH_PIECE):
                self._pieces.append((offset, min(_HASH_PIECE, start + n - offset)))
            self._queued += n
            if self._task is None:
                self._task = self._pool.helpers().submit(self._run)
        while self._queued > keep_up and self._hash_one():
            pass

    def _hash_one(self) -> bool:
        """Hash the next piece, if any (False when none is queued)."""
        with self._order:
            with self._state:
                if not self._pieces:
                    return False
                start, n = self._pieces.popleft()
                self._queued -= n
            with self._buf.view() as whole, whole[start : start + n] as piece:
                self.hash.update(piece)
        return True

    def _run(self) -> None:
        """Helper task: hash until the queue is empty."""
        while True:
            with self._state:
                if not self._pieces:
                    self._task = None
                    return
            self._hash_one()

    def drain(self) -> None:
        """Return once every queued range is hashed (helping with what is left)."""
        while self._hash_one():
            pass
        with self._order:  # a piece the helper took is finished
            pass
        with self._state:
            task = self._task
        if task is not None and task.done():
            task.result()  # surface an error the helper met


class ChunkAssembler:
    """Incremental decoder: feed chunks as they arrive, in any order.

    Each chunk is verified on arrival (frame consistency, index range, duplicates,
    payload length). Memory follows what has arrived, never the declared size: the next
    chunk in order is appended to a buffer that grows with it (a mapping that ``mremap``
    extends without copying), and a chunk that arrives early is kept as received until
    the gap before it fills. So a group that is opened and abandoned costs what it sent.
    The frame's SHA-256 advances over each chunk as it joins the buffer, so it is
    finished soon after the last gap fills, and the reassembled frame is decoded in
    place (tensors view the buffer).

    ``pool``: the receiver's :class:`AssemblyPool` (without one, the assembler's own).
    For large frames the hashing runs on one of its helper threads, GIL-free, over the
    assembled buffer: ``add`` copies the chunk into place, queues its range and returns,
    so the caller may reuse or drop its chunk at once and the hash keeps pace on the
    other core (the caller hashes too when the helper falls a chunk behind, see
    :class:`_QueuedHash`). The queue is drained before the buffer has to move (it
    doubles when full) and by the last ``add``, which checks the hash, so callers see
    the same semantics either way. A failing ``add`` leaves the assembler as it was, except a
    hash mismatch, which poisons it.
    """

    def __init__(
        self,
        *,
        kind: str | None = None,
        limits: Limits = DEFAULT_LIMITS,
        pool: AssemblyPool | None = None,
    ) -> None:
        if kind is not None:
            _check_kind(kind)
        self.kind = kind
        self.limits = limits
        self._pool = pool if pool is not None else AssemblyPool()
        self.descriptor: ChunkDescriptor | None = None
        self._payload = 0
        self._buf: _buffers.AppendBuffer | None = None
        self._have: set[int] = set()
        self._early: dict[int, memoryview] = {}
        self._placed = 0
        self._hash = hashlib.sha256()
        self._done = False
        self._failed: WireError | None = None
        self._queued_hash: _QueuedHash | None = None

    @property
    def complete(self) -> bool:
        """All chunks present and the frame's size and SHA-256 verified."""
        return self._done

    @property
    def received(self) -> int:
        """How many distinct chunks have been accepted."""
        return len(self._have)

    @property
    def total(self) -> int | None:
        """Declared chunk count (None before the first chunk)."""
        return self.descriptor.total_chunks if self.descriptor else None

    def missing(self) -> list[int]:
        """Chunk indexes not yet received."""
        total = self.total or 0
        return [i for i in range(total) if i not in self._have]

    def _expected_len(self, idx: int) -> int:
        d = self.descriptor
        assert d is not None
        if idx < d.total_chunks - 1:
            return self._payload
        return d.frame_size_bytes - self._payload * (d.total_chunks - 1)

    def _start(self, desc: ChunkDescriptor, length: int) -> None:
        """Derive the chunk payload size from the first chunk; nothing is allocated yet."""
        size, total, idx = desc.frame_size_bytes, desc.total_chunks, desc.chunk_idx
        if size > self.limits.max_frame_bytes:
            raise WireError(
                "too_large",
                f"declared frame of {size} bytes exceeds the {self.limits.max_frame_bytes} cap",
            )
        if total > self.limits.max_chunks:
            raise WireError("too_large", f"{total} chunks declared, cap {self.limits.max_chunks}")
        if total == 1 or idx < total - 1:
            payload = length
        else:
            rest = size - length
            if rest <= 0 or rest % (total - 1):
                raise WireError("size_mismatch", "last chunk length disagrees with the frame size")
            payload = rest // (total - 1)
        expected = payload if idx < total - 1 else size - payload * (total - 1)
        if payload < 1 or math.ceil(size / payload) != total or length != expected:
            raise WireError(
                "size_mismatch", "chunk length, total_chunks and frame_size_bytes disagree"
            )
        self.descriptor = desc
        self._payload = payload
        self._buf = _buffers.AppendBuffer(size, self._pool.spares)
        if size >= _THREAD_MIN:
            self._queued_hash = _QueuedHash(self._buf, self._hash, self._pool)

    def add(self, chunk: Buffer | ChunkFrame) -> ChunkDescriptor:
        """Verify one chunk frame and place its payload; returns its descriptor.

        A :class:`ChunkFrame` from :func:`read_chunk` is used as parsed (its header is
        not read again); raw bytes are parsed here.
        """
        if self._failed is not None:
            raise WireError(self._failed.code, f"assembler already failed: {self._failed.message}")
        received = chunk if isinstance(chunk, ChunkFrame) else read_chunk(chunk, limits=self.limits)
        desc, payload = received.descriptor, received.payload
        if desc is None:
            raise WireError("bad_structure", "frame is not a chunk envelope")
        if self.kind is not None and desc.kind != self.kind:
            raise WireError("chunk_mismatch", f"expected a {self.kind}, got a {desc.kind}")
        length = len(payload)
        if self.descriptor is None:
            self._start(desc, length)
        elif not desc.same_frame(self.descriptor):
            raise WireError("chunk_mismatch", "chunk belongs to a different frame or group")
        idx = desc.chunk_idx
        if idx in self._have:
            raise WireError("duplicate_chunk", f"chunk {idx} already received")
        if length != self._expected_len(idx):
            raise WireError("size_mismatch", f"chunk {idx} has the wrong length")
        self._have.add(idx)
        if idx != self._placed:
            # Early: keep it as received (a writable buffer may be reused by the caller).
            self._early[idx] = payload if payload.readonly else memoryview(bytes(payload))
        else:
            self._place(payload)
            while self._placed in self._early:
                self._place(self._early.pop(self._placed))
        if len(self._have) == self.descriptor.total_chunks:
            self._finish()
        return desc

    def _place(self, payload: memoryview) -> None:
        """Append the next chunk in order and advance (or queue) the frame's hash over it."""
        buf = self._buf
        assert buf is not None
        n = len(payload)
        if self._queued_hash is None:
            buf.append(payload)
            self._hash.update(payload)
        else:
            if buf.moves_for(n):
                self._queued_hash.drain()  # nothing may be reading what is about to move
            buf.append(payload)
            self._queued_hash.add(buf.size - n, n, keep_up=self._payload)
        self._placed += 1

    def _finish(self) -> None:
        """All chunks in: wait for the last hash, then check the frame's SHA-256."""
        assert self.descriptor is not None
        if self._queued_hash is not None:
            self._queued_hash.drain()
        if self._hash.hexdigest() != self.descriptor.frame_sha256:
            self._failed = WireError("hash_mismatch", "reassembled frame fails its SHA-256")
            self._buf = None
            raise self._failed
        self._done = True

    def _require_complete(self) -> memoryview:
        if self._failed is not None:
            raise self._failed
        if not self._done or self._buf is None:
            missing = self.missing() if self.descriptor else []
            shown = ", ".join(map(str, missing[:8])) + (" ..." if len(missing) > 8 else "")
            raise WireError("missing_chunks", f"frame incomplete; missing chunks: [{shown}]")
        return self._buf.view()

    @property
    def buffer(self) -> memoryview:
        """The reassembled frame without copying it (valid once complete)."""
        return self._require_complete()

    def frame(self) -> bytes:
        """The reassembled, verified frame, as a bytes copy of the assembler's buffer."""
        return bytes(self._require_complete())

    def value(self) -> Any:
        """Decode the reassembled frame; tensors view the assembler's buffer (no copy)."""
        return decode_view(self._require_complete(), self.limits)


def _in_order(items: list[ChunkFrame]) -> list[ChunkFrame]:
    return sorted(items, key=lambda c: -1 if c.descriptor is None else c.descriptor.chunk_idx)


def join_chunks(
    chunks: Iterable[Buffer | ChunkFrame],
    *,
    kind: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> bytes:
    """Reassemble and verify a complete chunk set (any order); a lone bare frame passes through."""
    items = [c if isinstance(c, ChunkFrame) else read_chunk(c, limits=limits) for c in chunks]
    if not items:
        raise WireError("missing_chunks", "no chunks given")
    if len(items) == 1 and items[0].descriptor is None:
        return bytes(items[0].data)
    items = _in_order(items)
    asm = ChunkAssembler(kind=kind, limits=limits)
    for item in items:
        asm.add(item)
    return asm.frame()
