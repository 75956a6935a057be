"""safetensors dtype codes, their torch/numpy names and the writer's sort rank.

The rank reproduces the order in which the safetensors serializer lays tensors out
(larger dtype rank first, then by name), which keeps every tensor naturally aligned
and makes our frames byte-identical to the existing implementation's.
"""

from __future__ import annotations

from typing import NamedTuple


class DType(NamedTuple):
    """One safetensors dtype."""

    code: str
    torch_name: str
    itemsize: int
    rank: int
    numpy_str: str | None


_TABLE: tuple[DType, ...] = (
    DType("U64", "uint64", 8, 18, "<u8"),
    DType("I64", "int64", 8, 17, "<i8"),
    DType("F64", "float64", 8, 16, "<f8"),
    DType("C64", "complex64", 8, 15, "<c8"),
    DType("F32", "float32", 4, 14, "<f4"),
    DType("U32", "uint32", 4, 13, "<u4"),
    DType("I32", "int32", 4, 12, "<i4"),
    DType("BF16", "bfloat16", 2, 11, None),
    DType("F16", "float16", 2, 10, "<f2"),
    DType("U16", "uint16", 2, 9, "<u2"),
    DType("I16", "int16", 2, 8, "<i2"),
    DType("F8_E5M2FNUZ", "float8_e5m2fnuz", 1, 7, None),
    DType("F8_E4M3FNUZ", "float8_e4m3fnuz", 1, 6, None),
    DType("F8_E4M3", "float8_e4m3fn", 1, 5, None),
    DType("F8_E5M2", "float8_e5m2", 1, 4, None),
    DType("I8", "int8", 1, 3, "|i1"),
    DType("U8", "uint8", 1, 2, "|u1"),
    DType("BOOL", "bool", 1, 1, "|b1"),
)

BY_CODE: dict[str, DType] = {d.code: d for d in _TABLE}
BY_TORCH_NAME: dict[str, DType] = {d.torch_name: d for d in _TABLE}
BY_NUMPY_STR: dict[str, DType] = {d.numpy_str: d for d in _TABLE if d.numpy_str}
