"""The assembler holds what has arrived, never what a chunk declares (issue #11).

A chunk declares its whole frame's size and chunk count; a receiver that allocated on
that promise let 30 first chunks of 31 MiB frames (14 KB sent) hold +976 MiB of RSS, and
40 declaring 16 GiB hold 642 GiB of address space. Each test sends only first or early
chunks of large declared frames and bounds what the process grew by against what was
sent. RSS and address space come from /proc/self/status (mappings are invisible to
tracemalloc); the Python heap from tracemalloc.
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
import torch

from arctic_rl import wire
from arctic_rl.wire import ChunkAssembler, _assembler, _buffers

KIB = 1024
MIB = 1024 * KIB
PAYLOAD = 64 * KIB
HELPER_SPACE = 2 * 80 * MIB
"""Address space the helper threads of the receiver's pool (at most two) may take once:
a stack and a malloc arena each."""


def _status(field: str) -> int:
    """A /proc/self/status memory field, in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * KIB
    raise AssertionError(f"{field} not in /proc/self/status")


def _chunk(declared: int, payload: int, idx: int = 0, group: str = "g") -> bytes:
    """Chunk ``idx`` of a frame declaring ``declared`` bytes cut into ``payload``-byte runs."""
    total = math.ceil(declared / payload)
    length = payload if idx < total - 1 else declared - payload * (total - 1)
    descriptor = {
        "chunk_idx": idx,
        "total_chunks": total,
        "frame_sha256": "0" * 64,
        "frame_size_bytes": declared,
        "chunk_group_id": group,
    }
    body = torch.full((length,), idx % 251, dtype=torch.uint8)
    return wire.dumps({"payload": body}, metadata={"request_chunk": descriptor})


def _feed(chunks: list[bytes | bytearray]) -> list[ChunkAssembler]:
    """One assembler per chunk (each an abandoned group), kept alive; all draw on one pool,
    as a receiver's open groups do."""
    pool = wire.AssemblyPool()
    held = []
    for chunk in chunks:
        asm = ChunkAssembler(kind="request_chunk", pool=pool)
        asm.add(chunk)
        assert not asm.complete
        held.append(asm)
    return held


def test_abandoned_groups_hold_the_bytes_they_sent_not_the_declared_size() -> None:
    # 8 first chunks of 64 KiB, each declaring a 31 MiB frame: 248 MiB on a promise.
    chunks = [_chunk(31 * MIB, PAYLOAD, group=f"g{i}") for i in range(8)]
    sent = sum(len(c) for c in chunks)
    before = _status("VmRSS")
    held = _feed(chunks)
    grown = _status("VmRSS") - before
    assert grown < sent + 16 * MIB, f"RSS grew {grown / MIB:.0f} MiB for {sent / MIB} MiB sent"
    assert [a.received for a in held] == [1] * len(chunks)


@pytest.mark.parametrize("idx", [0, 2], ids=["first chunk", "early chunk"])
def test_a_16_gib_promise_maps_no_address_space(idx: int) -> None:
    # A declared 16 GiB frame (the default cap); the early chunk arrives before 0 and 1.
    declared = wire.DEFAULT_LIMITS.max_frame_bytes
    chunks = [_chunk(declared, PAYLOAD, idx, group=f"h{i}") for i in range(8)]
    sent = sum(len(c) for c in chunks)
    before = _status("VmSize")
    held = _feed(chunks)
    grown = _status("VmSize") - before
    # The helper threads of the pool they share may start meanwhile, once.
    assert grown < sent + HELPER_SPACE, f"address space grew {grown / MIB:.0f} MiB"
    assert _assembler._HELPER_THREADS <= 2
    assert held[0].missing()[:3] == [i for i in range(4) if i != idx][:3]


def test_python_heap_follows_the_bytes_received() -> None:
    # Frames under 4 MiB are assembled on the Python heap: 40 groups declaring 3.9 MiB,
    # each sent chunk 0 and an early chunk 5 in a writable buffer (which is copied).
    declared = 3900 * KIB
    payload = 16 * KIB
    firsts = [_chunk(declared, payload, 0, group=f"p{i}") for i in range(40)]
    earlies = [bytearray(_chunk(declared, payload, 5, group=f"p{i}")) for i in range(40)]
    received = 2 * 40 * payload
    tracemalloc.start()
    try:
        held = _feed(firsts)
        for asm, early in zip(held, earlies, strict=True):
            asm.add(early)
        traced = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert traced < 2 * received + 512 * KIB, f"{traced / MIB:.1f} MiB for {received / MIB} MiB"
    assert all(a.received == 2 for a in held)


def address(buf: object) -> int:
    """Address of a buffer's first byte (numpy reads it from the buffer protocol)."""
    return int(np.frombuffer(buf, dtype=np.uint8).__array_interface__["data"][0])  # type: ignore[call-overload]


def _assemble(value: dict[str, torch.Tensor], pool: wire.AssemblyPool | None) -> ChunkAssembler:
    chunking = wire.Chunking("result_chunk", wire.CHUNK_HEADROOM + MIB)
    asm = ChunkAssembler(kind="result_chunk", pool=pool)
    for chunk in wire.iter_chunks(value, chunking):
        asm.add(chunk.data)
    assert asm.complete
    return asm


def test_a_released_frame_lends_its_pages_to_the_next_and_a_viewed_one_never_does() -> None:
    pool = wire.AssemblyPool()
    first = {"w": torch.arange(2 * MIB, dtype=torch.float32)}  # an 8 MiB frame
    second = {"w": torch.arange(2 * MIB, dtype=torch.float32).flip(0)}
    asm = _assemble(first, pool)
    kept = asm.value()
    used = address(asm.buffer)
    del asm
    while_viewed = _assemble(second, pool)
    assert address(while_viewed.buffer) != used  # the first frame is still viewed
    assert torch.equal(kept["w"], first["w"])
    assert torch.equal(while_viewed.value()["w"], second["w"])
    del kept, while_viewed
    after = _assemble(second, pool)
    assert address(after.buffer) == used  # released: its mapping is taken again
    assert torch.equal(after.value()["w"], second["w"])


def test_a_released_frame_lends_its_pages_only_to_its_own_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client and a mock in one process each hold a pool: neither takes the other's
    released memory, and an assembler given none maps its own."""
    mapped: list[int] = []
    real_map = _buffers.new_map
    monkeypatch.setattr(_buffers, "new_map", lambda size: mapped.append(size) or real_map(size))
    mine, other = wire.AssemblyPool(), wire.AssemblyPool()
    value = {"w": torch.arange(2 * MIB, dtype=torch.float32)}  # an 8 MiB frame
    released = _assemble(value, mine)
    used = address(released.buffer)
    del released
    assert mapped
    for pool in (other, None):
        mapped.clear()
        elsewhere = _assemble(value, pool)
        assert mapped and address(elsewhere.buffer) != used  # a mapping of its own
        assert torch.equal(elsewhere.value()["w"], value["w"])
    mapped.clear()
    again = _assemble(value, mine)
    assert not mapped and address(again.buffer) == used  # its own pool's released one
    assert torch.equal(again.value()["w"], value["w"])
