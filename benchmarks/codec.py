"""DSSST1 codec at scale: 1 GiB of bf16 tensors through 60 MiB chunk envelopes.

Each phase runs in a fresh child process so its RSS high-water mark (VmHWM) is its
own; "peak extra" is that mark minus the RSS once the source tensors exist, minus the
decoded output itself for the decode phase. torch allocations are invisible to
tracemalloc, hence RSS.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any

MIB = 1024 * 1024
TENSORS = 16
TENSOR_MIB = 64


def _status(field: str) -> int:
    """A /proc/self/status memory field, in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def _make_value(tensors: int, tensor_mib: int) -> dict[str, Any]:
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


def _roundtrip(value: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """Stream chunks from the encoder straight into an assembler, timing each side."""
    import torch

    from arctic_rl import wire

    out: dict[str, Any] = {}
    base = _status("VmRSS")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu0 = usage.ru_utime + usage.ru_stime
    enc = dec = 0.0
    asm = wire.ChunkAssembler(kind="request_chunk")
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
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out["cpu_s"] = usage.ru_utime + usage.ru_stime - cpu0
    frame_size = asm.descriptor.frame_size_bytes if asm.descriptor else 0
    out.update(encode_s=enc, decode_s=dec, seconds=enc + dec, chunks=asm.received)
    out["peak_extra_mib"] = (_status("VmHWM") - base - frame_size) / MIB
    for k, v in value.items():  # compare bits: random bf16 patterns include NaNs
        assert torch.equal(decoded[k].view(torch.int16), v.view(torch.int16)), k
    return out


def _child(phase: str, tensors: int, tensor_mib: int, max_bytes: int) -> dict[str, Any]:
    import torch

    from arctic_rl import wire

    value = _make_value(tensors, tensor_mib)
    out: dict[str, Any] = {"data_mib": tensors * tensor_mib * MIB / MIB}
    base = _status("VmRSS")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu0 = usage.ru_utime + usage.ru_stime
    if phase == "sha256":
        t0 = time.perf_counter()
        h = hashlib.sha256()
        for t in value.values():
            h.update(memoryview(t.view(-1).view(torch.uint8).numpy()))
        out["seconds"] = time.perf_counter() - t0
    elif phase == "encode":
        t0 = time.perf_counter()
        first = 0.0
        for chunk in wire.iter_chunks(value, wire.Chunking("request_chunk", max_bytes, "bench")):
            first = first or time.perf_counter() - t0
            del chunk
        out["seconds"] = time.perf_counter() - t0
        out["first_chunk_s"] = first
    elif phase == "oneshot":
        t0 = time.perf_counter()
        frame = wire.dumps(value)
        chunks = [
            c.data for c in wire.split_chunks(frame, wire.Chunking("request_chunk", max_bytes))
        ]
        del frame
        t1 = time.perf_counter()
        decoded = wire.loads(wire.join_chunks(chunks))
        del chunks
        t2 = time.perf_counter()
        out.update(seconds=t2 - t0, encode_s=t1 - t0, decode_s=t2 - t1)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        out["cpu_s"] = usage.ru_utime + usage.ru_stime - cpu0
        out["peak_extra_mib"] = (_status("VmHWM") - base - out["data_mib"] * MIB) / MIB
        del decoded
        return out
    elif phase == "roundtrip":
        return {**out, **_roundtrip(value, max_bytes)}
    elif phase == "roundtrip-warm":
        _roundtrip(value, max_bytes)  # first pass faults fresh pages in from the host
        _reset_peak()
        return {**out, **_roundtrip(value, max_bytes)}
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out["cpu_s"] = usage.ru_utime + usage.ru_stime - cpu0
    out["peak_extra_mib"] = (_status("VmHWM") - base) / MIB
    return out


# glibc serves blocks above its mmap threshold (at most 32 MiB by default) with fresh
# mappings, so every 60 MiB chunk the encoder hands out is first-touch memory. Raising
# the threshold lets a freed chunk's pages be reused; this row shows what that costs.
_REUSE_ENV = {
    "GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=268435456:glibc.malloc.trim_threshold=1073741824"
}


def _spawn(
    phase: str, tensors: int, tensor_mib: int, max_bytes: int, env: dict[str, str] | None = None
) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.codec", "--child", phase]
    cmd += ["--tensors", str(tensors), "--tensor-mib", str(tensor_mib)]
    cmd += ["--max-bytes", str(max_bytes)]
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env=full_env)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run(tensors: int = TENSORS, tensor_mib: int = TENSOR_MIB) -> list[dict[str, Any]]:
    """Rows: sha256 floor, streaming encode, and the interleaved encode/decode round trip."""
    from arctic_rl.wire import MAX_BODY_BYTES

    chunk_mib = MAX_BODY_BYTES / MIB
    rows: list[dict[str, Any]] = []
    for phase, label, env in (
        ("sha256", "sha256 floor (1 pass)", None),
        ("encode", "encode+chunk (iter_chunks)", None),
        ("roundtrip", "round trip, streamed (iter_chunks -> ChunkAssembler)", None),
        ("roundtrip-warm", "round trip, streamed, 2nd in process", None),
        ("roundtrip", "round trip, streamed, glibc reuses chunk memory", _REUSE_ENV),
        ("oneshot", "round trip, one-shot (dumps/split, join/loads)", None),
    ):
        r = _spawn(phase, tensors, tensor_mib, MAX_BODY_BYTES, env)
        gib = r["data_mib"] / 1024
        row: dict[str, Any] = {
            "case": label,
            "data_GiB": gib,
            "seconds": r["seconds"],
            "GiB/s": gib / r["seconds"] if r["seconds"] else 0.0,
            "peak_extra_MiB": r["peak_extra_mib"],
            "peak_extra_chunks": r["peak_extra_mib"] / chunk_mib,
        }
        row["cpu_s"] = r["cpu_s"]
        if "first_chunk_s" in r:
            row["first_chunk_s"] = r["first_chunk_s"]
        if "encode_s" in r:
            row["encode_s"] = r["encode_s"]
            row["decode_s"] = r["decode_s"]
        if "value_s" in r:
            row["value_s"] = r["value_s"]
        rows.append(row)
    load = os.getloadavg()[0]
    for row in rows:
        row["loadavg"] = load
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--child", choices=("sha256", "encode", "roundtrip", "roundtrip-warm", "oneshot")
    )
    parser.add_argument("--tensors", type=int, default=TENSORS)
    parser.add_argument("--tensor-mib", type=int, default=TENSOR_MIB)
    parser.add_argument("--max-bytes", type=int, default=60 * MIB)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.tensors, args.tensor_mib, args.max_bytes)))
    else:
        for row in run(args.tensors, args.tensor_mib):
            print(row)


if __name__ == "__main__":
    main()
