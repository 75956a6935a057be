"""DSSST1: the binary wire format of Cortex GS (safetensors frames plus a nested-value tree).

Importing this package does not import torch; torch (and numpy) load on first use.
Every refusal raises :class:`WireError` with a machine-readable ``code``.
"""

from __future__ import annotations

from ._assembler import AssemblyPool, ChunkAssembler, join_chunks
from ._buffers import AppendBuffer, Recycler, new_map
from ._chunks import (
    ChunkDescriptor,
    ChunkFrame,
    Chunking,
    ChunkParts,
    iter_chunk_parts,
    iter_chunks,
    iter_frame_chunk_parts,
    read_chunk,
    split_chunks,
)
from ._decode import loads, read_metadata
from ._encode import EncodedFrame, dumps, encode_frame
from ._errors import ERROR_CODES, WireError
from ._limits import CHUNK_HEADROOM, CHUNK_KINDS, DEFAULT_LIMITS, MAX_BODY_BYTES, VERSION, Limits

__all__ = [
    "CHUNK_HEADROOM",
    "CHUNK_KINDS",
    "DEFAULT_LIMITS",
    "ERROR_CODES",
    "MAX_BODY_BYTES",
    "VERSION",
    "AppendBuffer",
    "AssemblyPool",
    "ChunkAssembler",
    "ChunkDescriptor",
    "ChunkFrame",
    "ChunkParts",
    "Chunking",
    "EncodedFrame",
    "Limits",
    "Recycler",
    "WireError",
    "dumps",
    "encode_frame",
    "iter_chunk_parts",
    "iter_chunks",
    "iter_frame_chunk_parts",
    "join_chunks",
    "loads",
    "new_map",
    "read_chunk",
    "read_metadata",
    "split_chunks",
]
