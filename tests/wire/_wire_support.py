"""Helpers shared by the wire tests: golden-vector access and value descriptions."""

from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from arctic_rl.wire import WireError

GOLDEN = Path(os.environ.get("DSSST1_GOLDEN", Path(__file__).resolve().parent / "golden"))
"""Copies of the frames written by the existing implementation (shared/golden/dssst1)."""


def manifest() -> dict[str, Any]:
    return json.loads((GOLDEN / "manifest.json").read_text())


def golden_bytes(name: str) -> bytes:
    return (GOLDEN / name).read_bytes()


def tensor_bytes(t: torch.Tensor) -> bytes:
    """Raw little-endian bytes of a tensor in C order (works for every dtype)."""
    c = t.detach().contiguous()
    if c.numel() == 0:
        return b""
    c = c.as_strided((c.numel(),), (1,))
    return c.view(torch.uint8).numpy().tobytes()


def describe(value: Any) -> Any:
    """The manifest's description language for a decoded value."""
    if isinstance(value, torch.Tensor):
        return {
            "$tensor": {
                "dtype": str(value.dtype).removeprefix("torch."),
                "shape": list(value.shape),
                "sha256": hashlib.sha256(tensor_bytes(value)).hexdigest(),
            }
        }
    if isinstance(value, dict):
        return {"$dict": [[k, describe(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"$tuple": [describe(v) for v in value]}
    if isinstance(value, list):
        return {"$list": [describe(v) for v in value]}
    return {"$json": value}


def typed(x: Any) -> Any:
    """Make JSON scalars compare with their type (1 != 1.0 != True)."""
    if isinstance(x, dict):
        return {k: typed(v) for k, v in x.items()}
    if isinstance(x, list):
        return [typed(v) for v in x]
    return (type(x).__name__, x)


def reorder_metadata(frame: bytes, order: tuple[str, ...] = ("dss", "op")) -> bytes:
    """Rewrite a frame's header with ``__metadata__`` keys in ``order``.

    The reference writer stores metadata in a hash map, so its key order is random
    per process; everything else in its header is deterministic.
    """
    n = struct.unpack("<Q", frame[:8])[0]
    pairs = json.loads(frame[8 : 8 + n], object_pairs_hook=list)
    meta = dict(next(v for k, v in pairs if k == "__metadata__"))
    rest = [(k, v) for k, v in pairs if k != "__metadata__"]
    meta_sorted = [(k, meta[k]) for k in order if k in meta]

    def enc(obj: Any) -> str:
        if isinstance(obj, list) and obj and isinstance(obj[0], tuple):
            return "{" + ",".join(f"{enc(k)}:{enc(v)}" for k, v in obj) + "}"
        if isinstance(obj, list):
            return "[" + ",".join(enc(v) for v in obj) + "]"
        return json.dumps(obj, ensure_ascii=False)

    text = enc([("__metadata__", meta_sorted), *rest]).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + frame[8 + n :]


def metadata_order(frame: bytes) -> list[str]:
    n = struct.unpack("<Q", frame[:8])[0]
    pairs = json.loads(frame[8 : 8 + n], object_pairs_hook=list)
    return [k for k, _ in next(v for k, v in pairs if k == "__metadata__")]


def code_of(fn: Any, *args: Any, **kwargs: Any) -> str:
    """The WireError code ``fn(*args, **kwargs)`` raises (the test fails when it raises none)."""
    with pytest.raises(WireError) as info:
        fn(*args, **kwargs)
    return info.value.code


def address(buf: object) -> int:
    """Address of a buffer's first byte (numpy reads it from the buffer protocol)."""
    return int(np.frombuffer(buf, dtype=np.uint8).__array_interface__["data"][0])  # type: ignore[call-overload]
