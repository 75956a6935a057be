"""Encode one DSSST1 frame: a nested value to a safetensors image, never joined early.

A frame is a plain safetensors image (u64 header length, JSON header, tensor bytes).
The writer reproduces the safetensors serializer byte for byte (compact JSON,
``__metadata__`` first, tensors ordered by dtype rank then name, header padded with
spaces to a multiple of 8), so frames are deterministic and interchangeable with the
existing implementation. torch and numpy are imported lazily, only when a tensor is
actually encoded.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from ._dtypes import BY_CODE, BY_NUMPY_STR, BY_TORCH_NAME, DType
from ._errors import WireError
from ._limits import DEFAULT_LIMITS, EMPTY_TENSOR_NAME, ROOT_TENSOR_NAME, VERSION, Limits

if TYPE_CHECKING:
    import torch


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
    _sha256: str | None = field(default=None, repr=False, compare=False)

    def parts(self) -> list[bytes | memoryview]:
        """The frame's bytes as an ordered list of buffers."""
        return [self.prefix, *self.segments]

    def sha256(self) -> str:
        """Hex SHA-256 of the whole frame, one pass over each segment (once: kept, as the
        frame is its chunks' descriptor and the identity of the call that sends it)."""
        if self._sha256 is None:
            h = hashlib.sha256(self.prefix)
            for seg in self.segments:
                h.update(seg)
            self._sha256 = h.hexdigest()
        return self._sha256

    def join(self) -> bytes:
        """The frame as one bytes object (a single copy of the tensor bytes)."""
        return b"".join(self.parts())


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


_JSON_SCALARS = (bool, int, float, str)
"""Checked in this order: a bool is also an int."""


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
            return self._mapping(x, path, depth)
        if isinstance(x, tuple | list):
            return self._sequence(x, path, depth)
        for scalar in _JSON_SCALARS:  # subclasses (enums, ...) travel as the base type
            if isinstance(x, scalar):
                return ["j", scalar(x)]
        if _is_numpy(x, "generic"):
            return self.node(x.item(), path, depth)
        raise WireError("bad_value", f"cannot encode a value of type {type(x).__name__}")

    def _mapping(self, x: Mapping[Any, Any], path: tuple[str, ...], depth: int) -> list[Any]:
        items: list[list[Any]] = []
        for key, val in x.items():
            if not isinstance(key, str):
                raise WireError("bad_value", f"dict keys must be str, got {type(key).__name__}")
            items.append([str(key), self.node(val, (*path, str(key)), depth + 1)])
        if all(n[0] == "j" for _, n in items):
            return ["j", {k: n[1] for k, n in items}]
        return ["d", items]

    def _sequence(
        self, x: tuple[Any, ...] | list[Any], path: tuple[str, ...], depth: int
    ) -> list[Any]:
        if type(x) is list and depth < self.limits.max_depth and _PLAIN.issuperset(map(type, x)):
            return ["j", x]  # numbers, strings: one pass at C speed, not a node per item
        nodes = [self.node(v, (*path, str(i)), depth + 1) for i, v in enumerate(x)]
        if isinstance(x, tuple):
            return ["u", nodes]  # always tagged, so decode gives a tuple back
        if all(n[0] == "j" for n in nodes):
            return ["j", [n[1] for n in nodes]]
        return ["l", nodes]


# The types of items a list may hold and still be a JSON value as it is (what ``node``
# takes as ``["j", x]``).
_PLAIN = frozenset((str, int, float, bool, type(None)))


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


def iter_frame_slices(frame: EncodedFrame, size: int) -> Iterator[list[bytes | memoryview]]:
    """Cut an encoded frame into consecutive ``size``-byte runs of buffer slices."""
    return slice_runs(frame.parts(), size)


def slice_runs(
    parts: Iterable[bytes | memoryview], size: int
) -> Iterator[list[bytes | memoryview]]:
    """Consecutive ``size``-byte runs (the last may be shorter) of views of ``parts``."""
    pending: list[bytes | memoryview] = []
    room = size
    for part in parts:
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
