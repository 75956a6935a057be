"""Hostile and malformed chunk envelopes: refused with the right code, memory bounded."""

from __future__ import annotations

import re
import tracemalloc
from typing import Any

import torch
from _wire_support import code_of

from arctic_rl import wire
from arctic_rl.wire import ChunkAssembler, Limits


def _chunks(n_bytes: int = 30_000, **kw: Any) -> tuple[bytes, list[bytes]]:
    value = {"x": torch.arange(n_bytes // 4, dtype=torch.int32)}
    frame = wire.dumps(value)
    kw.setdefault("kind", "request_chunk")
    kw.setdefault("chunk_group_id", "g")
    return frame, [bytes(c) for c in wire.split_chunks(frame, wire.Chunking(max_bytes=9000, **kw))]


def _descriptor(chunk: bytes) -> wire.ChunkDescriptor:
    desc = wire.read_chunk(chunk).descriptor
    assert desc is not None, "not a chunk envelope"
    return desc


def test_chunk_parameter_errors() -> None:
    frame, _ = _chunks()
    assert code_of(wire.Chunking, "request_chunk", 8192) == "bad_value"
    assert code_of(wire.Chunking, "other", 9000) == "bad_value"
    assert code_of(wire.Chunking, "request_chunk", 9000, bare_max_bytes=-1) == "bad_value"
    long_id = wire.Chunking("request_chunk", 9000, chunk_group_id="g" * 9000)
    assert code_of(wire.split_chunks, frame, long_id) == "too_large"
    chunks = wire.split_chunks(frame, wire.Chunking("request_chunk", 9000))
    group = chunks[0].descriptor.chunk_group_id if chunks[0].descriptor else None
    assert group is not None and re.fullmatch(r"[0-9a-f]{32}", group)  # fresh id per operation
    assert all(_descriptor(bytes(c)).chunk_group_id == group for c in chunks)
    (bare,) = wire.split_chunks(frame, wire.Chunking("request_chunk", len(frame)))
    assert (bytes(bare), bare.descriptor, bare.frame_size) == (frame, None, len(frame))
    assert wire.read_chunk(frame).descriptor is None


def test_assembler_refusals_leave_it_usable() -> None:
    frame, chunks = _chunks()
    _, other = _chunks(chunk_group_id="other")
    _, result = _chunks(kind="result_chunk", chunk_group_id=None)
    asm = ChunkAssembler(kind="request_chunk")
    asm.add(chunks[1])
    assert code_of(asm.add, chunks[1]) == "duplicate_chunk"
    assert code_of(asm.add, other[0]) == "chunk_mismatch"
    assert code_of(asm.add, result[0]) == "chunk_mismatch"
    assert code_of(asm.add, frame) == "bad_structure"
    assert code_of(asm.frame) == "missing_chunks"
    assert code_of(asm.value) == "missing_chunks"
    assert asm.missing() == [i for i in range(len(chunks)) if i != 1]
    for i, c in enumerate(chunks):
        if i != 1:
            asm.add(c)
    assert asm.complete and asm.frame() == frame
    assert code_of(wire.join_chunks, chunks[:-1]) == "missing_chunks"
    assert code_of(wire.join_chunks, []) == "missing_chunks"
    assert code_of(wire.join_chunks, [chunks[0], chunks[0]]) == "duplicate_chunk"
    assert code_of(wire.join_chunks, [*chunks[:-1], other[-1]]) == "chunk_mismatch"
    assert code_of(wire.join_chunks, chunks, kind="result_chunk") == "chunk_mismatch"


def _rewrite_chunk(chunk: bytes, payload: bytes | None = None, **desc: Any) -> bytes:
    parsed = _descriptor(chunk)
    kind, d = parsed.kind, parsed.as_dict()
    d.update(desc)
    body = payload if payload is not None else wire.loads(chunk)["payload"].numpy().tobytes()
    return wire.dumps(
        {"payload": torch.frombuffer(bytearray(body), dtype=torch.uint8)}, metadata={kind: d}
    )


def test_assembler_hash_size_and_range_checks() -> None:
    frame, chunks = _chunks()
    tampered = bytearray(wire.loads(chunks[2])["payload"].numpy().tobytes())
    tampered[0] ^= 1
    bad = [*chunks[:2], _rewrite_chunk(chunks[2], bytes(tampered)), *chunks[3:]]
    asm = ChunkAssembler()
    for c in bad[:-1]:
        asm.add(c)
    assert code_of(asm.add, bad[-1]) == "hash_mismatch"
    assert code_of(asm.frame) == "hash_mismatch"
    assert code_of(asm.add, chunks[0]) == "hash_mismatch"
    assert code_of(wire.join_chunks, reversed(bad)) == "hash_mismatch"

    short = _rewrite_chunk(chunks[1], b"\0" * 10)
    asm = ChunkAssembler()
    asm.add(chunks[0])
    assert code_of(asm.add, short) == "size_mismatch"
    assert code_of(ChunkAssembler().add, _rewrite_chunk(chunks[-1], b"\0" * 9000)) == (
        "size_mismatch"
    )
    assert code_of(ChunkAssembler().add, _rewrite_chunk(chunks[0], chunk_idx=99)) == (
        "bad_structure"
    )
    assert code_of(ChunkAssembler().add, _rewrite_chunk(chunks[0], frame_sha256="X")) == (
        "bad_structure"
    )
    assert code_of(ChunkAssembler().add, _rewrite_chunk(chunks[0], total_chunks=True)) == (
        "bad_structure"
    )
    # the last chunk alone is enough to size the buffer
    asm = ChunkAssembler()
    for c in reversed(chunks):
        asm.add(c)
    assert asm.frame() == frame


def test_assembler_caps_declared_size_before_allocating() -> None:
    _, chunks = _chunks()
    huge = _rewrite_chunk(chunks[0], frame_size_bytes=2**62, total_chunks=2**62 // 808)
    tracemalloc.start()
    try:
        assert code_of(ChunkAssembler().add, huge) == "too_large"
        lying = _rewrite_chunk(chunks[0], frame_size_bytes=2**33, total_chunks=3)
        assert code_of(ChunkAssembler().add, lying) == "size_mismatch"
        many = _rewrite_chunk(chunks[0], payload=b"x", frame_size_bytes=2**33, total_chunks=2**33)
        assert code_of(ChunkAssembler().add, many) == "too_large"
        small = Limits(max_frame_bytes=1000)
        assert code_of(ChunkAssembler(limits=small).add, chunks[0]) == "too_large"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
