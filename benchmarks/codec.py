"""DSSST1 codec at scale: 1 GiB of bf16 tensors through 60 MiB chunk envelopes.

The judged rows (#13: at least 10x faster than the published codec, peak at most 3
chunks) each pair our streamed round trip (``iter_chunks`` straight into a
``ChunkAssembler``, then ``value()``) with the published codec's round trip of the same
seeded data (``arctic_platform.wire``, installed for the conformance tests: it has no
streaming path, so ``dumps``, ``encode_byte_chunks``, ``decode_byte_chunks``, ``loads``).
The published round trip runs three times to show the spread, each between two of our
child processes of three streamed round trips each, and is compared with the median of
the six around it: one of ours takes 1.2-3.5 s here and the published one 22-31 s, so
sampling ours just before and just after the published run puts both under the same
load (a burst of other work on the shared machine would otherwise decide a row). The
peak is the highest of the six.
``python -m benchmarks.codec --profile`` shows the phases our time is made of (one
SHA-256 pass, a copy into fresh memory, the encoder alone, the round trip, the one-shot
path), with the CPU time of each.

Each phase runs in a fresh child process so its RSS high-water mark (VmHWM) is its
own; "peak extra" is that mark minus the RSS once the source tensors exist, minus the
decoded output itself for the decode phase. torch allocations are invisible to
tracemalloc, hence RSS.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from benchmarks._goals import judge, load1

if TYPE_CHECKING:
    from arctic_rl.wire import AssemblyPool

MIB = 1024 * 1024
TENSORS = 16
TENSOR_MIB = 64


def status(field: str) -> int:
    """A /proc/self/status memory field, in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def make_value(tensors: int, tensor_mib: int) -> dict[str, Any]:
    import torch

    gen = torch.Generator().manual_seed(0)
    value: dict[str, Any] = {}
    for i in range(tensors):
        t = torch.empty(tensor_mib * MIB // 2, dtype=torch.bfloat16)
        t.view(torch.int16).random_(generator=gen)  # filled in place: no temporary copy
        value[f"layer{i:02d}.weight"] = t.view(1024, -1)
    return value


def _reset_peak() -> bool:
    """Reset VmHWM (Linux >= 4.0) so a second measurement in one process is its own."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _check_bits(decoded: dict[str, Any], value: dict[str, Any]) -> None:
    """Every tensor back bit for bit (random bf16 patterns include NaNs, so compare ints)."""
    import torch

    for k, v in value.items():
        assert torch.equal(decoded[k].view(torch.int16), v.view(torch.int16)), k


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _roundtrip(value: dict[str, Any], max_bytes: int, pool: AssemblyPool) -> dict[str, Any]:
    """Stream chunks from the encoder straight into an assembler, timing each side; the
    assembler draws on ``pool``, as a receiver's do from frame to frame."""
    from arctic_rl import wire

    out: dict[str, Any] = {}
    base, cpu0 = status("VmRSS"), _cpu_s()
    enc = dec = 0.0
    asm = wire.ChunkAssembler(kind="request_chunk", pool=pool)
    it = wire.iter_chunks(
        value, wire.Chunking("request_chunk", max_bytes, "bench", bare_max_bytes=0)
    )
    while True:
        t0 = time.perf_counter()
        chunk = next(it, None)
        t1 = time.perf_counter()
        enc += t1 - t0
        out.setdefault("first_chunk_s", t1 - t0)
        if chunk is None:
            break
        asm.add(chunk.data)  # as a receiver gets it: bytes, parsed on arrival
        del chunk
        dec += time.perf_counter() - t1
    t0 = time.perf_counter()
    decoded = asm.value()
    out["value_s"] = time.perf_counter() - t0
    dec += out["value_s"]
    out["cpu_s"] = _cpu_s() - cpu0
    frame_size = asm.descriptor.frame_size_bytes if asm.descriptor else 0
    out.update(encode_s=enc, decode_s=dec, seconds=enc + dec, chunks=asm.received)
    out["peak_extra_mib"] = (status("VmHWM") - base - frame_size) / MIB
    _check_bits(decoded, value)
    return out


def _one_shot(
    value: dict[str, Any], encode: Callable[[], list[Any]], decode: Callable[[list[Any]], Any]
) -> dict[str, Any]:
    """A round trip that encodes every chunk before decoding any (the published codec's way)."""
    base, cpu0 = status("VmRSS"), _cpu_s()
    t0 = time.perf_counter()
    chunks = encode()
    t1 = time.perf_counter()
    decoded = decode(chunks)
    del chunks
    t2 = time.perf_counter()
    out = {"seconds": t2 - t0, "encode_s": t1 - t0, "decode_s": t2 - t1, "cpu_s": _cpu_s() - cpu0}
    data = sum(t.numel() * t.element_size() for t in value.values())
    out["peak_extra_mib"] = (status("VmHWM") - base - data) / MIB
    _check_bits(decoded, value)
    return out


def _published(value: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    from arctic_platform import wire as published

    def encode() -> list[bytes]:
        frame = published.dumps(value)
        return list(published.encode_byte_chunks(frame, kind="request", max_bytes=max_bytes))

    def decode(chunks: list[bytes]) -> Any:
        return published.loads(published.decode_byte_chunks(chunks, kind="request"))

    return _one_shot(value, encode, decode)


def _ours_one_shot(value: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    from arctic_rl import wire

    def encode() -> list[Any]:
        frame = wire.dumps(value)
        return [c.data for c in wire.split_chunks(frame, wire.Chunking("request_chunk", max_bytes))]

    return _one_shot(value, encode, lambda chunks: wire.loads(wire.join_chunks(chunks)))


def _child(phase: str, tensors: int, tensor_mib: int, max_bytes: int) -> dict[str, Any]:
    import torch

    from arctic_rl import wire

    value = make_value(tensors, tensor_mib)
    out: dict[str, Any] = {"data_mib": tensors * tensor_mib * MIB / MIB}
    if phase == "roundtrip":
        runs = []
        pool = wire.AssemblyPool()
        for _ in range(ROUNDS):
            _reset_peak()
            runs.append(_roundtrip(value, max_bytes, pool))
        return {**out, "runs": runs}
    if phase == "published":
        return {**out, **_published(value, max_bytes)}
    if phase == "oneshot":
        return {**out, **_ours_one_shot(value, max_bytes)}
    base, cpu0 = status("VmRSS"), _cpu_s()
    t0 = time.perf_counter()
    if phase == "sha256":
        h = hashlib.sha256()
        for t in value.values():
            h.update(memoryview(t.view(-1).view(torch.uint8).numpy()))
    elif phase == "fresh-copy":
        from arctic_rl import wire

        views = [memoryview(t.view(-1).view(torch.uint8).numpy()) for t in value.values()]
        fresh = wire.AppendBuffer(sum(len(v) for v in views))
        for view in views:
            fresh.append(view)
    elif phase == "encode":
        for chunk in wire.iter_chunks(value, wire.Chunking("request_chunk", max_bytes, "bench")):
            out.setdefault("first_chunk_s", time.perf_counter() - t0)
            del chunk
    out["seconds"] = time.perf_counter() - t0
    out["cpu_s"] = _cpu_s() - cpu0
    out["peak_extra_mib"] = (status("VmHWM") - base) / MIB
    return out


PHASES = ("roundtrip", "published", "sha256", "fresh-copy", "encode", "oneshot")
PROFILE = (
    ("sha256", "one SHA-256 pass (a round trip needs two)"),
    ("fresh-copy", "copy into fresh memory (the receiver's buffer)"),
    ("encode", "encode to chunks (iter_chunks: hash, then copy)"),
    ("roundtrip", "round trip, streamed (median of 3)"),
    ("oneshot", "round trip, one-shot (dumps/split, join/loads)"),
)
"""What ``--profile`` shows: the phases our round trip's time is made of."""
PROFILE_COLUMNS = ("case", "data_MiB", "seconds", "cpu_s", "peak_chunks", "load1")
REPEATS = 3
ROUNDS = 3
"""Our streamed round trips per child process (see the module doc)."""
GOAL_RATIO = 10.0
GOAL_PEAK_CHUNKS = 3.0


def _spawn(phase: str, tensors: int, tensor_mib: int, max_bytes: int) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.codec", "--child", phase]
    cmd += ["--tensors", str(tensors), "--tensor-mib", str(tensor_mib)]
    cmd += ["--max-bytes", str(max_bytes)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"codec child {phase} failed:\n{proc.stderr[-2000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _row(case: str, r: dict[str, Any]) -> dict[str, Any]:
    from arctic_rl.wire import MAX_BODY_BYTES

    gib = r["data_mib"] / 1024
    row: dict[str, Any] = {
        "case": case,
        "data_MiB": r["data_mib"],
        "seconds": r["seconds"],
        "GiB/s": gib / r["seconds"] if r["seconds"] else 0.0,
        "peak_extra_MiB": r["peak_extra_mib"],
        "peak_chunks": r["peak_extra_mib"] * MIB / MAX_BODY_BYTES,
        "cpu_s": r["cpu_s"],
        "load1": load1(),
    }
    for detail in ("first_chunk_s", "encode_s", "decode_s", "value_s", "runs_s"):
        if detail in r:
            row[detail] = r[detail]
    return row


def _median_run(runs: list[dict[str, Any]], data_mib: float) -> dict[str, Any]:
    """The median round trip (the slower middle one of an even count) with the highest
    peak, and every time seen."""
    ordered = sorted(runs, key=lambda r: r["seconds"])
    median = {**ordered[len(ordered) // 2], "data_mib": data_mib}
    median["peak_extra_mib"] = max(r["peak_extra_mib"] for r in runs)
    median["runs_s"] = [r["seconds"] for r in runs]
    return median


def run(
    tensors: int = TENSORS, tensor_mib: int = TENSOR_MIB, repeats: int = REPEATS
) -> list[dict[str, Any]]:
    """``repeats`` judged rows: each published round trip between two sets of ours."""
    from arctic_rl.wire import MAX_BODY_BYTES

    ours = [_spawn("roundtrip", tensors, tensor_mib, MAX_BODY_BYTES)]
    rows: list[dict[str, Any]] = []
    for k in range(repeats):
        ref = _spawn("published", tensors, tensor_mib, MAX_BODY_BYTES)
        ours.append(_spawn("roundtrip", tensors, tensor_mib, MAX_BODY_BYTES))
        around = _median_run(ours[k]["runs"] + ours[k + 1]["runs"], ref["data_mib"])
        row = _row(f"round trip 1 GiB streamed, run {k + 1}/{repeats}", around)
        row.update(
            ref_seconds=ref["seconds"],
            ref="published codec (one-shot: it has no streaming path)",
            ref_peak_chunks=ref["peak_extra_mib"] * MIB / MAX_BODY_BYTES,
            ref_cpu_s=ref["cpu_s"],
            ratio=ref["seconds"] / around["seconds"],
            cpu_ratio=ref["cpu_s"] / around["cpu_s"],
        )
        goal = f"ratio >= {GOAL_RATIO:g}, peak <= {GOAL_PEAK_CHUNKS:g} chunks"
        checks = ((row["ratio"], ">=", GOAL_RATIO), (row["peak_chunks"], "<=", GOAL_PEAK_CHUNKS))
        rows.append(judge(row, goal, *checks))
    return rows


def profile(tensors: int = TENSORS, tensor_mib: int = TENSOR_MIB) -> list[dict[str, Any]]:
    """Rows that explain the round trip's time: the SHA-256 floor, encode alone, ..."""
    from arctic_rl.wire import MAX_BODY_BYTES

    rows = []
    for phase, label in PROFILE:
        got = _spawn(phase, tensors, tensor_mib, MAX_BODY_BYTES)
        if "runs" in got:
            got = _median_run(got["runs"], got["data_mib"])
        rows.append(_row(label, got))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.codec")
    parser.add_argument("--child", choices=PHASES)
    parser.add_argument("--profile", action="store_true", help="the phases, not the judged rows")
    parser.add_argument("--tensors", type=int, default=TENSORS)
    parser.add_argument("--tensor-mib", type=int, default=TENSOR_MIB)
    parser.add_argument("--max-bytes", type=int, default=60 * MIB)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.tensors, args.tensor_mib, args.max_bytes)))
        return
    from benchmarks.__main__ import render

    if args.profile:
        print(render(profile(args.tensors, args.tensor_mib), PROFILE_COLUMNS))
    else:
        print(render(run(args.tensors, args.tensor_mib)))


if __name__ == "__main__":
    main()
