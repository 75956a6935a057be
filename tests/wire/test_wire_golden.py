"""The golden frames written by the existing implementation: decode, re-encode, refuse."""

from __future__ import annotations

import hashlib
import random

import pytest
from _wire_support import (
    describe,
    golden_bytes,
    manifest,
    metadata_order,
    reorder_metadata,
    typed,
)

from arctic_rl import wire
from arctic_rl.wire import ChunkAssembler, WireError

MANIFEST = manifest()["vectors"]
FRAMES = sorted(k for k, v in MANIFEST.items() if "file" in v and not v.get("must_fail"))
CHUNK_SETS = sorted(k for k, v in MANIFEST.items() if "chunks" in v)
BAD = sorted(k for k, v in MANIFEST.items() if v.get("must_fail"))

BAD_CODES = {
    "bad_pickle": "pickle_refused",
    "bad_torch_save": "pickle_refused",
    "bad_truncated": "truncated",
    "bad_short": "truncated",
    "bad_huge_header_len": "too_large",
    "bad_not_json": "bad_header",
    "bad_wrong_version": "bad_version",
    "bad_no_structure": "bad_structure",
}

# Chunk parameters the golden sets were written with (payload = max_bytes - 8 KiB).
CHUNK_PARAMS = {
    "request_chunks": {"kind": "request_chunk", "max_bytes": 16 * 1024},
    "result_chunks": {"kind": "result_chunk", "max_bytes": 16 * 1024},
    "forced_single_chunk": {
        "kind": "request_chunk",
        "max_bytes": wire.MAX_BODY_BYTES,
        "bare_max_bytes": 0,
    },
}


def test_every_vector_is_covered() -> None:
    assert set(BAD) == set(BAD_CODES)
    assert set(CHUNK_SETS) == set(CHUNK_PARAMS)
    assert FRAMES


@pytest.mark.parametrize("name", FRAMES)
def test_golden_decodes_to_manifest(name: str) -> None:
    vec = MANIFEST[name]
    data = golden_bytes(vec["file"])
    assert len(data) == vec["size"]
    assert hashlib.sha256(data).hexdigest() == vec["frame_sha256"]
    value = wire.loads(data)
    assert typed(describe(value)) == typed(vec["decoded"])
    assert wire.read_metadata(data) == vec["metadata"]


@pytest.mark.parametrize("name", FRAMES)
def test_golden_decodes_from_writable_buffer(name: str) -> None:
    data = bytearray(golden_bytes(MANIFEST[name]["file"]))
    assert typed(describe(wire.loads(data))) == typed(MANIFEST[name]["decoded"])


@pytest.mark.parametrize("name", FRAMES)
def test_golden_reencodes_byte_identical(name: str) -> None:
    """Re-encoding reproduces the golden bytes; only the writer's random metadata order differs."""
    vec = MANIFEST[name]
    golden = golden_bytes(vec["file"])
    ours = wire.dumps(wire.loads(golden), metadata=vec["metadata"] or None)
    assert ours == reorder_metadata(golden)
    if metadata_order(golden) == metadata_order(ours):
        assert ours == golden


@pytest.mark.parametrize("name", CHUNK_SETS)
def test_golden_chunks_join(name: str) -> None:
    vec = MANIFEST[name]
    chunks = [golden_bytes(f) for f in vec["chunks"]]
    expected = golden_bytes(vec["reassembles_to"])
    assert wire.join_chunks(chunks) == expected
    assert wire.join_chunks(list(reversed(chunks)), kind=CHUNK_PARAMS[name]["kind"]) == expected
    for chunk, meta in zip(chunks, vec["chunk_metadata"], strict=True):
        ((kind, desc),) = meta.items()
        assert wire.read_chunk(chunk).descriptor == wire.ChunkDescriptor(kind=kind, **desc)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("name", CHUNK_SETS)
def test_golden_chunks_assemble_shuffled(name: str, seed: int) -> None:
    vec = MANIFEST[name]
    chunks = [golden_bytes(f) for f in vec["chunks"]]
    random.Random(seed).shuffle(chunks)
    asm = ChunkAssembler(kind=CHUNK_PARAMS[name]["kind"])
    for i, chunk in enumerate(chunks):
        assert not asm.complete
        asm.add(chunk)
        assert asm.received == i + 1
    assert asm.complete
    target = MANIFEST[vec["reassembles_to"].removesuffix(".bin")]
    assert asm.frame() == golden_bytes(vec["reassembles_to"])
    assert typed(describe(asm.value())) == typed(target["decoded"])


@pytest.mark.parametrize("name", CHUNK_SETS)
def test_golden_chunks_resplit_byte_identical(name: str) -> None:
    vec = MANIFEST[name]
    golden = [golden_bytes(f) for f in vec["chunks"]]
    desc = next(iter(vec["chunk_metadata"][0].values()))
    chunking = wire.Chunking(
        chunk_group_id=desc.get("chunk_group_id"),
        operation=desc.get("operation"),
        **CHUNK_PARAMS[name],
    )
    frame = golden_bytes(vec["reassembles_to"])
    ours = [bytes(c) for c in wire.split_chunks(frame, chunking)]
    assert [reorder_metadata(g) for g in golden] == ours
    for g, o in zip(golden, ours, strict=True):
        if metadata_order(g) == metadata_order(o):
            assert g == o
    # The streaming encoder matches one-shot chunking of our own re-encoding (whose
    # frame_sha256 differs from the golden one only through the metadata order).
    src = MANIFEST[vec["reassembles_to"].removesuffix(".bin")]
    value = wire.loads(frame)
    metadata = src["metadata"] or None
    one_shot = wire.split_chunks(wire.dumps(value, metadata=metadata), chunking)
    streamed = list(wire.iter_chunks(value, chunking, metadata=metadata))
    assert [bytes(c) for c in streamed] == [bytes(c) for c in one_shot]
    assert [c.descriptor for c in streamed] == [c.descriptor for c in one_shot]
    assert wire.join_chunks(streamed) == reorder_metadata(frame)


@pytest.mark.parametrize("name", BAD)
def test_bad_vectors_refused_with_code(name: str) -> None:
    data = golden_bytes(MANIFEST[name]["file"])
    for fn in (wire.loads, wire.read_metadata):
        with pytest.raises(WireError) as info:
            fn(data)
        assert info.value.code == BAD_CODES[name], info.value.message
    with pytest.raises(WireError):
        wire.join_chunks([data])


def test_pickle_refusal_message_is_explicit() -> None:
    with pytest.raises(WireError, match=r"legacy pickle/torch\.save payload"):
        wire.loads(golden_bytes("bad_torch_save.bin"))
