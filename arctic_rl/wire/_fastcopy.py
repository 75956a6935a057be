"""Bulk copies that release the GIL and pre-fault their destination.

Moving a gigabyte is dominated by first-touch page faults, not by memcpy: on the
virtual machines we measured, faulting fresh pages one at a time costs 2-4x the copy
itself (populating 1 GiB costs about 0.3 s of CPU here, the copy 0.08 s). So large
destinations are populated in one kernel call (``MADV_POPULATE_WRITE``), filled with
``memmove`` through ctypes, which runs without the GIL so hashing and copying overlap
across cores, and, where a stream of equal-sized buffers is handed out, refilled
instead of allocated afresh once nobody holds them (:class:`Recycler`). Transparent
huge pages were tried and left out: on a fragmented host, compaction made populating
1 GiB cost 2.3 s of CPU instead of 0.3.
Small buffers take the plain Python path; every fast path has a portable fallback.
"""

from __future__ import annotations

import ctypes
import mmap
import sys
import threading
from collections.abc import Sequence
from typing import Any

FAST_MIN = 4 * 1024 * 1024
"""Below this, plain Python copies are as fast and simpler."""

_MADV_POPULATE_WRITE = 23  # Linux 5.14+; older kernels answer EINVAL, which we ignore.
_PAGE = mmap.PAGESIZE
_CPYTHON = sys.implementation.name == "cpython" and sys.platform.startswith("linux")

_new_bytes_api = None
_madvise = None
if _CPYTHON:
    try:
        _new_bytes_api = ctypes.pythonapi.PyBytes_FromStringAndSize
        _new_bytes_api.restype = ctypes.py_object
        _new_bytes_api.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t)
        _libc = ctypes.CDLL(None, use_errno=True)
        _madvise = _libc.madvise
        _madvise.restype = ctypes.c_int
        _madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    except (AttributeError, OSError):  # pragma: no cover - exotic builds
        _new_bytes_api = None
        _madvise = None

# Offset of the character data inside a CPython bytes object (ob_sval).
_BYTES_DATA = bytes.__basicsize__ - 1
# Offset of its cached hash (ob_shash), just before the data.
_BYTES_HASH = _BYTES_DATA - ctypes.sizeof(ctypes.c_ssize_t)


def _cached_hash_is_where_expected() -> bool:
    """Whether this interpreter keeps a bytes object's cached hash at ``_BYTES_HASH``."""
    probe = b"dssst1 layout probe " + bytes(12)
    cached = ctypes.c_ssize_t.from_address(id(probe) + _BYTES_HASH)
    return hash(probe) == cached.value


def _references(held: list[Any], i: int) -> int:
    """``held[i]``'s reference count as this interpreter reports it."""
    return sys.getrefcount(held[i])


_ALONE = _references([object()], 0)
"""What ``_references`` reports for an object only its list holds."""
_CAN_REFILL = (
    _new_bytes_api is not None
    and getattr(sys, "_is_gil_enabled", lambda: True)()
    and _cached_hash_is_where_expected()
)


def address(buf: bytes | bytearray | memoryview | mmap.mmap) -> int:
    """Address of a C-contiguous buffer's first byte (read-only buffers included)."""
    import numpy as np

    return int(np.frombuffer(buf, dtype=np.uint8).__array_interface__["data"][0])


def populate(addr: int, length: int) -> None:
    """Pre-fault ``[addr, addr+length)`` for writing in one syscall (best effort)."""
    if _madvise is None or length < FAST_MIN:
        return
    start = -(-addr // _PAGE) * _PAGE
    end = (addr + length) // _PAGE * _PAGE
    if end > start:
        _madvise(start, end - start, _MADV_POPULATE_WRITE)


def memmove(dst: int, src: int, length: int) -> None:
    """memmove without the GIL."""
    ctypes.memmove(dst, src, length)


class Recycler:
    """Bytes objects of one stream, refilled once nobody but this recycler holds them.

    A stream of large, equal-sized buffers (the chunks of one frame) would otherwise
    fault a fresh mapping in for every buffer. A bytes object whose only reference is
    the recycler's is unreachable from anywhere else, so it can be refilled in place
    and handed out again, as CPython itself resizes a bytes object only it references;
    its cached hash is reset. At most ``keep`` buffers are held, so an abandoned stream
    holds at most that many.
    """

    def __init__(self, keep: int = 2) -> None:
        self.keep = keep
        self._held: list[bytes] = []

    def take(self, size: int) -> bytes | None:
        """A held buffer of ``size`` bytes that nobody else references, or None."""
        if not _CAN_REFILL:
            return None
        for i in range(len(self._held)):
            if len(self._held[i]) == size and _references(self._held, i) == _ALONE:
                out = self._held.pop(i)
                ctypes.c_ssize_t.from_address(id(out) + _BYTES_HASH).value = -1
                return out
        return None

    def hold(self, buf: bytes) -> None:
        """Keep ``buf`` for refilling once its users let go (the oldest is dropped)."""
        self._held.append(buf)
        if len(self._held) > self.keep:
            del self._held[0]


def gather(
    parts: Sequence[bytes | memoryview], total: int, recycler: Recycler | None = None
) -> bytes:
    """Concatenate ``parts`` (``total`` bytes) into a bytes object, copying once.

    The fast path creates the bytes object uninitialised, the way C code builds one
    (or takes one ``recycler`` may refill), and fills every byte before anyone else can
    see it.
    """
    if _new_bytes_api is None or total < FAST_MIN:
        return b"".join(parts)
    out = recycler.take(total) if recycler is not None else None
    if out is None:
        out = _new_bytes_api(None, total)
        populate(id(out) + _BYTES_DATA, total)
    if recycler is not None:
        recycler.hold(out)
    base = id(out) + _BYTES_DATA
    pos = 0
    for part in parts:
        n = len(part) if isinstance(part, bytes) else part.nbytes
        if n:
            memmove(base + pos, address(part), n)
            pos += n
    if pos != total:  # pragma: no cover - caller bug; never hand out garbage
        raise AssertionError("gather: parts do not add up to total")
    return out


def empty_bytes(total: int) -> tuple[bytes, int] | None:
    """An uninitialised, populated bytes object and its data address (fast path only)."""
    if _new_bytes_api is None or total < FAST_MIN:
        return None
    out: bytes = _new_bytes_api(None, total)
    base = id(out) + _BYTES_DATA
    populate(base, total)
    return out, base


SPARE_MAX_BYTES = 1536 * 1024 * 1024
"""Mappings up to this size are kept for reuse once released (see :class:`_Spares`)."""
_TRACKED = 2


class _Spares:
    """The last mappings :class:`AppendBuffer` made, reused once their users let go.

    A process that assembles large frames in a loop (a training client's results, the
    mock's uploads) would otherwise fault a fresh mapping in for every frame: about
    0.3 s of CPU per GiB here. A tracked mapping that nobody but this list references
    (the tensors that viewed it are gone) is handed to the next buffer with its pages
    still in. At most ``_TRACKED`` mappings are tracked, the oldest let go first, so at
    most that many released ones are ever kept.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._maps: list[mmap.mmap] = []

    def take(self) -> mmap.mmap | None:
        """A tracked mapping nobody else references, or None."""
        with self._lock:
            # one that grew too large after it was tracked is let go, never reused
            self._maps = [m for m in self._maps if len(m) <= SPARE_MAX_BYTES]
            for i in range(len(self._maps)):
                if _references(self._maps, i) == _ALONE:
                    return self._maps.pop(i)
        return None

    def track(self, mapping: mmap.mmap) -> None:
        """Keep ``mapping`` for reuse once its users let go (too large ones are not kept)."""
        if not _CAN_REFILL or len(mapping) > SPARE_MAX_BYTES:
            return
        with self._lock:
            self._maps.append(mapping)
            if len(self._maps) > _TRACKED:
                del self._maps[0]


_spares = _Spares()


class AppendBuffer:
    """Bytes appended in order into memory that grows with them, up to ``capacity``.

    Large buffers are an anonymous mapping extended by ``mremap`` (no copy) to twice
    its size when full, and populated only over the ranges appended, so the memory
    held is what was appended (the address space at most twice that), never the
    capacity; a released mapping of an earlier buffer is taken instead when there is
    one (:class:`_Spares`), pages and all. ``presized`` (every byte is known to be
    coming) allocates a bytes object of ``capacity`` at once instead, to be handed out
    uncopied.
    """

    def __init__(self, capacity: int, *, presized: bool = False) -> None:
        self.capacity = capacity
        self.size = 0
        self._bytes: bytes | None = None
        self._bytes_addr = 0
        self._small: bytearray | None = None
        self._map: mmap.mmap | None = None
        self._faulted = 0  # bytes of the mapping known to be populated
        fast = empty_bytes(capacity) if presized else None
        if fast is not None:
            self._bytes, self._bytes_addr = fast
        elif capacity < FAST_MIN:
            self._small = bytearray()

    def moves_for(self, n: int) -> bool:
        """Whether appending ``n`` bytes may move what is here (no views may be alive)."""
        if self._bytes is not None:
            return False
        if self._small is not None:
            return True  # a bytearray may be reallocated on any append
        return self._map is None or self.size + n > len(self._map)

    def append(self, src: memoryview) -> None:
        """Copy ``src`` after what is already here."""
        n = len(src)
        end = self.size + n
        if end > self.capacity:  # pragma: no cover - caller bug
            raise AssertionError("AppendBuffer: more bytes than its capacity")
        if self._small is not None:
            self._small += src
        else:
            if self._bytes is not None:
                dst = self._bytes_addr + self.size
            else:
                base = self._room(end)
                dst = base + self.size
                if end > self._faulted:
                    start = max(self.size, self._faulted)
                    populate(base + start, end - start)
                    self._faulted = end
            memmove(dst, address(src), n)
        self.size = end

    def _room(self, end: int) -> int:
        """Make the mapping hold ``end`` bytes; returns its (possibly new) address."""
        if self._map is None:
            self._map = _spares.take()
            if self._map is not None:
                if len(self._map) > self.capacity:
                    self._map.resize(self.capacity)  # keep no more than this frame needs
                self._faulted = len(self._map)
                _spares.track(self._map)
        have = 0 if self._map is None else len(self._map)
        if end > have:
            grown = min(self.capacity, max(end, 2 * have))
            flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
            if self._map is None:
                self._map = mmap.mmap(-1, grown, flags=flags)
                _spares.track(self._map)
            else:
                try:
                    self._map.resize(grown)
                except SystemError:  # pragma: no cover - a platform without mremap
                    moved = mmap.mmap(-1, grown, flags=flags)
                    moved[: self.size] = self._map[: self.size]
                    self._map.close()
                    self._map = moved
                    self._faulted = self.size
        assert self._map is not None
        return address(self._map)

    def view(self) -> memoryview:
        """Everything appended so far (a writable view unless presized into bytes)."""
        if self._bytes is not None:
            return memoryview(self._bytes)[: self.size]
        if self._small is not None:
            return memoryview(self._small)
        if self._map is None:
            return memoryview(bytearray())
        with memoryview(self._map) as whole:
            return whole[: self.size]


def writable_copy(src: memoryview) -> mmap.mmap | bytearray:
    """A private writable copy of ``src`` (a large one in a populated anonymous mapping)."""
    if len(src) < FAST_MIN:
        return bytearray(src)
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0)
    buf = mmap.mmap(-1, len(src), flags=flags)
    memmove(address(buf), address(src), len(src))
    return buf
