"""The codec's fast paths (mapped buffers, numpy copies, a helper thread, refilled chunks)
and each portable fallback another platform would run, on small data."""

from __future__ import annotations

import mmap
import random
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
from hypothesis import HealthCheck, settings
from strategies import same

from arctic_rl import wire
from arctic_rl.wire import _assembler, _buffers

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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


def test_one_pool_serves_assemblies_on_plain_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """verl calls from plain threads: assemblies drawing on one pool at once (mapped
    buffers, refilled ones, the pool's helper threads) each give their own frame back."""
    monkeypatch.setattr(_buffers, "FAST_MIN", 1)
    monkeypatch.setattr(_assembler, "_THREAD_MIN", 1)
    monkeypatch.setattr(_assembler, "_HASH_PIECE", 100)
    pool = wire.AssemblyPool()
    chunking = wire.Chunking("result_chunk", 9000)

    def assemble_repeatedly(seed: int) -> None:
        value = {"w": torch.arange(seed, seed + 20_000, dtype=torch.float32)}
        chunks = [bytes(c) for c in wire.iter_chunks(value, chunking)]
        for _ in range(20):
            asm = wire.ChunkAssembler(kind="result_chunk", pool=pool)
            for chunk in chunks:
                asm.add(chunk)
            assert torch.equal(asm.value()["w"], value["w"])

    with ThreadPoolExecutor(4) as threads:
        for done in [threads.submit(assemble_repeatedly, seed) for seed in range(4)]:
            done.result()
