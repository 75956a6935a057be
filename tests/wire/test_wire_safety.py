"""Hostile and malformed input: refused with the right code, never unpickled, bounded memory."""

from __future__ import annotations

import contextlib
import io
import json
import pickle
import random
import re
import struct
import subprocess
import sys
import tracemalloc
from typing import Any

import pytest
import torch
from _wire_support import code_of, golden_bytes
from hypothesis import given, settings
from hypothesis import strategies as st

from arctic_rl import wire
from arctic_rl.wire import ChunkAssembler, Limits, WireError


def frame_of(header: dict[str, Any], data: bytes = b"", dss: Any = None) -> bytes:
    """A hand-built frame (no padding rules enforced, like a foreign writer)."""
    meta = {"dss": json.dumps(dss if dss is not None else {"v": "DSSST1", "tree": ["j", 0]})}
    text = json.dumps({"__metadata__": meta, **header}).encode()
    return struct.pack("<Q", len(text)) + text + data


def test_import_does_not_load_torch() -> None:
    script = """
import sys
import arctic_rl.wire as wire
assert "torch" not in sys.modules, "import"
frame = wire.dumps({"prompts": ["hi", [1, 2]], "n": (1, 2.5)})
assert wire.loads(frame) == {"prompts": ["hi", [1, 2]], "n": (1, 2.5)}
assert wire.read_metadata(wire.dumps(1, metadata={"a": 1})) == {"a": 1}
chunks = wire.split_chunks(frame, wire.Chunking("request_chunk", 9000, bare_max_bytes=0))
assert wire.join_chunks(chunks) == frame
assert "torch" not in sys.modules, "json-only use"
import torch
wire.loads(wire.dumps(torch.ones(2)))
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickles_refused(protocol: int) -> None:
    data = pickle.dumps({"a": [1, 2, 3] * 100}, protocol=protocol)
    with pytest.raises(WireError) as info:
        wire.loads(data)
    err = info.value
    assert err.code == "pickle_refused"
    assert "legacy pickle/torch.save payload" in err.message


def test_torch_save_refused() -> None:
    buf = io.BytesIO()
    torch.save({"w": torch.ones(3)}, buf)
    assert code_of(wire.loads, buf.getvalue()) == "pickle_refused"
    assert code_of(wire.join_chunks, [buf.getvalue()]) == "pickle_refused"


def test_header_tensor_and_depth_caps() -> None:
    frame = wire.dumps({f"t{i}": torch.ones(1) for i in range(5)})
    assert code_of(wire.loads, frame, limits=Limits(max_header_bytes=64)) == "too_large"
    assert code_of(wire.loads, frame, limits=Limits(max_tensors=4)) == "too_many_tensors"
    deep: Any = torch.ones(1)
    for _ in range(150):
        deep = [deep]
    assert code_of(wire.dumps, deep) == "too_deep"
    tree: Any = ["t", "x"]
    for _ in range(150):
        tree = ["l", [tree]]
    crafted = frame_of(
        {"x": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}},
        b"\x01",
        {"v": "DSSST1", "tree": tree},
    )
    assert code_of(wire.loads, crafted) == "too_deep"
    bomb = b"[" * 100_000 + b"]" * 100_000
    text = b'{"__metadata__":{"dss":"{\\"v\\":\\"DSSST1\\",\\"tree\\":[\\"j\\",' + bomb + b']}"}}'
    assert code_of(wire.loads, struct.pack("<Q", len(text)) + text) in {"too_deep", "bad_header"}


@pytest.mark.parametrize(
    ("header", "data", "code"),
    [
        ({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 4, "truncated"),
        ({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 9, "size_mismatch"),
        ({"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8, "size_mismatch"),
        (
            {
                "x": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                "y": {"dtype": "U8", "shape": [4], "data_offsets": [2, 6]},
            },
            b"\0" * 6,
            "size_mismatch",
        ),
        ({"x": {"dtype": "U8", "shape": [2], "data_offsets": [2, 4]}}, b"\0" * 4, "size_mismatch"),
        ({"x": {"dtype": "Q7", "shape": [1], "data_offsets": [0, 1]}}, b"\0", "bad_dtype"),
        ({"x": {"dtype": "U8", "shape": [-1], "data_offsets": [0, 1]}}, b"\0", "bad_header"),
        ({"x": {"dtype": "U8", "shape": [True], "data_offsets": [0, 1]}}, b"\0", "bad_header"),
        ({"x": {"dtype": "U8", "shape": [1], "data_offsets": [1, 0]}}, b"\0", "bad_header"),
        ({"x": {"dtype": "U8", "shape": [1]}}, b"\0", "bad_header"),
        ({"x": [1]}, b"", "bad_header"),
        ({"x": {"dtype": "U8", "shape": [2**40], "data_offsets": [0, 2**40]}}, b"", "truncated"),
        ({"x": {"dtype": "U8", "shape": [0, 10**30], "data_offsets": [0, 0]}}, b"", "bad_header"),
        (
            {"x": {"dtype": "I64", "shape": [0, 2**31, 2**31], "data_offsets": [0, 0]}},
            b"",
            "bad_header",
        ),
        (
            {"x": {"dtype": "F64", "shape": [2**60, 2**60], "data_offsets": [0, 8]}},
            b"\0" * 8,
            "bad_header",
        ),
    ],
)
def test_layout_errors_before_allocation(header: dict[str, Any], data: bytes, code: str) -> None:
    frame = frame_of(header, data)
    tracemalloc.start()
    try:
        assert code_of(wire.loads, frame) == code
        assert code_of(wire.read_metadata, frame) == code
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


@pytest.mark.parametrize(
    ("tree", "code"),
    [
        (["t", "missing"], "bad_structure"),
        (["q", []], "bad_structure"),
        (["d", [["a", ["j", 1]], ["a", ["j", 2]]]], "bad_structure"),
        (["d", [[1, ["j", 1]]]], "bad_structure"),
        (["j"], "bad_structure"),
        (["t", "x", {"scalar": True}], "bad_structure"),
        ("nope", "bad_structure"),
    ],
)
def test_tree_errors(tree: Any, code: str) -> None:
    header = {"x": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]}}
    frame = frame_of(header, b"\0\1", {"v": "DSSST1", "tree": tree})
    assert code_of(wire.loads, frame) == code


def test_metadata_errors() -> None:
    x = {"x": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}
    assert code_of(wire.loads, frame_of(x, b"\0", {"v": "DSSST2", "tree": ["j", 1]})) == (
        "bad_version"
    )
    assert code_of(wire.loads, frame_of(x, b"\0", {"v": "DSSST1"})) == "bad_structure"
    text = json.dumps({"__metadata__": {"dss": "{not json"}, **x}).encode()
    assert code_of(wire.loads, struct.pack("<Q", len(text)) + text + b"\0") == "bad_structure"
    text = json.dumps({"__metadata__": {"dss": 5}, **x}).encode()
    assert code_of(wire.loads, struct.pack("<Q", len(text)) + text + b"\0") == "bad_header"
    text = b'{"__metadata__":{"dss":"{}"},' + b'"x":{"dtype":"U8"' + b"\xff" + b"}}"
    assert code_of(wire.loads, struct.pack("<Q", len(text)) + text) == "bad_header"


def test_bool_bytes_validated_and_unaligned_frames_copied() -> None:
    tree = ["d", [["b", ["t", "b"]], ["f", ["t", "f"]]]]
    header = {
        "b": {"dtype": "BOOL", "shape": [1], "data_offsets": [0, 1]},
        "f": {"dtype": "F32", "shape": [2], "data_offsets": [1, 9]},
    }
    good = frame_of(header, b"\x01" + struct.pack("<2f", 1.5, -2.0), {"v": "DSSST1", "tree": tree})
    for data in (good, bytearray(good)):
        out = wire.loads(data)
        assert out["b"].tolist() == [True]
        assert out["f"].tolist() == [1.5, -2.0]
    bad = frame_of(header, b"\x02" + b"\0" * 8, {"v": "DSSST1", "tree": tree})
    assert code_of(wire.loads, bad) == "bad_value"


@pytest.mark.parametrize(
    "value",
    [{1: "int key"}, {"x": {2: 3}}, {"s": {1, 2}}, object(), b"bytes", {"c": 1 + 2j}],
    ids=["int-key", "nested-int-key", "set", "object", "bytes", "complex"],
)
def test_unencodable_values(value: Any) -> None:
    assert code_of(wire.dumps, value) == "bad_value"


def test_unsupported_tensors() -> None:
    assert code_of(wire.dumps, torch.ones(2).to_sparse()) == "bad_value"
    assert code_of(wire.dumps, torch.ones(2, dtype=torch.complex128)) == "bad_dtype"
    assert code_of(wire.dumps, torch.empty(2, device="meta")) == "bad_value"
    assert code_of(wire.dumps, {"m": 1}, metadata={"x": object()}) == "bad_value"
    t = torch.ones(2, dtype=torch.complex64).conj()
    assert torch.equal(wire.loads(wire.dumps(t)), t.resolve_conj())
    g = torch.ones(2, requires_grad=True) * 2
    assert torch.equal(wire.loads(wire.dumps(g)), g.detach())


def test_wire_error_contract() -> None:
    err = WireError("hash_mismatch", "x")
    assert err.code == "hash_mismatch" and str(err) == "hash_mismatch: x"
    assert isinstance(err, ValueError)
    again = pickle.loads(pickle.dumps(err))
    assert (again.code, again.message) == ("hash_mismatch", "x")
    with pytest.raises(ValueError):
        WireError("nope", "x")
    assert {
        "pickle_refused",
        "bad_header",
        "size_mismatch",
        "hash_mismatch",
        "missing_chunks",
    } <= wire.ERROR_CODES


# --------------------------------------------------------------------------- fuzz

_NUM = re.compile(rb"\d+")


def _mutate(data: bytes, rnd: random.Random) -> bytes:
    b = bytearray(data)
    if len(b) < 9:
        return bytes(b) + rnd.randbytes(rnd.randint(0, 16))
    hlen = min(struct.unpack("<Q", data[:8])[0], len(data) - 8)
    op = rnd.randrange(7)
    if op == 0:  # bit flips, mostly in the header
        for _ in range(rnd.randint(1, 4)):
            pos = rnd.randrange(8 + hlen) if rnd.random() < 0.8 else rnd.randrange(len(b))
            b[pos] ^= 1 << rnd.randrange(8)
    elif op == 1:  # truncate
        del b[rnd.randrange(len(b)) :]
    elif op == 2:  # new header length
        b[:8] = struct.pack(
            "<Q", rnd.choice([0, 1, 7, max(hlen - 1, 0), hlen + 1, 2**63, rnd.getrandbits(64)])
        )
    elif op == 3:  # rewrite a number in the header
        nums = list(_NUM.finditer(bytes(b[8 : 8 + hlen])))
        if nums:
            m = rnd.choice(nums)
            new = str(rnd.choice([0, 1, 2**31, 2**40, 2**64, 10**30, int(m.group()) + 1])).encode()
            b[8 + m.start() : 8 + m.end()] = new
            b[:8] = struct.pack("<Q", hlen + len(new) - (m.end() - m.start()))
    elif op == 4:  # rewrite a dtype or tag
        text = bytes(b[8 : 8 + hlen])
        for old, new in ((b'"F32"', b'"U8"'), (b'"I64"', b'"BOOL"'), (b'\\"t\\"', b'\\"u\\"')):
            if old in text and rnd.random() < 0.5:
                text = text.replace(old, new, 1)
        b[8 : 8 + hlen] = text
        b[:8] = struct.pack("<Q", len(text))
    elif op == 5:  # append junk
        b += rnd.randbytes(rnd.randint(1, 64))
    else:  # random bytes over a random span
        start = rnd.randrange(len(b))
        span = min(rnd.randint(1, 32), len(b) - start)
        b[start : start + span] = rnd.randbytes(span)
    return bytes(b)


FUZZ_SEEDS = ["fwd_bwd_batch.bin", "nesting.bin", "edge_shapes.bin", "dtypes.bin", "no_tensors.bin"]


@pytest.mark.parametrize("seed", range(8))
def test_mutation_fuzz(seed: int) -> None:
    rnd = random.Random(seed)
    frames = [golden_bytes(f) for f in FUZZ_SEEDS]
    chunks = [golden_bytes(f"request_chunks.chunk{i}.bin") for i in range(6)]
    tracemalloc.start()
    try:
        for i in range(150):
            use_chunk = i % 3 == 0
            src = rnd.choice(chunks if use_chunk else frames)
            data = _mutate(src, rnd)
            if rnd.random() < 0.3:
                data = _mutate(data, rnd)
            tracemalloc.reset_peak()
            for fn in (wire.loads, wire.read_metadata):
                with contextlib.suppress(WireError):
                    fn(data)
            if use_chunk:
                asm = ChunkAssembler()
                try:
                    for c in [data, *rnd.sample(chunks, 5)]:
                        asm.add(c)
                    asm.value()
                except WireError:
                    pass
            peak = tracemalloc.get_traced_memory()[1]
            assert peak < 64 * len(src) + (4 << 20), (i, peak)
    finally:
        tracemalloc.stop()


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 2**64)
    | st.floats()
    | st.sampled_from(["t", "j", "d", "l", "u", "x", "payload", "scalar"]),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.sampled_from(["scalar", "a"]), c),
    max_leaves=16,
)


@settings(max_examples=300, deadline=None)
@given(_json)
def test_random_trees_refused_cleanly(tree: Any) -> None:
    header = {"x": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]}}
    frame = frame_of(header, b"\0\1", {"v": "DSSST1", "tree": tree})
    with contextlib.suppress(WireError):
        wire.loads(frame)


_desc_value = st.one_of(
    st.integers(-2, 2**65), st.booleans(), st.none(), st.text(max_size=3), st.just("0" * 64)
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["chunk_idx", "total_chunks", "frame_sha256", "frame_size_bytes", "chunk_group_id"]
        ),
        _desc_value,
    ),
    st.sampled_from(wire.CHUNK_KINDS),
    st.integers(1, 64),
)
def test_random_descriptors_refused_cleanly(desc: dict[str, Any], kind: str, length: int) -> None:
    chunk = wire.dumps({"payload": torch.zeros(length, dtype=torch.uint8)}, metadata={kind: desc})
    with contextlib.suppress(WireError):
        asm = ChunkAssembler()
        asm.add(chunk)
        asm.value()
