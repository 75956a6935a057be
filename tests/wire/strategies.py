"""Hypothesis strategies for nested values holding tensors of every supported dtype."""

from __future__ import annotations

import math
from typing import Any

import torch
from _wire_support import tensor_bytes
from hypothesis import strategies as st

from arctic_rl.wire._dtypes import BY_CODE

TORCH_DTYPES: list[torch.dtype] = [
    getattr(torch, d.torch_name) for d in BY_CODE.values() if hasattr(torch, d.torch_name)
]


@st.composite
def tensors(draw: st.DrawFn, max_rank: int = 3, max_dim: int = 4) -> torch.Tensor:
    """A tensor of any dtype: 0-d, empty, contiguous, permuted, strided or offset views."""
    dtype = draw(st.sampled_from(TORCH_DTYPES))
    shape = draw(st.lists(st.integers(0, max_dim), min_size=0, max_size=max_rank))
    itemsize = torch.empty((), dtype=dtype).element_size()
    layout = draw(st.sampled_from(["contiguous", "permuted", "strided", "offset"]))
    base_shape = list(shape)
    if layout == "strided" and base_shape:
        base_shape[-1] *= 2
    if layout == "permuted":
        base_shape = base_shape[::-1]
    numel = math.prod(base_shape) + (1 if layout == "offset" else 0)
    raw = draw(st.binary(min_size=numel * itemsize, max_size=numel * itemsize))
    if dtype == torch.bool:
        raw = bytes(b % 2 for b in raw)
    if numel == 0:
        flat = torch.empty(0, dtype=dtype)
    else:
        flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype)
    if layout == "offset":
        return flat[1:].reshape(shape)
    t = flat.reshape(base_shape)
    if layout == "strided" and base_shape:
        return t[..., ::2]
    if layout == "permuted":
        return t.permute(tuple(reversed(range(t.dim()))))
    return t


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
keys = st.text(alphabet=st.characters(codec="utf-8"), max_size=6) | st.sampled_from(
    ["a", "a.b", "0", "__root__", "__metadata__", "__dss_empty__", "payload", ""]
)


def values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Nested dict/list/tuple trees whose leaves are tensors and JSON scalars."""
    return st.recursive(
        st.one_of(tensors(), json_scalars),
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.lists(children, max_size=4).map(tuple),
            st.dictionaries(keys, children, max_size=4),
        ),
        max_leaves=max_leaves,
    )


def same(a: Any, b: Any) -> bool:
    """Structural equality that checks container types, dtypes and raw tensor bits."""
    if isinstance(a, torch.Tensor):
        return (
            isinstance(b, torch.Tensor)
            and a.dtype == b.dtype
            and tuple(a.shape) == tuple(b.shape)
            and tensor_bytes(a) == tensor_bytes(b)
        )
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b
