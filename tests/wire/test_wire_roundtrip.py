"""Property tests: random nested values round-trip exactly, one-shot and streamed."""

from __future__ import annotations

import json

import pytest
import safetensors.torch
import torch
from _wire_support import address, tensor_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import TORCH_DTYPES, same, tensors, values

from arctic_rl import wire
from arctic_rl.wire import _assembler
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
