"""DSSST1 bodies for hostile tests: the golden bad vectors and envelopes that lie.

Shared by the fuzz hooks and the bad-input tests, so both send the same bytes.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

from arctic_rl import wire


def golden_dir() -> Path:
    """The golden DSSST1 vectors: ``../shared`` next to the repo (CI and here), else the
    copy the codec tests keep in the repo."""
    root = Path(__file__).resolve().parents[2]
    shared = root.parent / "shared" / "golden" / "dssst1"
    return shared if shared.is_dir() else root / "tests" / "wire" / "golden"


def golden_bad_frames() -> dict[str, bytes]:
    """Every golden ``bad_*`` vector by name."""
    return {p.stem: p.read_bytes() for p in sorted(golden_dir().glob("bad_*.bin"))}


def lying_chunk(frame: bytes, **override: Any) -> bytes:
    """A single-chunk envelope of ``frame`` whose descriptor lies as ``override`` says."""
    chunk = wire.split_chunks(
        frame, kind="request_chunk", max_bytes=len(frame) + wire.CHUNK_HEADROOM, force=True
    )[0]
    (n,) = struct.unpack("<Q", chunk[:8])
    header = json.loads(chunk[8 : 8 + n])
    op = json.loads(header["__metadata__"]["op"])
    op["request_chunk"].update(override)
    header["__metadata__"]["op"] = json.dumps(op)
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + chunk[8 + n :]


def chunk_of(value: Any, *, group_id: str, max_bytes: int = 1 << 20) -> list[bytes]:
    """``value`` as request-chunk frames of one group (always an envelope)."""
    return wire.split_chunks(
        wire.dumps(value),
        kind="request_chunk",
        max_bytes=max_bytes,
        chunk_group_id=group_id,
        force=True,
    )
