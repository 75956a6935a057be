"""Chunk envelopes: split a frame into byte ranges, stream them, reassemble them.

Each chunk is itself a DSSST1 frame ``{"payload": uint8[L]}`` whose ``op`` metadata
holds one descriptor under ``request_chunk`` or ``result_chunk``. The descriptor binds
every chunk to the whole frame's size and SHA-256, so reassembly can verify both.
"""

from __future__ import annotations

import hashlib
import json
import math
import mmap
import re
import uuid
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from . import _fastcopy
from ._dtypes import BY_CODE
from ._errors import WireError
from ._frame import (
    Buffer,
    EncodedFrame,
    _as_memoryview,
    build_prefix,
    decode_view,
    encode_frame,
    iter_frame_slices,
    parse_dss,
    parse_header,
)
from ._limits import CHUNK_HEADROOM, CHUNK_KINDS, DEFAULT_LIMITS, VERSION, Limits

_CHUNK_TREE = ["d", [["payload", ["t", "payload"]]]]
_CHUNK_DSS = json.dumps({"v": VERSION, "tree": _CHUNK_TREE})
_HEX64 = re.compile(r"[0-9a-f]{64}")
_U8 = BY_CODE["U8"]


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
        return (
            self.kind,
            self.total_chunks,
            self.frame_sha256,
            self.frame_size_bytes,
            self.chunk_group_id,
            self.operation,
        ) == (
            other.kind,
            other.total_chunks,
            other.frame_sha256,
            other.frame_size_bytes,
            other.chunk_group_id,
            other.operation,
        )


def _check_kind(kind: str) -> None:
    if kind not in CHUNK_KINDS:
        raise WireError("bad_value", f"chunk kind must be one of {CHUNK_KINDS}, got {kind!r}")


def _payload_size(max_bytes: int) -> int:
    if type(max_bytes) is not int or max_bytes <= CHUNK_HEADROOM:
        raise WireError("bad_value", f"max_bytes must be an int above {CHUNK_HEADROOM}")
    return max_bytes - CHUNK_HEADROOM


def _chunk_frame(
    desc: ChunkDescriptor, parts: list[bytes | memoryview], length: int, max_bytes: int
) -> bytes:
    """One chunk frame, byte-identical to ``dumps({"payload": u8}, metadata={kind: desc})``."""
    op = json.dumps({desc.kind: desc.as_dict()})
    prefix = build_prefix(
        [("dss", _CHUNK_DSS), ("op", op)], [("payload", "U8", (length,), 0, length)]
    )
    if len(prefix) + length > max_bytes:
        raise WireError("too_large", "chunk header does not fit in the chunk headroom")
    return _fastcopy.gather([prefix, *parts], len(prefix) + length)


def _plan(
    kind: str,
    size: int,
    sha: str,
    max_bytes: int,
    chunk_group_id: str | None,
    operation: str | None,
) -> tuple[int, list[ChunkDescriptor]]:
    _check_kind(kind)
    payload = _payload_size(max_bytes)
    if chunk_group_id is None and kind == "request_chunk":
        # A fresh group per logical operation; pass an explicit id to make retries
        # (and streaming vs one-shot output) byte-identical.
        chunk_group_id = uuid.uuid4().hex
    total = math.ceil(size / payload)
    descs = [
        ChunkDescriptor(kind, i, total, sha, size, chunk_group_id, operation) for i in range(total)
    ]
    return payload, descs


def _chunks_of(
    frame: EncodedFrame,
    *,
    kind: str,
    max_bytes: int,
    chunk_group_id: str | None,
    operation: str | None,
    force: bool,
    sha: str | None = None,
) -> Iterator[bytes]:
    if not force and frame.size <= max_bytes:
        _check_kind(kind)
        yield frame.join()
        return
    sha = sha if sha is not None else frame.sha256()
    payload, descs = _plan(kind, frame.size, sha, max_bytes, chunk_group_id, operation)
    for desc, parts in zip(descs, iter_frame_slices(frame, payload), strict=True):
        yield _chunk_frame(desc, parts, sum(len(p) for p in parts), max_bytes)


def split_chunks(
    frame: Buffer,
    *,
    kind: str,
    max_bytes: int,
    chunk_group_id: str | None = None,
    operation: str | None = None,
    force: bool = False,
) -> list[bytes]:
    """Split a frame into chunk frames of at most ``max_bytes`` each.

    A frame that already fits is returned bare (one element) unless ``force``, which
    always wraps it in an envelope (forward-backward binds its idempotency key that way).
    """
    mv = _as_memoryview(frame)
    encoded = EncodedFrame(b"", [mv], len(mv))
    return list(
        _chunks_of(
            encoded,
            kind=kind,
            max_bytes=max_bytes,
            chunk_group_id=chunk_group_id,
            operation=operation,
            force=force,
        )
    )


def iter_chunks(
    value: Any,
    *,
    kind: str,
    max_bytes: int,
    chunk_group_id: str | None = None,
    operation: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    force: bool = False,
) -> Iterator[bytes]:
    """Encode ``value`` straight to chunk frames without building the whole frame.

    Tensor bytes are read twice (once to hash, once to emit) and never copied whole;
    at most one chunk is alive at a time. Output equals
    ``split_chunks(dumps(value, metadata=metadata), ...)`` given the same group id.
    """
    _check_kind(kind)
    _payload_size(max_bytes)
    encoded = encode_frame(value, metadata=metadata)
    return _chunks_of(
        encoded,
        kind=kind,
        max_bytes=max_bytes,
        chunk_group_id=chunk_group_id,
        operation=operation,
        force=force,
    )


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


def _parse_chunk(
    data: Buffer, limits: Limits
) -> tuple[ChunkDescriptor | None, memoryview, memoryview]:
    """(descriptor or None for a bare frame, payload view, whole-chunk view)."""
    mv = _as_memoryview(data)
    header = parse_header(mv, limits)
    tree, op = parse_dss(header)
    desc = _descriptor_from_op(op)
    if desc is None:
        return None, mv[:0], mv
    info = header.tensors.get("payload")
    if tree != _CHUNK_TREE or info is None or len(header.tensors) != 1:
        raise WireError("bad_structure", "chunk frame must hold exactly {'payload': uint8[n]}")
    if info.dtype is not _U8 or len(info.shape) != 1 or info.shape[0] < 1:
        raise WireError("bad_structure", "chunk payload must be a non-empty 1-D uint8 tensor")
    start = header.data_start + info.begin
    return desc, mv[start : header.data_start + info.end], mv


def read_chunk_descriptor(chunk: Buffer) -> dict[str, Any]:
    """The chunk's descriptor plus ``kind`` (validates the header, not the payload bytes).

    Raises ``WireError('bad_structure')`` when ``chunk`` is a bare frame, not an envelope.
    """
    desc, _, _ = _parse_chunk(chunk, DEFAULT_LIMITS)
    if desc is None:
        raise WireError("bad_structure", "frame is not a chunk envelope")
    return {"kind": desc.kind, **desc.as_dict()}


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

    def add(self, chunk: Buffer) -> ChunkDescriptor:
        """Verify one chunk frame and place its payload; returns its descriptor."""
        if self._failed is not None:
            raise WireError(self._failed.code, f"assembler already failed: {self._failed.message}")
        desc, payload, _ = _parse_chunk(chunk, self.limits)
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
    chunks: Iterable[Buffer], *, kind: str | None = None, limits: Limits = DEFAULT_LIMITS
) -> bytes:
    """Reassemble and verify a complete chunk set (any order); a lone bare frame passes through."""
    items = list(chunks)
    if not items:
        raise WireError("missing_chunks", "no chunks given")
    if len(items) == 1:
        desc, _, mv = _parse_chunk(items[0], limits)
        if desc is None:
            return bytes(mv)
    asm = ChunkAssembler(kind=kind, limits=limits)
    asm._into_bytes = True  # the caller wants bytes: assemble straight into them
    for item in items:
        asm.add(item)
    return asm.frame()
