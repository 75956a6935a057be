"""Constants and caps shared by the encoder and decoders."""

from __future__ import annotations

from dataclasses import dataclass

VERSION = "DSSST1"
MAX_BODY_BYTES = 60 * 1024 * 1024
"""Default cap on one request body; chunk envelopes are sized to fit it."""
CHUNK_HEADROOM = 8 * 1024
"""Bytes kept free in each chunk for the chunk frame's own header (as the existing codec)."""
CHUNK_KINDS: tuple[str, str] = ("request_chunk", "result_chunk")
EMPTY_TENSOR_NAME = "__dss_empty__"
ROOT_TENSOR_NAME = "__root__"


@dataclass(frozen=True, slots=True)
class Limits:
    """Decoder (and encoder) caps; each refuses hostile input before it costs memory."""

    max_header_bytes: int = 64 * 1024 * 1024
    max_tensors: int = 1_000_000
    max_depth: int = 100
    max_rank: int = 64
    max_frame_bytes: int = 16 * 1024**3
    """Largest frame a ChunkAssembler will accept (it allocates as chunks arrive, not for this)."""
    max_chunks: int = 1_000_000
    """Most chunks one frame may be split into (bounds the assembler's bookkeeping)."""


DEFAULT_LIMITS = Limits()
