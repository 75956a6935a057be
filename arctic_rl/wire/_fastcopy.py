"""Bulk copies that release the GIL and pre-fault their destination.

Moving a gigabyte is dominated by first-touch page faults, not by memcpy: on the
virtual machines we measured, faulting fresh pages one at a time costs 2-4x the copy
itself. So large destinations are populated in one kernel call
(``MAP_POPULATE`` / ``MADV_POPULATE_WRITE``) and filled with ``memmove`` through
ctypes, which runs without the GIL so hashing and copying overlap across cores.
Small buffers take the plain Python path; every fast path has a portable fallback.
"""

from __future__ import annotations

import ctypes
import mmap
import sys
from collections.abc import Sequence

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


def gather(parts: Sequence[bytes | memoryview], total: int) -> bytes:
    """Concatenate ``parts`` (``total`` bytes) into a new bytes object, copying once.

    The fast path creates the bytes object uninitialised, the way C code builds one,
    and fills every byte before anyone else can see it.
    """
    if _new_bytes_api is None or total < FAST_MIN:
        return b"".join(parts)
    out: bytes = _new_bytes_api(None, total)
    base = id(out) + _BYTES_DATA
    populate(base, total)
    pos = 0
    for part in parts:
        n = len(part) if isinstance(part, bytes) else part.nbytes
        if n:
            memmove(base + pos, address(part), n)
            pos += n
    if pos != total:  # pragma: no cover - caller bug; never hand out garbage
        raise AssertionError("gather: parts do not add up to total")
    return out


def empty_bytes(total: int, *, prefault: bool = True) -> tuple[bytes, int] | None:
    """An uninitialised bytes object and its data address (fast path only).

    With ``prefault=False`` the caller populates ranges itself, just before filling them.
    """
    if _new_bytes_api is None or total < FAST_MIN:
        return None
    out: bytes = _new_bytes_api(None, total)
    base = id(out) + _BYTES_DATA
    if prefault:
        populate(base, total)
    return out, base


def writable_buffer(size: int, *, prefault: bool = True) -> mmap.mmap | bytearray:
    """A zeroed, writable buffer; large ones are an anonymous mapping.

    With ``prefault`` the mapping is populated up front; otherwise pages arrive lazily
    (or through ``populate`` on the ranges about to be written).
    """
    if size < FAST_MIN:
        return bytearray(size)
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
    if prefault:
        flags |= getattr(mmap, "MAP_POPULATE", 0)
    return mmap.mmap(-1, size, flags=flags)


def writable_copy(src: memoryview) -> mmap.mmap | bytearray:
    """A private writable copy of ``src``."""
    if len(src) < FAST_MIN:
        return bytearray(src)
    buf = writable_buffer(len(src))
    memmove(address(buf), address(src), len(src))
    return buf
