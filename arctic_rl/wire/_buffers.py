"""Large buffers for the codec: anonymous memory maps, pre-faulted, filled without the GIL.

Moving a gigabyte is dominated by first-touch page faults, not by the copy: faulting
fresh pages one at a time costs about as much again as copying into them. So a large
destination is an anonymous `mmap`, populated for writing in one call where the platform
offers it (Linux's ``MADV_POPULATE_WRITE``, through `mmap.madvise`), and filled by numpy
copies, which release the GIL, so hashing and copying overlap across cores. A stream of
equal-sized buffers refills one its receiver has let go of instead of mapping a fresh
one (:class:`Recycler`), and a released assembly buffer lends its pages to the next
one drawing on the same :class:`SpareMaps` (each receiver holds its own).

Only documented interfaces: `mmap` (its portable constructor; ``MAP_PRIVATE`` where the
platform has it), `mmap.madvise`, `mmap.resize`, numpy, `sys.getrefcount`. Small buffers
take the plain Python path (``bytes``, ``bytearray``, ``memoryview``), and every fast
path has a portable fallback that the tests run on any platform.
"""

from __future__ import annotations

import mmap
import sys
import threading
from collections.abc import Sequence
from typing import Any

FAST_MIN = 4 * 1024 * 1024
"""Below this, plain Python buffers and copies are as fast and simpler."""

_PAGE = mmap.PAGESIZE
# Private anonymous memory where the platform names it (POSIX); Windows' mmap(-1, n) is an
# anonymous pagefile mapping already and has no such flags.
_MAP_FLAGS: dict[str, int] = (
    {"flags": mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS} if hasattr(mmap, "MAP_PRIVATE") else {}
)
# madvise(2)'s MADV_POPULATE_WRITE (Linux 5.14+; Python names it from 3.14 on). Another
# platform, or a kernel that answers EINVAL, faults pages in as they are first written.
_POPULATE_WRITE: int | None = getattr(
    mmap, "MADV_POPULATE_WRITE", 23 if sys.platform.startswith("linux") else None
)
_RESIZE_IN_PLACE = True
"""Whether `mmap.resize` is tried first (a platform without mremap raises SystemError)."""


def _references(held: list[Any], i: int) -> int:
    """``held[i]``'s reference count as this interpreter reports it."""
    return sys.getrefcount(held[i])


_ALONE = _references([object()], 0)
"""What ``_references`` reports for an object only its list holds."""
_CAN_REFILL = getattr(sys, "_is_gil_enabled", lambda: True)()
"""Reference counts tell who still holds a buffer only with the GIL on."""


def new_map(size: int) -> mmap.mmap:
    """A writable anonymous mapping of ``size`` bytes (zero-filled, faulted in lazily)."""
    return mmap.mmap(-1, size, **_MAP_FLAGS)


def populate(buf: mmap.mmap, start: int, length: int) -> None:
    """Pre-fault ``buf[start:start+length]`` for writing in one call (best effort)."""
    global _POPULATE_WRITE
    if _POPULATE_WRITE is None or length < FAST_MIN:
        return
    first = -(-start // _PAGE) * _PAGE
    end = min(start + length, len(buf)) // _PAGE * _PAGE
    if end > first:
        try:
            buf.madvise(_POPULATE_WRITE, first, end - first)
        except OSError:  # an older kernel: pages fault in as they are written
            _POPULATE_WRITE = None


def copy_into(dst: memoryview, offset: int, src: Any) -> int:
    """Copy buffer ``src`` into writable ``dst`` at ``offset``; returns its length.

    A large copy runs in numpy, which releases the GIL; a small one is a slice assignment.
    """
    with memoryview(src) as view:
        n = view.nbytes
        if n >= FAST_MIN:
            import numpy as np  # loaded with the first large copy, not with the package

            np.frombuffer(dst, np.uint8, n, offset)[:] = np.frombuffer(view, np.uint8)
        elif n:
            dst[offset : offset + n] = view.cast("B")
    return n


def writable_copy(src: memoryview) -> mmap.mmap | bytearray:
    """A private writable copy of ``src`` (a large one in a populated mapping)."""
    if len(src) < FAST_MIN:
        return bytearray(src)
    buf = new_map(len(src))
    populate(buf, 0, len(src))
    with memoryview(buf) as dst:
        copy_into(dst, 0, src)
    return buf


class Recycler:
    """Buffers of one stream, refilled once nobody but this recycler holds them.

    A stream of large, equal-sized buffers (the chunks of one frame) would otherwise
    fault a fresh mapping in for every buffer. A mapping whose only reference is the
    recycler's is unreachable from anywhere else (a memoryview or array of it holds a
    reference too), so it can be refilled and handed out again. At most ``keep`` are
    held, so an abandoned stream holds at most that many. Safe to share between threads.
    """

    def __init__(self, keep: int = 2) -> None:
        self.keep = keep
        self._held: list[mmap.mmap] = []
        self._lock = threading.Lock()

    def take(self, size: int, *, exact: bool = True) -> mmap.mmap | None:
        """A held buffer nobody else references, of ``size`` bytes (at least ``size``
        unless ``exact``), or None."""
        if not _CAN_REFILL:
            return None
        with self._lock:
            for i in range(len(self._held)):
                have = len(self._held[i])
                fits = have == size if exact else have >= size
                if fits and _references(self._held, i) == _ALONE:
                    return self._held.pop(i)
        return None

    def hold(self, buf: mmap.mmap) -> None:
        """Keep ``buf`` for refilling once its users let go (the oldest is dropped)."""
        with self._lock:
            self._held.append(buf)
            if len(self._held) > self.keep:
                del self._held[0]


def gather(
    parts: Sequence[bytes | memoryview], total: int, recycler: Recycler | None = None
) -> bytes | mmap.mmap:
    """Concatenate ``parts`` (``total`` bytes) into one buffer, copying once.

    Small results are ``bytes``; large ones a mapping (one ``recycler`` may refill).
    """
    if total < FAST_MIN:
        return b"".join(parts)
    out = recycler.take(total) if recycler is not None else None
    if out is None:
        out = new_map(total)
        populate(out, 0, total)
    if recycler is not None:
        recycler.hold(out)
    pos = 0
    with memoryview(out) as dst:
        for part in parts:
            pos += copy_into(dst, pos, part)
    if pos != total:  # pragma: no cover - caller bug; never hand out garbage
        raise AssertionError("gather: parts do not add up to total")
    return out


def _resized(buf: mmap.mmap, size: int, keep: int) -> mmap.mmap:
    """``buf`` grown or shrunk to ``size``, in place where the platform can (mremap),
    else a new mapping holding its first ``keep`` bytes.

    Only a private mapping is resized in place: a shared anonymous one keeps the size
    of the memory object behind it, so its grown part would fault (SIGBUS) on Linux,
    and Windows' resize copies anyway."""
    if _RESIZE_IN_PLACE and _MAP_FLAGS:  # a shared one (Windows') is moved: see below
        try:
            buf.resize(size)
            return buf
        except SystemError:  # no mremap (macOS): move instead
            pass
    moved = new_map(size)
    populate(moved, 0, keep)
    with memoryview(moved) as dst, memoryview(buf) as src:
        copy_into(dst, 0, src[:keep])
    return moved  # the old mapping goes when its last holder lets go


SPARE_MAX_BYTES = 1536 * 1024 * 1024
"""Mappings up to this size are kept for reuse once released (see :class:`SpareMaps`)."""
_TRACKED = 2


class SpareMaps:
    """The last mappings the :class:`AppendBuffer` s drawing on it made, reused once their
    users let go. Safe to share between threads.

    A receiver that assembles large frames in a loop (a training client's results, the
    mock's uploads) would otherwise fault a fresh mapping in for every frame. A tracked
    mapping that nobody but this list references (the tensors that viewed it are gone)
    is handed to the next buffer with its pages still in. At most ``_TRACKED`` mappings
    are tracked, the oldest let go first, so at most that many released ones are kept.
    Each receiver holds its own, so one never holds another's memory.
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


class AppendBuffer:
    """Bytes appended in order into memory that grows with them, up to ``capacity``.

    Large buffers are an anonymous mapping grown to twice its size when full (by
    `mmap.resize`, without a copy where the platform has mremap), populated only over
    the ranges appended, so the memory held is what was appended (the address space at
    most twice that), never the capacity; a released mapping of an earlier buffer of
    ``spares`` is taken instead when there is one, pages and all (without ``spares``,
    a mapping of its own).
    """

    def __init__(self, capacity: int, spares: SpareMaps | None = None) -> None:
        self.capacity = capacity
        self._spares = spares if spares is not None else SpareMaps()
        self.size = 0
        self._small: bytearray | None = bytearray() if capacity < FAST_MIN else None
        self._map: mmap.mmap | None = None
        self._faulted = 0  # bytes of the mapping known to be populated

    def moves_for(self, n: int) -> bool:
        """Whether appending ``n`` bytes may move what is here (no views may be alive)."""
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
            buf = self._room(end)
            if end > self._faulted:
                start = max(self.size, self._faulted)
                populate(buf, start, end - start)
                self._faulted = end
            with memoryview(buf) as dst:
                copy_into(dst, self.size, src)
        self.size = end

    def _room(self, end: int) -> mmap.mmap:
        """Make the mapping hold ``end`` bytes; returns it (possibly moved)."""
        if self._map is None:
            self._map = self._spares.take()
            if self._map is not None:
                if len(self._map) > self.capacity:  # keep no more than this frame needs
                    self._map = _resized(self._map, self.capacity, 0)
                self._faulted = len(self._map)
                self._spares.track(self._map)
        have = 0 if self._map is None else len(self._map)
        if end > have:
            grown = min(self.capacity, max(end, 2 * have))
            if self._map is None:
                self._map = new_map(grown)
                self._spares.track(self._map)
            else:
                moved = _resized(self._map, grown, self.size)
                if moved is not self._map:
                    self._map, self._faulted = moved, self.size
                    self._spares.track(moved)
        return self._map

    def view(self) -> memoryview:
        """Everything appended so far (a writable view)."""
        if self._small is not None:
            return memoryview(self._small)
        if self._map is None:
            return memoryview(bytearray())
        with memoryview(self._map) as whole:
            return whole[: self.size]
