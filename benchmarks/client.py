"""The client against the canned mock over loopback: what the wire costs a training loop.

Rows: the forward-backward round trip (upload, schedule, poll, decode) for a small batch
and a 64 x 2048 batch, median and p99 over repeated calls; and one 1 GiB forward-backward
streamed in 60 MiB chunks, its throughput and the client's peak memory above the data.
The mock runs as its own process (``python -m mock_server --backend canned``); the 1 GiB
client runs in a fresh child so its RSS high-water mark is its own.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.codec import _make_value, _status  # the codec bench's data and RSS reader

MIB = 1024 * 1024
SMALL = (8, 128)
LARGE = (64, 2048)
REPEATS = {SMALL: 60, LARGE: 20}
WARMUP = 3
BULK_TENSORS = 16  # x 64 MiB of bf16 = 1 GiB


def train_batch(rows: int, width: int, response: int | None = None) -> dict[str, Any]:
    """A SkyRL-shaped TrainBatch: [B, P+R] ids and masks, [B, R] per-token floats."""
    import torch

    response = response or width // 2
    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 256, (rows, width), generator=gen)
    mask = torch.zeros(rows, width, dtype=torch.long)
    mask[:, width - response :] = 1
    return {
        "input_ids": ids,
        "attention_mask": torch.ones(rows, width, dtype=torch.long),
        "position_ids": torch.arange(width).repeat(rows, 1),
        "prompts": ids[:, : width - response].clone(),
        "responses": ids[:, width - response :].clone(),
        "response_mask": mask[:, width - response :].clone(),
        "loss_mask": mask,
        "advantages": torch.randn(rows, response, generator=gen),
        "old_log_probs": -torch.rand(rows, response, generator=gen) * 5,
    }


def _config(base_url: str) -> Any:
    from arctic_rl import ArcticRLClientConfig
    from examples.grpo_demo import PAT_ENV

    return ArcticRLClientConfig(
        backend="cortex",
        model_name="bench",
        training_gpus=1,
        cortex={"base_url": base_url, "pat_env": PAT_ENV, "progress": False},
    )


PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}


def _percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (with few samples p99 is close to the maximum, honestly)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def roundtrip_rows(base_url: str) -> list[dict[str, Any]]:
    """fwd_bwd latency through the blocking client, one row per batch shape."""
    from arctic_rl import ArcticRLClient
    from arctic_rl.wire import dumps

    rows: list[dict[str, Any]] = []
    with ArcticRLClient(_config(base_url)) as client:
        for shape, repeats in REPEATS.items():
            batch = train_batch(*shape)
            frame_mib = len(dumps({"kwargs": batch})) / MIB
            times: list[float] = []
            for i in range(WARMUP + repeats):
                t0 = time.perf_counter()
                client.fwd_bwd(batch, processing=PROCESSING)
                if i >= WARMUP:
                    times.append(time.perf_counter() - t0)
            rows.append(
                {
                    "case": f"fwd_bwd round trip {shape[0]}x{shape[1]}",
                    "data_MiB": frame_mib,
                    "n": repeats,
                    "median_ms": statistics.median(times) * 1000,
                    "p99_ms": _percentile(times, 99) * 1000,
                }
            )
    return rows


def _upload_child(base_url: str) -> dict[str, Any]:
    """In a fresh process: one 1 GiB fwd_bwd; RSS high-water above the data and client."""
    from arctic_rl import ArcticRLClient
    from arctic_rl._client import _forward_request  # the body fwd_bwd would send

    batch: dict[str, Any] = {**train_batch(8, 128), **_make_value(BULK_TENSORS, 64)}
    data = sum(t.numel() * t.element_size() for t in batch.values())
    with ArcticRLClient(_config(base_url)) as client:
        client.fwd_bwd(train_batch(8, 128), processing=PROCESSING)  # warm the connection
        service, job_id = client.aio.service, client.job_id
        value = _forward_request(batch, None, {**PROCESSING, "post": []})
        base = _status("VmRSS")
        t0 = time.perf_counter()
        # fwd_bwd is upload + wait_request; timed apart so the upload's rate is its own.
        accepted = client.submit(service.upload(job_id, "forward_backward", value)).result()
        t1 = time.perf_counter()
        request_id = accepted.request_id
        client.submit(service.wait_request(job_id, request_id)).result()
        t2 = time.perf_counter()
        peak = _status("VmHWM") - base
    return {"data_bytes": data, "upload_s": t1 - t0, "total_s": t2 - t0, "peak_extra_bytes": peak}


def upload_row(base_url: str) -> dict[str, Any]:
    """Run the 1 GiB upload in a child process (it inherits the token's env variable)."""
    from arctic_rl.wire import MAX_BODY_BYTES

    cmd = [sys.executable, "-m", "benchmarks.client", "--upload-child", base_url]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"upload child failed:\n{proc.stderr[-2000:]}")
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    gib = r["data_bytes"] / (1024 * MIB)
    return {
        "case": "fwd_bwd 1 GiB streamed, 60 MiB chunks",
        "data_MiB": r["data_bytes"] / MIB,
        "n": 1,
        "seconds": r["total_s"],
        "upload_s": r["upload_s"],
        "GiB/s": gib / r["upload_s"],
        "peak_extra_MiB": r["peak_extra_bytes"] / MIB,
        "peak_extra_chunks": r["peak_extra_bytes"] / MAX_BODY_BYTES,
    }


def run() -> list[dict[str, Any]]:
    """Start the canned mock, measure, stop it."""
    from examples.grpo_demo import running_mock

    with tempfile.TemporaryDirectory(prefix="arctic-rl-bench-") as tmp:
        state, log = Path(tmp) / "state", Path(tmp) / "mock.log"
        with running_mock(state, log, backend="canned") as base_url:
            rows = roundtrip_rows(base_url)
            rows.append(upload_row(base_url))
    load = os.getloadavg()[0]
    return [{**row, "loadavg": load} for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--upload-child", metavar="BASE_URL")
    args = parser.parse_args()
    if args.upload_child:
        print(json.dumps(_upload_child(args.upload_child)))
    else:
        for row in run():
            print(row)


if __name__ == "__main__":
    main()
