"""One DSSST1 frame: encode a nested value, parse and decode it back.

A frame is a plain safetensors image (u64 header length, JSON header, tensor bytes).
The writer reproduces the safetensors serializer byte for byte (compact JSON,
``__metadata__`` first, tensors ordered by dtype rank then name, header padded with
spaces to a multiple of 8), so frames are deterministic and interchangeable with the
existing implementation. torch and numpy are imported lazily, only when a tensor is
actually encoded or decoded.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from . import _fastcopy
from ._dtypes import BY_CODE, BY_NUMPY_STR, BY_TORCH_NAME, DType
from ._errors import WireError
from ._limits import DEFAULT_LIMITS, EMPTY_TENSOR_NAME, ROOT_TENSOR_NAME, VERSION, Limits

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


# --------------------------------------------------------------------------- encoding


class TensorEntry(NamedTuple):
    """One tensor as the writer lays it out: name, dtype, stored shape, raw bytes."""

    name: str
    dtype: DType
    shape: tuple[int, ...]
    data: memoryview
    nbytes: int


@dataclass(slots=True)
class EncodedFrame:
    """A frame described as its header prefix plus tensor byte segments, not yet joined.

    Keeping the segments apart lets the streaming encoder hash and emit the frame
    without ever materialising it whole.
    """

    prefix: bytes
    segments: list[memoryview]
    size: int

    def parts(self) -> list[bytes | memoryview]:
        """The frame's bytes as an ordered list of buffers."""
        return [self.prefix, *self.segments]

    def sha256(self) -> str:
        """Hex SHA-256 of the whole frame, one pass over each segment."""
        h = hashlib.sha256(self.prefix)
        for seg in self.segments:
            h.update(seg)
        return h.hexdigest()

    def join(self) -> bytes:
        """The frame as one bytes object (a single copy of the tensor bytes)."""
        return _fastcopy.gather(self.parts(), self.size)


def _json_str(s: str) -> str:
    """JSON string literal exactly as serde_json writes it (raw UTF-8, minimal escapes)."""
    return json.dumps(s, ensure_ascii=False)


def build_prefix(
    metadata: list[tuple[str, str]],
    tensors: list[tuple[str, str, tuple[int, ...], int, int]],
) -> bytes:
    """u64 length + safetensors JSON header, padded with spaces to a multiple of 8."""
    parts = ['{"__metadata__":{']
    parts.append(",".join(f"{_json_str(k)}:{_json_str(v)}" for k, v in metadata))
    parts.append("}")
    for name, code, shape, begin, end in tensors:
        dims = ",".join(str(d) for d in shape)
        parts.append(
            f',{_json_str(name)}:{{"dtype":"{code}","shape":[{dims}],'
            f'"data_offsets":[{begin},{end}]}}'
        )
    parts.append("}")
    try:
        header = "".join(parts).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise WireError("bad_value", "tensor names must be valid unicode text") from exc
    header += b" " * (-len(header) % 8)
    return struct.pack("<Q", len(header)) + header


def _is_torch_tensor(x: object) -> bool:
    torch_mod = sys.modules.get("torch")
    return torch_mod is not None and isinstance(x, torch_mod.Tensor)


def _is_numpy(x: object, kind: str) -> bool:
    np_mod = sys.modules.get("numpy")
    return np_mod is not None and isinstance(x, getattr(np_mod, kind))


def _torch_entry(x: torch.Tensor) -> tuple[DType, tuple[int, ...], memoryview]:
    """Contiguous CPU bytes of a tensor, as a memoryview (no copy when already contiguous)."""
    import torch

    t = x.detach()
    if t.layout != torch.strided:
        raise WireError("bad_value", f"only dense tensors can be encoded, got layout {t.layout}")
    dtype = BY_TORCH_NAME.get(str(t.dtype).removeprefix("torch."))
    if dtype is None:
        raise WireError("bad_dtype", f"dtype {t.dtype} has no safetensors code")
    if t.device.type != "cpu":
        try:
            t = t.cpu()
        except (RuntimeError, NotImplementedError) as exc:
            raise WireError("bad_value", f"tensor on {t.device} has no data") from exc
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    shape = tuple(int(d) for d in t.shape)
    if t.numel() == 0:
        return dtype, shape, memoryview(b"")
    if not t.is_contiguous():
        t = t.contiguous()
    # Contiguous tensors may still carry odd strides on size-1 dims; flatten explicitly.
    flat = t.as_strided((t.numel(),), (1,))
    raw = flat.view(torch.uint8).numpy()
    return dtype, shape, memoryview(raw)


def _numpy_entry(x: Any) -> tuple[DType, tuple[int, ...], memoryview]:
    """numpy arrays are encoded like tensors, without importing torch."""
    import numpy as np

    arr = np.asarray(x)
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    dtype = BY_NUMPY_STR.get(arr.dtype.str)
    if dtype is None:
        raise WireError("bad_dtype", f"numpy dtype {arr.dtype} has no safetensors code")
    shape = tuple(int(d) for d in arr.shape)
    if arr.size == 0:
        return dtype, shape, memoryview(b"")
    arr = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    return dtype, shape, memoryview(arr)


class _Encoder:
    """Walks a value once, producing the DSSST1 tree and the tensor entries."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.entries: list[TensorEntry] = []
        self.names: set[str] = set()

    def _name(self, path: tuple[str, ...]) -> str:
        base = ".".join(path) if path else ROOT_TENSOR_NAME
        name, n = base, 0
        # A dotted dict key can collide with a nested path; "__metadata__" is reserved
        # by safetensors. Disambiguate deterministically; decode looks names up by KEY.
        while name in self.names or name == "__metadata__":
            n += 1
            name = f"{base}#{n}"
        self.names.add(name)
        return name

    def _tensor(self, x: Any, path: tuple[str, ...], is_torch: bool) -> list[Any]:
        if len(self.entries) >= self.limits.max_tensors:
            raise WireError("too_many_tensors", f"more than {self.limits.max_tensors} tensors")
        dtype, shape, data = _torch_entry(x) if is_torch else _numpy_entry(x)
        if len(shape) > self.limits.max_rank:
            raise WireError("bad_value", f"tensor rank {len(shape)} over {self.limits.max_rank}")
        name = self._name(path)
        scalar = len(shape) == 0
        stored = (1,) if scalar else shape
        self.entries.append(TensorEntry(name, dtype, stored, data, data.nbytes))
        return ["t", name, {"scalar": True}] if scalar else ["t", name]

    def node(self, x: Any, path: tuple[str, ...], depth: int) -> list[Any]:
        """Encode one value; any subtree without tensors or tuples collapses to ``["j", ...]``."""
        if depth > self.limits.max_depth:
            raise WireError("too_deep", f"value nested deeper than {self.limits.max_depth}")
        if x is None or type(x) in (str, int, float, bool):
            return ["j", x]
        if _is_torch_tensor(x):
            return self._tensor(x, path, True)
        if _is_numpy(x, "ndarray"):
            return self._tensor(x, path, False)
        if isinstance(x, Mapping):
            items: list[list[Any]] = []
            for key, val in x.items():
                if not isinstance(key, str):
                    raise WireError("bad_value", f"dict keys must be str, got {type(key).__name__}")
                items.append([str(key), self.node(val, (*path, str(key)), depth + 1)])
            if all(n[0] == "j" for _, n in items):
                return ["j", {k: n[1] for k, n in items}]
            return ["d", items]
        if isinstance(x, tuple):
            return ["u", [self.node(v, (*path, str(i)), depth + 1) for i, v in enumerate(x)]]
        if isinstance(x, list):
            nodes = [self.node(v, (*path, str(i)), depth + 1) for i, v in enumerate(x)]
            if all(n[0] == "j" for n in nodes):
                return ["j", [n[1] for n in nodes]]
            return ["l", nodes]
        if isinstance(x, bool):
            return ["j", bool(x)]
        if isinstance(x, int):
            return ["j", int(x)]
        if isinstance(x, float):
            return ["j", float(x)]
        if isinstance(x, str):
            return ["j", str(x)]
        if _is_numpy(x, "generic"):
            return self.node(x.item(), path, depth)
        raise WireError("bad_value", f"cannot encode a value of type {type(x).__name__}")


def _metadata_items(tree: list[Any], metadata: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """``dss`` then ``op`` (a fixed order; the reference writer's order is random)."""
    try:
        items = [("dss", json.dumps({"v": VERSION, "tree": tree}))]
        if metadata:
            items.append(("op", json.dumps(dict(metadata))))
    except (TypeError, ValueError) as exc:
        raise WireError("bad_value", f"value or metadata is not JSON-encodable: {exc}") from exc
    return items


def encode_frame(
    value: Any, *, metadata: Mapping[str, Any] | None = None, limits: Limits = DEFAULT_LIMITS
) -> EncodedFrame:
    """Describe the frame for ``value`` without copying any tensor bytes."""
    if metadata is not None and not isinstance(metadata, Mapping):
        raise WireError("bad_value", "metadata must be a mapping")
    enc = _Encoder(limits)
    try:
        tree = enc.node(value, (), 0)
    except RecursionError as exc:
        raise WireError("too_deep", "value nested too deeply") from exc
    entries = enc.entries
    if not entries:
        entries = [TensorEntry(EMPTY_TENSOR_NAME, BY_CODE["U8"], (1,), memoryview(b"\0"), 1)]
    entries.sort(key=lambda e: (-e.dtype.rank, e.name.encode("utf-8", "surrogatepass")))
    layout: list[tuple[str, str, tuple[int, ...], int, int]] = []
    offset = 0
    for e in entries:
        layout.append((e.name, e.dtype.code, e.shape, offset, offset + e.nbytes))
        offset += e.nbytes
    prefix = build_prefix(_metadata_items(tree, metadata), layout)
    segments = [e.data for e in entries if e.nbytes]
    return EncodedFrame(prefix, segments, len(prefix) + offset)


def dumps(value: Any, *, metadata: Mapping[str, Any] | None = None) -> bytes:
    """Encode ``value`` as one DSSST1 frame; the same value always gives the same bytes."""
    return encode_frame(value, metadata=metadata).join()


# --------------------------------------------------------------------------- decoding


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


def _as_memoryview(data: Buffer) -> memoryview:
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
    try:
        header = json.loads(bytes(mv[8 : 8 + hlen]).decode("utf-8"))
    except RecursionError as exc:
        raise WireError("too_deep", "header JSON nested too deeply") from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError("bad_header", "header is not valid UTF-8 JSON") from exc
    if not isinstance(header, dict):
        raise WireError("bad_header", "header is not a JSON object")
    meta = header.pop("__metadata__", None)
    if meta is None:
        meta = {}
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise WireError("bad_header", "__metadata__ must map strings to strings")
    if len(header) > limits.max_tensors:
        raise WireError("too_many_tensors", f"{len(header)} tensors, cap {limits.max_tensors}")
    tensors: dict[str, TensorInfo] = {}
    for name, info in header.items():
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
        tensors[name] = TensorInfo(dtype, tuple(shape), offsets[0], offsets[1])
    data_len = n - 8 - hlen
    end = 0
    for info in sorted(tensors.values(), key=lambda t: (t.begin, t.end)):
        if info.begin != end:
            raise WireError("size_mismatch", "tensor data_offsets overlap or leave a gap")
        end = info.end
    if end > data_len:
        raise WireError(
            "truncated", f"header declares {end} bytes of tensor data, frame holds {data_len}"
        )
    if end < data_len:
        raise WireError("size_mismatch", f"{data_len - end} bytes after the last tensor")
    return Header(meta, tensors, 8 + hlen, data_len)


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
            buf = _fastcopy.writable_copy(section) if section.readonly else section
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


def build_value(tree: Any, maker: _TensorMaker | None, limits: Limits) -> Any:
    """Rebuild the nested value from its tree; tensors come from ``maker`` by KEY."""

    def bad(msg: str) -> WireError:
        return WireError("bad_structure", msg)

    def walk(node: Any, depth: int) -> Any:
        if depth > limits.max_depth:
            raise WireError("too_deep", f"structure nested deeper than {limits.max_depth}")
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            raise bad("tree node is not a tagged list")
        tag = node[0]
        if tag == "j":
            if len(node) != 2:
                raise bad("'j' node must hold exactly one value")
            return node[1]
        if tag == "t":
            if len(node) not in (2, 3) or not isinstance(node[1], str):
                raise bad("'t' node must be ['t', KEY] or ['t', KEY, OPTIONS]")
            opts = node[2] if len(node) == 3 else {}
            if not isinstance(opts, dict):
                raise bad("'t' node options must be an object")
            if maker is None:
                raise bad("tree references a tensor the header lacks")
            t = maker.get(node[1])
            if opts.get("scalar") is True:
                if t.numel() != 1:
                    raise bad("scalar tensor must hold exactly one element")
                t = t.reshape(())
            return t
        if len(node) != 2 or not isinstance(node[1], list):
            raise bad(f"{tag[:8]!r} node must be [TAG, [...]]")
        if tag == "d":
            out: dict[str, Any] = {}
            for pair in node[1]:
                if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                    raise bad("'d' items must be [str, NODE] pairs")
                if pair[0] in out:
                    raise bad("duplicate dict key in tree")
                out[pair[0]] = walk(pair[1], depth + 1)
            return out
        if tag == "l":
            return [walk(c, depth + 1) for c in node[1]]
        if tag == "u":
            return tuple(walk(c, depth + 1) for c in node[1])
        raise bad(f"unknown tree tag {tag[:8]!r}")

    try:
        return walk(tree, 0)
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
    return decode_view(_as_memoryview(data), limits)


def read_metadata(data: Buffer, *, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The frame's ``op`` metadata ({} when absent), validating only the header."""
    header = parse_header(_as_memoryview(data), limits)
    _, op = parse_dss(header)
    return op


def iter_frame_slices(frame: EncodedFrame, size: int) -> Iterator[list[bytes | memoryview]]:
    """Cut an encoded frame into consecutive ``size``-byte runs of buffer slices."""
    pending: list[bytes | memoryview] = []
    room = size
    for part in frame.parts():
        view = memoryview(part)
        pos = 0
        while pos < len(view):
            take = min(room, len(view) - pos)
            pending.append(view[pos : pos + take])
            pos += take
            room -= take
            if room == 0:
                yield pending
                pending, room = [], size
    if pending:
        yield pending
