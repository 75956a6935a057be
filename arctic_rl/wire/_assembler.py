"""Reassembly: chunk envelopes back into the verified frame, as they arrive."""

from __future__ import annotations

import hashlib
import math
import mmap
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from . import _fastcopy
from ._chunks import ChunkDescriptor, ChunkFrame, _check_kind, read_chunk
from ._decode import Buffer, decode_view
from ._errors import WireError
from ._limits import DEFAULT_LIMITS, Limits

_THREAD_MIN = 32 * 1024 * 1024
"""Frames at least this large are copied and hashed on a helper thread."""


class ChunkAssembler:
    """Incremental decoder: feed chunks as they arrive, in any order.

    Each chunk is verified on arrival (frame consistency, index range, duplicates,
    payload length) and its payload written straight to its final place in one
    preallocated buffer; the frame's SHA-256 advances whenever the next in-order chunk
    is in, so the hash is finished the moment the last gap fills. The buffer is
    allocated only after the first chunk's declared size passes
    ``limits.max_frame_bytes`` and agrees with its chunk count and payload length.

    For large frames the copy and hash of read-only (``bytes``) chunks run on one
    helper thread, GIL-free, while the caller fetches the next chunk; at most one chunk
    is in flight. The last ``add`` waits for it and checks the hash, so callers see the
    same semantics either way. A failing ``add`` leaves the assembler as it was,
    except a hash mismatch, which poisons it.
    """

    def __init__(self, *, kind: str | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        if kind is not None:
            _check_kind(kind)
        self.kind = kind
        self.limits = limits
        self.descriptor: ChunkDescriptor | None = None
        self._into_bytes = False
        self._payload = 0
        self._buf: mmap.mmap | bytearray | bytes | None = None
        self._addr = 0
        self._have = bytearray()
        self._copied = bytearray()
        self._received = 0
        self._hashed = 0
        self._hash = hashlib.sha256()
        self._done = False
        self._failed: WireError | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._future: Future[None] | None = None

    @property
    def complete(self) -> bool:
        """All chunks present and the frame's size and SHA-256 verified."""
        return self._done

    @property
    def received(self) -> int:
        """How many distinct chunks have been accepted."""
        return self._received

    @property
    def total(self) -> int | None:
        """Declared chunk count (None before the first chunk)."""
        return self.descriptor.total_chunks if self.descriptor else None

    def missing(self) -> list[int]:
        """Chunk indexes not yet received."""
        return [i for i, have in enumerate(self._have) if not have]

    def _expected_len(self, idx: int) -> int:
        d = self.descriptor
        assert d is not None
        if idx < d.total_chunks - 1:
            return self._payload
        return d.frame_size_bytes - self._payload * (d.total_chunks - 1)

    def _start(self, desc: ChunkDescriptor, length: int) -> None:
        """Derive the chunk payload size from the first chunk, then allocate."""
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
        self._have = bytearray(total)
        self._copied = bytearray(total)
        threaded = size >= _THREAD_MIN
        if threaded:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="dssst1-assembler")
        # Large buffers are mapped lazily: the helper populates each chunk's range just
        # before copying into it, so allocation costs nothing up front.
        fast = _fastcopy.empty_bytes(size, prefault=not threaded) if self._into_bytes else None
        if fast is not None:
            self._buf, self._addr = fast
        else:
            self._buf = _fastcopy.writable_buffer(size, prefault=not threaded)
            self._addr = _fastcopy.address(self._buf) if size >= _fastcopy.FAST_MIN else 0

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
        if self._have[desc.chunk_idx]:
            raise WireError("duplicate_chunk", f"chunk {desc.chunk_idx} already received")
        if length != self._expected_len(desc.chunk_idx):
            raise WireError("size_mismatch", f"chunk {desc.chunk_idx} has the wrong length")
        self._have[desc.chunk_idx] = 1
        self._received += 1
        self._wait()
        if self._pool is not None and payload.readonly:
            self._future = self._pool.submit(self._ingest, desc.chunk_idx, payload)
        else:
            # A writable chunk buffer may be reused by the caller once add() returns.
            self._ingest(desc.chunk_idx, payload)
        if self._received == self.descriptor.total_chunks:
            self._finish()
        return desc

    def _wait(self) -> None:
        if self._future is not None:
            future, self._future = self._future, None
            future.result()

    def _ingest(self, idx: int, payload: memoryview) -> None:
        """Copy one payload into place and advance the in-order hash (helper thread)."""
        offset = idx * self._payload
        n = len(payload)
        if self._addr:  # large buffer (possibly a not-yet-shared bytes object)
            if self._pool is not None:  # mapped lazily: fault this range in bulk
                _fastcopy.populate(self._addr + offset, n)
            _fastcopy.memmove(self._addr + offset, _fastcopy.address(payload), n)
        else:
            assert isinstance(self._buf, bytearray | mmap.mmap)
            self._buf[offset : offset + n] = payload
        self._copied[idx] = 1
        total = len(self._copied)
        view = memoryview(self._buf)  # type: ignore[arg-type]
        while self._hashed < total and self._copied[self._hashed]:
            start = self._hashed * self._payload
            self._hash.update(view[start : start + self._expected_len(self._hashed)])
            self._hashed += 1
        view.release()

    def _finish(self) -> None:
        """All chunks in: wait for the helper, then check the frame's SHA-256."""
        assert self.descriptor is not None
        self._wait()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
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
        return memoryview(self._buf)

    @property
    def buffer(self) -> memoryview:
        """The reassembled frame without copying it (valid once complete)."""
        return self._require_complete()

    def frame(self) -> bytes:
        """The reassembled, verified frame (a copy unless assembled straight into bytes)."""
        view = self._require_complete()
        if isinstance(self._buf, bytes):
            return self._buf
        return _fastcopy.gather([view], len(view))

    def value(self) -> Any:
        """Decode the reassembled frame; tensors view the assembler's buffer (no copy)."""
        return decode_view(self._require_complete(), self.limits)


def join_chunks(
    chunks: Iterable[Buffer | ChunkFrame],
    *,
    kind: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> bytes:
    """Reassemble and verify a complete chunk set (any order); a lone bare frame passes through."""
    items = list(chunks)
    if not items:
        raise WireError("missing_chunks", "no chunks given")
    if len(items) == 1:
        only = items[0] if isinstance(items[0], ChunkFrame) else read_chunk(items[0], limits=limits)
        if only.descriptor is None:
            return bytes(only.data)
        items = [only]
    asm = ChunkAssembler(kind=kind, limits=limits)
    asm._into_bytes = True  # the caller wants bytes: assemble straight into them
    for item in items:
        asm.add(item)
    return asm.frame()
