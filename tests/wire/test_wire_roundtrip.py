"""Property tests: random nested values round-trip exactly, one-shot and streamed."""

from __future__ import annotations

import json
import mmap
import random

import numpy as np
import pytest
import safetensors.torch
import torch
from _wire_support import tensor_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import TORCH_DTYPES, same, tensors, values

from arctic_rl import wire
from arctic_rl.wire import _assembler, _buffers
from arctic_rl.wire._decode import Buffer

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(values())
def test_roundtrip_bytes_and_bytearray(value) -> None:
    frame = wire.dumps(value)
    assert wire.dumps(value) == frame  # deterministic
    assert same(wire.loads(frame), value)
    assert same(wire.loads(bytearray(frame)), value)
    assert wire.read_metadata(frame) == {}


@SETTINGS
@given(values(), st.dictionaries(st.text(max_size=5), st.integers() | st.text(), max_size=3))
def test_metadata_roundtrip(value, metadata) -> None:
    frame = wire.dumps(value, metadata=metadata)
    assert wire.read_metadata(frame) == metadata
    assert same(wire.loads(frame), value)


@SETTINGS
@given(st.dictionaries(st.text(max_size=6), tensors(), min_size=1, max_size=6))
def test_frames_are_plain_safetensors(tensor_dict) -> None:
    """The safetensors library reads our frames and writes the same bytes for the same input."""
    frame = wire.dumps(tensor_dict)
    meta = wire._decode.parse_header(memoryview(frame)).metadata
    names = {key: node[1] for key, node in json.loads(meta["dss"])["tree"][1]}
    loaded = safetensors.torch.load(frame)
    assert set(loaded) == set(names.values())
    for key, t in tensor_dict.items():
        assert same(loaded[names[key]].reshape(t.shape), t)
    flat = {
        names[k]: (t.reshape(1) if t.dim() == 0 else t).contiguous() for k, t in tensor_dict.items()
    }
    assert safetensors.torch.save(flat, metadata=meta) == frame


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_every_dtype_scalar_empty_and_views(dtype: torch.dtype) -> None:
    base = torch.arange(24).reshape(4, 6)
    t = (base % 2 if dtype == torch.bool else base).to(dtype)
    shared = t[1:3]
    value = {
        "scalar": t[0, 0].clone(),
        "empty": t[:0],
        "empty2": torch.empty(3, 0, dtype=dtype),
        "transposed": t.t(),
        "strided": t[:, ::2],
        "shared_a": shared,
        "shared_b": shared,
        "whole": t,
    }
    frame = wire.dumps(value)
    out = wire.loads(frame)
    assert same(out, value)
    assert out["scalar"].shape == ()
    assert out["shared_a"].data_ptr() != out["shared_b"].data_ptr()  # separate copies
    assert out["transposed"].is_contiguous()  # written contiguous


def test_numpy_arrays_encode_as_tensors() -> None:
    np = pytest.importorskip("numpy")
    arrays = {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "be": np.arange(4, dtype=">i4"),
        "b": np.array([True, False]),
        "u16": np.arange(3, dtype=np.uint16),
        "c": np.array(1.5, dtype=np.float64),
        "t": np.arange(6, dtype=np.int64).reshape(2, 3).T,
    }
    out = wire.loads(wire.dumps(arrays))
    for k, a in arrays.items():
        expected = torch.from_numpy(a.astype(a.dtype.newbyteorder("<"), order="C"))
        assert same(out[k], expected), k
    assert wire.dumps({"x": np.float32(1.5)}) == wire.dumps({"x": 1.5})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values(max_leaves=8),
    st.integers(wire.CHUNK_HEADROOM + 1, wire.CHUNK_HEADROOM + 700),
    st.booleans(),
    st.sampled_from(wire.CHUNK_KINDS),
    st.randoms(use_true_random=False),
)
def test_streaming_matches_one_shot(value, max_bytes, force, kind, rnd) -> None:
    chunking = wire.Chunking(kind, max_bytes, "g1", bare_max_bytes=0 if force else None)
    frame = wire.dumps(value, metadata={"k": 1})
    one_shot = wire.split_chunks(frame, chunking)
    streamed = list(wire.iter_chunks(value, chunking, metadata={"k": 1}))
    assert [bytes(c) for c in streamed] == [bytes(c) for c in one_shot]
    assert all(len(c.data) <= max_bytes for c in streamed)
    assert wire.join_chunks(streamed) == frame
    for index, chunk in enumerate(streamed):
        # each chunk carries exactly the descriptor a receiver parses from its bytes
        assert wire.read_chunk(bytes(chunk)).descriptor == chunk.descriptor
        assert (chunk.index, chunk.total, chunk.frame_size) == (index, len(streamed), len(frame))
    if len(streamed) > 1 or force:
        shuffled = [bytes(c) for c in streamed]
        rnd.shuffle(shuffled)
        asm = wire.ChunkAssembler(kind=kind)
        for c in shuffled:
            asm.add(c)
        assert asm.complete and asm.frame() == frame
        assert same(asm.value(), value)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values(max_leaves=8),
    st.integers(wire.CHUNK_HEADROOM + 1, wire.CHUNK_HEADROOM + 700),
    st.booleans(),
)
def test_chunk_parts_are_the_chunks_uncopied(value, max_bytes, force) -> None:
    chunking = wire.Chunking("request_chunk", max_bytes, "g1", bare_max_bytes=0 if force else None)
    frame = wire.dumps(value)
    one_shot = wire.split_chunks(frame, chunking)
    parts = list(wire.iter_chunk_parts(value, chunking))
    assert [b"".join(p.parts) for p in parts] == [bytes(c) for c in one_shot]
    assert [p.size for p in parts] == [len(c.data) for c in one_shot]
    assert [(p.descriptor, p.index, p.total, p.frame_size) for p in parts] == [
        (c.descriptor, c.index, c.total, c.frame_size) for c in one_shot
    ]


def address(buf: object) -> int:
    """Address of a buffer's first byte (numpy reads it from the buffer protocol)."""
    return int(np.frombuffer(buf, dtype=np.uint8).__array_interface__["data"][0])  # type: ignore[call-overload]


FAST_PATHS = {
    "fast": {},
    "no populate": {"_POPULATE_WRITE": None},
    "no resize in place": {"_RESIZE_IN_PLACE": False},
    "no private flags": {"_MAP_FLAGS": {}},
    "no refill": {"_CAN_REFILL": False},
}
"""Each fast path of ``_buffers`` turned off in turn: what another platform would run."""


@pytest.mark.parametrize("off", list(FAST_PATHS.values()), ids=list(FAST_PATHS))
def test_fast_paths_on_small_data(monkeypatch: pytest.MonkeyPatch, off: dict[str, object]) -> None:
    """Exercise the mapped/numpy/threaded paths, and each fallback, on small data."""
    monkeypatch.setattr(_buffers, "FAST_MIN", 1)
    monkeypatch.setattr(_buffers, "_spares", _buffers._Spares())
    for name, value in off.items():
        monkeypatch.setattr(_buffers, name, value)
    monkeypatch.setattr(_assembler, "_THREAD_MIN", 1)
    monkeypatch.setattr(_assembler, "_HASH_PIECE", 100)  # several pieces per chunk
    gen = torch.Generator().manual_seed(1)
    value = {f"w{i}": torch.randn(1000 + i, generator=gen).to(torch.bfloat16) for i in range(8)}
    frame = wire.dumps(value, metadata={"m": True})
    assert same(wire.loads(frame), value)
    chunking = wire.Chunking("result_chunk", 9000)
    chunks = [bytes(c) for c in wire.iter_chunks(value, chunking, metadata={"m": True})]
    assert chunks == [bytes(c) for c in wire.split_chunks(frame, chunking)]
    order = list(range(len(chunks)))
    random.Random(3).shuffle(order)
    asm = wire.ChunkAssembler()
    for i in order:
        # mix read-only (threaded) and writable (synchronous) chunk buffers
        asm.add(chunks[i] if i % 2 else bytearray(chunks[i]))
    assert asm.frame() == frame
    out = asm.value()
    assert same(out, value)
    assert wire.join_chunks(reversed(chunks)) == frame
    # grown in order, chunk after chunk (the mapping doubles, in place or moved)
    grown = wire.ChunkAssembler()
    for chunk in chunks:
        grown.add(chunk)
    assert grown.frame() == frame and same(grown.value(), value)


def test_a_large_copy_runs_in_numpy_and_a_small_one_in_a_slice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    src = bytes(range(256)) * 64
    for fast_min in (1, len(src) + 1):  # numpy's copy, then the slice assignment
        monkeypatch.setattr(_buffers, "FAST_MIN", fast_min)
        dst = bytearray(len(src) + 10)
        assert _buffers.copy_into(memoryview(dst), 10, memoryview(src)) == len(src)
        assert dst[10:] == src and dst[:10] == bytes(10)


def test_an_old_kernel_refusing_populate_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel before MADV_POPULATE_WRITE answers EINVAL: pages then fault in as written."""
    monkeypatch.setattr(_buffers, "FAST_MIN", 1)
    monkeypatch.setattr(_buffers, "_POPULATE_WRITE", -1)  # no kernel knows this advice
    buf = _buffers.new_map(4 * mmap.PAGESIZE)
    _buffers.populate(buf, 0, len(buf))
    assert _buffers._POPULATE_WRITE is None
    buf[:3] = b"abc"
    assert buf[:4] == b"abc\0"


def test_hashing_on_the_helper_still_catches_a_changed_byte(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_buffers, "FAST_MIN", 1)
    monkeypatch.setattr(_assembler, "_THREAD_MIN", 1)
    monkeypatch.setattr(_assembler, "_HASH_PIECE", 100)
    value = {"w": torch.arange(20_000, dtype=torch.float32)}
    chunks = [
        bytes(c) for c in wire.split_chunks(wire.dumps(value), wire.Chunking("result_chunk", 9000))
    ]
    tampered = bytearray(chunks[len(chunks) // 2])
    tampered[-1] ^= 1  # the payload runs to the end of the body
    chunks[len(chunks) // 2] = bytes(tampered)
    asm = wire.ChunkAssembler()
    for chunk in chunks[:-1]:
        asm.add(chunk)
    with pytest.raises(wire.WireError) as failed:
        asm.add(chunks[-1])
    assert failed.value.code == "hash_mismatch"
    with pytest.raises(wire.WireError, match="already failed"):
        asm.add(chunks[0])


@pytest.mark.parametrize("refill", [True, False], ids=["refilled", "no refill"])
def test_streamed_chunks_are_refilled_only_once_the_receiver_lets_go(
    monkeypatch: pytest.MonkeyPatch, refill: bool
) -> None:
    monkeypatch.setattr(_buffers, "FAST_MIN", 1)
    monkeypatch.setattr(_buffers, "_CAN_REFILL", refill)
    mapped = 0
    new_map = _buffers.new_map

    def counting(size: int) -> mmap.mmap:
        nonlocal mapped
        mapped += 1
        return new_map(size)

    monkeypatch.setattr(_buffers, "new_map", counting)
    value = {"w": torch.arange(20_000, dtype=torch.float32)}
    chunking = wire.Chunking("request_chunk", 9000, "g")
    expected = [bytes(c) for c in wire.split_chunks(wire.dumps(value), chunking)]
    assert len(expected) > 4
    mapped = 0
    copies = []
    for chunk in wire.iter_chunks(value, chunking):
        copies.append(bytes(memoryview(chunk.data)))
        del chunk  # the receiver lets go
    assert copies == expected
    assert mapped == (2 if refill else len(expected))  # the rest were refilled
    mapped = 0
    held = list(wire.iter_chunks(value, chunking))  # the receiver keeps every chunk
    assert [bytes(c) for c in held] == expected
    assert mapped == len(expected)


def test_decoded_tensors_view_writable_buffers() -> None:
    value = {"a": torch.arange(16, dtype=torch.int64), "b": torch.ones(3, dtype=torch.float32)}
    buf = bytearray(wire.dumps(value))
    out = wire.loads(buf)
    lo, hi = address(buf), address(buf) + len(buf)
    assert lo <= out["a"].data_ptr() < hi
    out["a"][0] = 99  # writes through to the caller's buffer
    assert wire.loads(bytes(buf))["a"][0] == 99
    frozen = wire.dumps(value)
    copy = wire.loads(frozen)
    copy["a"][0] = 7  # read-only input was copied: the bytes object stays intact
    assert wire.loads(frozen)["a"][0] == 0


def test_assembler_value_views_its_buffer() -> None:
    value = {"x": torch.arange(5000, dtype=torch.float32)}
    chunks = wire.split_chunks(wire.dumps(value), wire.Chunking("request_chunk", 9000))
    asm = wire.ChunkAssembler(kind="request_chunk")
    for c in chunks:
        asm.add(c)
    out = asm.value()
    buf = asm.buffer
    lo = address(buf)
    assert lo <= out["x"].data_ptr() < lo + len(buf)
    assert tensor_bytes(out["x"]) == tensor_bytes(value["x"])


def test_name_collisions_are_disambiguated() -> None:
    value = {"a.b": torch.ones(1), "a": {"b": torch.zeros(1)}, "__metadata__": torch.ones(2)}
    out = wire.loads(wire.dumps(value))
    assert same(out, value)


def test_json_only_value_and_tuple_tags() -> None:
    value = {"t": (1, [2, (3,)]), "l": [1, 2], "d": {}, "e": []}
    assert same(wire.loads(wire.dumps(value)), value)
    assert same(wire.loads(wire.dumps(())), ())
    assert same(wire.loads(wire.dumps(None)), None)


@pytest.mark.parametrize(
    ("n_floats", "max_bytes"),
    [
        (5 * 2**18, wire.CHUNK_HEADROOM + 2**16),  # 5 MiB frame, 64 KiB chunks (buffer path)
        (33 * 2**18, wire.CHUNK_HEADROOM + 8 * 2**20),  # threaded, small last chunk
    ],
)
def test_large_frames_real_thresholds(n_floats: int, max_bytes: int) -> None:
    value = {"w": torch.arange(n_floats, dtype=torch.float32), "tag": "x"}
    frame = wire.dumps(value)
    chunking = wire.Chunking("result_chunk", max_bytes)
    chunks = [bytes(c) for c in wire.split_chunks(frame, chunking)]
    assert [bytes(c) for c in wire.iter_chunks(value, chunking)] == chunks
    assert wire.join_chunks(chunks) == frame
    assert wire.join_chunks([bytearray(c) for c in reversed(chunks)]) == frame
    asm = wire.ChunkAssembler(kind="result_chunk")
    for c in reversed(chunks):
        asm.add(c)
    assert asm.frame() == frame
    assert same(asm.value(), value)
    assert same(wire.loads(frame), value)


@settings(max_examples=60, deadline=None)
@given(tensors(max_rank=2, max_dim=5))
def test_shared_storage_written_as_copies(t: torch.Tensor) -> None:
    view = t.reshape(-1)[: max(t.numel() - 1, 0)]
    value = {"a": t, "b": t, "c": (t, [view, view])}
    out = wire.loads(wire.dumps(value))
    assert same(out, value)
    if t.numel():
        raw = out["a"].reshape(-1).view(torch.uint8)
        raw[0] = raw[0] ^ 1  # (leaves a bool a bool: 0 <-> 1)
        assert same(out["b"], t)  # decoded copies are independent


def test_parsed_chunks_are_assembled_without_a_second_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """read_chunk's answer goes straight into the assembler: the header is read once."""
    value = {"x": torch.arange(5000, dtype=torch.float32)}
    frame = wire.dumps(value)
    sent = [bytes(c) for c in wire.split_chunks(frame, wire.Chunking("request_chunk", 9000))]
    received = [wire.read_chunk(c) for c in sent]
    parses: list[object] = []
    real_parse = _assembler.read_chunk

    def counted_parse(data: Buffer, **kwargs: object) -> wire.ChunkFrame:
        parses.append(data)
        return real_parse(data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_assembler, "read_chunk", counted_parse)
    asm = wire.ChunkAssembler(kind="request_chunk")
    for chunk in reversed(received):
        asm.add(chunk)
    assert parses == []
    assert asm.frame() == frame
    assert wire.join_chunks(received) == frame
    assert parses == []
    bare = wire.read_chunk(frame)
    with pytest.raises(wire.WireError) as info:
        wire.ChunkAssembler().add(bare)
    assert info.value.code == "bad_structure"


def test_bare_limit_is_separate_from_the_chunk_size() -> None:
    """A result that fits ``bare_max_bytes`` travels whole (inline), else in envelopes."""
    value = {"x": torch.arange(3000, dtype=torch.int32)}
    frame = wire.dumps(value)
    small = wire.Chunking.for_payload(1024, kind="result_chunk", bare_max_bytes=len(frame))
    (whole,) = wire.iter_chunks(value, small)
    assert (bytes(whole), whole.descriptor) == (frame, None)
    tighter = wire.Chunking.for_payload(1024, kind="result_chunk", bare_max_bytes=len(frame) - 1)
    chunks = list(wire.iter_chunks(value, tighter))
    assert [c.total for c in chunks] == [12] * 12
    assert all(len(c.payload) == 1024 for c in chunks[:-1])
    assert wire.join_chunks(chunks) == frame


@pytest.mark.parametrize(
    "value",
    [
        {"logprobs": [[-0.5, -1.25, 0.0], [float("nan"), 2, True]]},
        {"mixed": [["a", None, 1.5], [torch.ones(2)], [(1, 2)]]},  # tensors, tuples: nodes
        [[[]], [1, [2, [3.0]]]],
    ],
)
def test_lists_of_plain_items_encode_as_the_item_by_item_walk_does(value, monkeypatch) -> None:
    from arctic_rl.wire import _encode

    fast = wire.dumps(value)
    monkeypatch.setattr(_encode, "_PLAIN", frozenset())  # every item walked, one node each
    assert fast == wire.dumps(value)


def test_a_plain_list_past_the_depth_limit_is_refused_as_before() -> None:
    limits = wire.Limits(max_depth=3)
    deep: list = [1.0]
    for _ in range(3):
        deep = [deep]
    with pytest.raises(wire.WireError, match="deeper than 3"):
        wire.encode_frame(deep, limits=limits)
    wire.encode_frame(deep[0], limits=limits)  # one level less: within the limit
