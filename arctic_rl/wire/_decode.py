"""Decode one DSSST1 frame: validate the header, then rebuild the value over its bytes.

Everything a hostile frame could lie about (sizes, offsets, nesting, counts) is checked
while only the header has been read. torch is imported lazily, only when the frame
holds a tensor. Nothing is ever unpickled.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from . import _buffers
from ._dtypes import BY_CODE, DType
from ._errors import WireError
from ._limits import DEFAULT_LIMITS, VERSION, Limits

if TYPE_CHECKING:
    import torch

Buffer = bytes | bytearray | memoryview

_PICKLE_MAGICS = (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05")
_ZIP_MAGIC = b"PK\x03\x04"
_MAX_EXTENT = 2**62
_LEGACY_MESSAGE = (
    "legacy pickle/torch.save payload refused: DSSST1 frames are safetensors images "
    "and this codec never unpickles"
)


class TensorInfo(NamedTuple):
    """A header entry, validated."""

    dtype: DType
    shape: tuple[int, ...]
    begin: int
    end: int


class Header(NamedTuple):
    """A parsed, validated frame header; offsets are relative to ``data_start``."""

    metadata: dict[str, str]
    tensors: dict[str, TensorInfo]
    data_start: int
    data_len: int


def as_memoryview(data: Buffer) -> memoryview:
    try:
        mv = memoryview(data)
    except TypeError as exc:
        raise WireError(
            "bad_value", f"expected a bytes-like frame, got {type(data).__name__}"
        ) from exc
    if mv.ndim != 1 or mv.itemsize != 1:
        if not mv.c_contiguous:
            raise WireError("bad_value", "frame buffer must be contiguous")
        mv = mv.cast("B")
    return mv


def _looks_legacy(mv: memoryview) -> bool:
    head = bytes(mv[:4])
    return head[:2] in _PICKLE_MAGICS or head == _ZIP_MAGIC


def _is_count(x: object) -> bool:
    return type(x) is int and x >= 0


def parse_header(mv: memoryview, limits: Limits = DEFAULT_LIMITS) -> Header:
    """Validate the safetensors layer completely, touching only the header bytes.

    Every size and offset is checked against the buffer length here, so a hostile
    frame is refused before anything proportional to its declared sizes is allocated.
    """
    hlen = _header_length(mv, limits)
    header = _header_json(mv[8 : 8 + hlen])
    meta = header.pop("__metadata__", None)
    if meta is None:
        meta = {}
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise WireError("bad_header", "__metadata__ must map strings to strings")
    if len(header) > limits.max_tensors:
        raise WireError("too_many_tensors", f"{len(header)} tensors, cap {limits.max_tensors}")
    tensors = {name: _tensor_info(info, limits) for name, info in header.items()}
    data_len = len(mv) - 8 - hlen
    _check_tiling(tensors.values(), data_len)
    return Header(meta, tensors, 8 + hlen, data_len)


def _header_length(mv: memoryview, limits: Limits) -> int:
    """The u64 header length, checked against the frame and the cap (or a legacy refusal)."""
    n = len(mv)
    hlen = int.from_bytes(mv[:8], "little") if n >= 8 else -1
    plausible = n >= 8 and 2 <= hlen <= n - 8 and mv[8] == 0x7B
    if not plausible and _looks_legacy(mv):
        raise WireError("pickle_refused", _LEGACY_MESSAGE)
    if n < 8:
        raise WireError("truncated", f"frame of {n} bytes is shorter than the 8-byte prefix")
    if hlen > limits.max_header_bytes:
        raise WireError(
            "too_large", f"header length {hlen} exceeds the {limits.max_header_bytes}-byte cap"
        )
    if hlen > n - 8:
        raise WireError("truncated", f"header length {hlen} runs past the {n}-byte frame")
    return hlen


def _header_json(raw: memoryview) -> dict[str, Any]:
    try:
        header = json.loads(bytes(raw).decode("utf-8"))
    except RecursionError as exc:
        raise WireError("too_deep", "header JSON nested too deeply") from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError("bad_header", "header is not valid UTF-8 JSON") from exc
    if not isinstance(header, dict):
        raise WireError("bad_header", "header is not a JSON object")
    return header


def _tensor_info(info: object, limits: Limits) -> TensorInfo:
    """One header entry, validated on its own (dtype, shape, offsets agree)."""
    if not isinstance(info, dict):
        raise WireError("bad_header", "tensor entry is not an object")
    code, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if not isinstance(code, str):
        raise WireError("bad_header", "tensor entry lacks a dtype")
    dtype = BY_CODE.get(code)
    if dtype is None:
        raise WireError("bad_dtype", f"unsupported dtype {code[:32]!r}")
    if not isinstance(shape, list) or not all(_is_count(d) for d in shape):
        raise WireError("bad_header", "tensor shape must be a list of non-negative ints")
    if len(shape) > limits.max_rank:
        raise WireError("bad_header", f"tensor rank {len(shape)} over {limits.max_rank}")
    if math.prod(d for d in shape if d) * dtype.itemsize >= _MAX_EXTENT:
        # Even an empty tensor must have strides that fit in int64.
        raise WireError("bad_header", "tensor shape is too large to address")
    if (
        not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(_is_count(o) for o in offsets)
        or offsets[0] > offsets[1]
    ):
        raise WireError("bad_header", "data_offsets must be [begin, end] with begin <= end")
    if math.prod(shape) * dtype.itemsize != offsets[1] - offsets[0]:
        raise WireError("size_mismatch", "a tensor's shape disagrees with its data_offsets")
    return TensorInfo(dtype, tuple(shape), offsets[0], offsets[1])


def _check_tiling(tensors: Iterable[TensorInfo], data_len: int) -> None:
    """The tensors' byte ranges must cover the data section exactly, without overlap."""
    end = 0
    for info in sorted(tensors, key=lambda t: (t.begin, t.end)):
        if info.begin != end:
            raise WireError("size_mismatch", "tensor data_offsets overlap or leave a gap")
        end = info.end
    if end > data_len:
        raise WireError(
            "truncated", f"header declares {end} bytes of tensor data, frame holds {data_len}"
        )
    if end < data_len:
        raise WireError("size_mismatch", f"{data_len - end} bytes after the last tensor")


def parse_dss(header: Header) -> tuple[Any, dict[str, Any]]:
    """The structure tree and the ``op`` metadata of a parsed header."""
    meta = header.metadata
    raw = meta.get("dss")
    if raw is None:
        raise WireError("bad_structure", "frame carries no DSSST1 structure (no 'dss' metadata)")
    try:
        dss = json.loads(raw)
        op = json.loads(meta["op"]) if "op" in meta else {}
    except RecursionError as exc:
        raise WireError("too_deep", "metadata JSON nested too deeply") from exc
    except ValueError as exc:
        raise WireError("bad_structure", "dss/op metadata is not valid JSON") from exc
    if not isinstance(dss, dict):
        raise WireError("bad_structure", "dss metadata is not an object")
    if dss.get("v") != VERSION:
        version = dss.get("v")
        shown = version[:16] if isinstance(version, str) else type(version).__name__
        raise WireError("bad_version", f"unsupported frame version {shown!r}, want {VERSION}")
    if "tree" not in dss:
        raise WireError("bad_structure", "dss metadata has no tree")
    if not isinstance(op, dict):
        raise WireError("bad_header", "op metadata is not an object")
    return dss["tree"], op


class _TensorMaker:
    """Builds torch tensors over the frame's tensor section, viewing it where safe.

    Writable input buffers are viewed directly (tensors share memory with them).
    Read-only input (``bytes``) is copied once, in bulk, into a private bytearray that
    the tensors then view: torch has no read-only tensors, and writing through a view of
    an immutable ``bytes`` object would be undefined behaviour. Tensors whose bytes are
    misaligned for their dtype are copied individually (never happens for frames from a
    safetensors-style writer, whose layout keeps every tensor aligned).
    """

    def __init__(self, mv: memoryview, header: Header) -> None:
        import torch

        self.torch = torch
        self.header = header
        self.cache: dict[str, torch.Tensor] = {}
        section = mv[header.data_start : header.data_start + header.data_len]
        self.base: torch.Tensor | None = None
        if header.data_len:
            buf = _buffers.writable_copy(section) if section.readonly else section
            self.base = torch.frombuffer(buf, dtype=torch.uint8)

    def get(self, name: str) -> torch.Tensor:
        cached = self.cache.get(name)
        if cached is not None:
            return cached
        info = self.header.tensors.get(name)
        if info is None:
            raise WireError("bad_structure", "tree references a tensor the header lacks")
        torch = self.torch
        tdtype = getattr(torch, info.dtype.torch_name, None)
        if tdtype is None:
            raise WireError("bad_dtype", f"this torch has no {info.dtype.torch_name}")
        if info.begin == info.end or self.base is None:
            try:
                t = torch.empty(info.shape, dtype=tdtype)
            except (RuntimeError, TypeError, ValueError) as exc:  # belt and braces
                raise WireError("bad_header", "tensor shape torch cannot represent") from exc
        else:
            raw = self.base[info.begin : info.end]
            if info.dtype.code == "BOOL" and bool(raw.gt(1).any()):
                raise WireError("bad_value", "bool tensor holds bytes other than 0 and 1")
            size = info.dtype.itemsize
            if size > 1 and (info.begin % size or raw.data_ptr() % size):
                raw = raw.clone()
            t = raw.view(tdtype).view(info.shape)
        self.cache[name] = t
        return t


def _bad(message: str) -> WireError:
    return WireError("bad_structure", message)


class _TreeReader:
    """Rebuilds the nested value from its tree; tensors come from ``maker`` by KEY."""

    def __init__(self, maker: _TensorMaker | None, limits: Limits) -> None:
        self.maker = maker
        self.limits = limits

    def walk(self, node: Any, depth: int) -> Any:
        if depth > self.limits.max_depth:
            raise WireError("too_deep", f"structure nested deeper than {self.limits.max_depth}")
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            raise _bad("tree node is not a tagged list")
        tag = node[0]
        if tag == "j":
            if len(node) != 2:
                raise _bad("'j' node must hold exactly one value")
            return node[1]
        if tag == "t":
            return self._tensor(node)
        if len(node) != 2 or not isinstance(node[1], list):
            raise _bad(f"{tag[:8]!r} node must be [TAG, [...]]")
        if tag == "d":
            return self._dict(node[1], depth)
        if tag == "l":
            return [self.walk(c, depth + 1) for c in node[1]]
        if tag == "u":
            return tuple(self.walk(c, depth + 1) for c in node[1])
        raise _bad(f"unknown tree tag {tag[:8]!r}")

    def _tensor(self, node: list[Any]) -> torch.Tensor:
        if len(node) not in (2, 3) or not isinstance(node[1], str):
            raise _bad("'t' node must be ['t', KEY] or ['t', KEY, OPTIONS]")
        opts = node[2] if len(node) == 3 else {}
        if not isinstance(opts, dict):
            raise _bad("'t' node options must be an object")
        if self.maker is None:
            raise _bad("tree references a tensor the header lacks")
        t = self.maker.get(node[1])
        if opts.get("scalar") is True:
            if t.numel() != 1:
                raise _bad("scalar tensor must hold exactly one element")
            t = t.reshape(())
        return t

    def _dict(self, pairs: list[Any], depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for pair in pairs:
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                raise _bad("'d' items must be [str, NODE] pairs")
            if pair[0] in out:
                raise _bad("duplicate dict key in tree")
            out[pair[0]] = self.walk(pair[1], depth + 1)
        return out


def build_value(tree: Any, maker: _TensorMaker | None, limits: Limits) -> Any:
    """Rebuild the nested value from its tree; tensors come from ``maker`` by KEY."""
    try:
        return _TreeReader(maker, limits).walk(tree, 0)
    except RecursionError as exc:
        raise WireError("too_deep", "structure nested too deeply") from exc


def decode_view(mv: memoryview, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Decode a frame held in ``mv`` (see ``_TensorMaker`` for when it is viewed)."""
    header = parse_header(mv, limits)
    tree, _ = parse_dss(header)
    maker = _TensorMaker(mv, header) if _tree_has_tensor(tree) else None
    return build_value(tree, maker, limits)


def _tree_has_tensor(tree: Any) -> bool:
    """Cheap scan so a tensor-free frame never imports torch."""
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list) and node and isinstance(node[0], str):
            tag = node[0]
            if tag == "t":
                return True
            if tag in ("l", "u") and len(node) == 2 and isinstance(node[1], list):
                stack.extend(node[1])
            elif tag == "d" and len(node) == 2 and isinstance(node[1], list):
                stack.extend(p[1] for p in node[1] if isinstance(p, list) and len(p) == 2)
    return False


def loads(data: Buffer, *, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Decode one DSSST1 frame; never unpickles.

    Tensors view ``data`` when it is a writable buffer (bytearray, writable memoryview);
    ``bytes`` input is copied once in bulk so the returned tensors are safely writable.
    """
    return decode_view(as_memoryview(data), limits)


def read_metadata(data: Buffer, *, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The frame's ``op`` metadata ({} when absent), validating only the header."""
    header = parse_header(as_memoryview(data), limits)
    _, op = parse_dss(header)
    return op
