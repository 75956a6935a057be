"""Lowering: what SkyRL's step costs when the legacy client lowers it onto today's service.

One iteration is SkyRL's pair of training calls on a 64 x 4096 batch (prompts left-padded,
responses right-padded): ``fwd_no_grad``, then ``fwd_bwd`` with the answer sent back as
``old_log_probs``. Against today's service (the canned mock's default) the legacy client
lowers both: rows left-aligned, ``old_log_probs`` moved into the predicting-position frame,
the forward sent through the ``forward`` operation (base64 in JSON, split by rows under
its caps), and every answer column put back. Against a mock serving the proposals the
same calls go as they are (``/forward-no-grad``, ``/forward-backward``). Both mocks run as
processes of this tree, iterations alternate between them, and which goes first
alternates too. Goal: the lowered median at most 10% above the proposed one. The row also
gives ``lowering_ms``, the client's own lowering work for one iteration measured alone
(rows aligned, the forward's frame in base64 JSON, answers put back). The rest of the
difference is today's service itself as the mock plays it: no long poll, so each request
is a submit and a poll (the poll planner sends it when requests of the kind have been
ending); the forward's JSON body parsed, its base64 checked and decoded, by the service;
and the forward-backward's log-probs answered as nested lists of JSON numbers, which the
service writes and the client reads (a few hundred milliseconds at this size, most of
the difference). What the lowered path saves against it: positions the service derives
itself are not sent, and no entropy is computed.

The batch is over the proposed cost budget (rows x width² above 2^26), which today's
service does not have: the proposed mock runs without it, and the proposed client's own
check is skipped, so the row measures the two paths, not the budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from typing import Any

from benchmarks._goals import judge, load1
from benchmarks._mock import running

SHAPE = (64, 4096)
ITERATIONS = 6
WARMUP = 2
GOAL_RATIO = 1.10
TRAINING_GPUS = 8


def skyrl_batch(rows: int, width: int) -> dict[str, Any]:
    """SkyRL's repacked batch: prompts left-padded to P, responses right-padded to R."""
    import torch

    gen = torch.Generator().manual_seed(0)
    half = width // 2
    ids = torch.randint(1, 256, (rows, width), generator=gen)
    attention = torch.zeros(rows, width, dtype=torch.long)
    response = torch.zeros(rows, width, dtype=torch.long)
    for i in range(rows):
        prompt = half - (i * 37) % (half // 2)
        answer = half - (i * 53) % (half // 2)
        attention[i, half - prompt : half + answer] = 1
        response[i, half : half + answer] = 1
    ids = ids * attention
    return {
        "input_ids": ids,
        "attention_mask": attention,
        "position_ids": (attention.cumsum(1) - 1).clamp(min=0),
        "response_mask": response,
        "loss_mask": response,
        "advantages": torch.randn(rows, 1, generator=gen) * response,
    }


def legacy_client(base_url: str, token_env: str, service: str) -> Any:
    from arctic_rl import ArcticRLClientConfig, create_arctic_rl_client

    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=TRAINING_GPUS,
        cortex={"base_url": base_url, "pat_env": token_env, "progress": False,
                "service": service, "long_poll_s": 2},
    )  # fmt: skip
    config._token_layout = "skyrl"
    client = create_arctic_rl_client(config)
    if service == "proposed":  # the proposed budget would refuse the batch before it leaves
        client.client.aio.service.serves_proposals = False
    return client


async def iteration(client: Any, batch: dict[str, Any]) -> float:
    started = time.perf_counter()
    forward = {k: batch[k] for k in ("input_ids", "attention_mask", "position_ids")}
    meta = {"temperature": 1.0}
    old = await client.fwd_no_grad({"batch": forward, "meta": meta})
    train = {**batch, "old_log_probs": old["batch"]["logprobs"]}
    processing = {"post": ["compute_logprobs"], "loss_fn": "verl_grpo"}
    await client.fwd_bwd({"batch": train, "meta": meta, "processing": processing})
    return time.perf_counter() - started


def lowering_seconds(batch: dict[str, Any]) -> float:
    """The client's own lowering work for one iteration, alone: both requests lowered, the
    forward's frames encoded as base64 JSON, both answers put back (a made-up answer)."""

    import torch

    from arctic_rl.shared import (
        SKYRL,
        Notes,
        answered,
        envelope,
        forward_request,
        lower_forward,
        lower_forward_backward,
        row_parts,
    )

    notes = Notes()
    started = time.perf_counter()
    model = {k: batch[k] for k in ("input_ids", "attention_mask", "position_ids")}
    forward = lower_forward(forward_request({"batch": model}), min_rows=TRAINING_GPUS, notes=notes)
    for frame in row_parts(forward.body, min_rows=TRAINING_GPUS):
        envelope(frame, None)
    answer = {"logprobs": torch.zeros(SHAPE)}
    old = answered(forward, answer, notes)["logprobs"]
    request = {"batch": {**batch, "old_log_probs": old}, "processing": {"loss_fn": "verl_grpo"}}
    lowered = lower_forward_backward(
        SKYRL.to_contract(forward_request(request)), min_rows=TRAINING_GPUS, notes=notes
    )
    answered(lowered, answer, notes)
    return time.perf_counter() - started


def run() -> list[dict[str, Any]]:
    batch = skyrl_batch(*SHAPE)
    times: dict[str, list[float]] = {"today": [], "proposed": []}
    with contextlib.ExitStack() as stack:
        clients: dict[str, Any] = {}
        # Each client reads its mock's token (in the one PAT_ENV) before the next starts.
        for name, mock in (("today", running(service="today")),
                           ("proposed", running(service="proposed", unbudgeted=True))):  # fmt: skip
            started = stack.enter_context(mock)
            clients[name] = legacy_client(started.base_url, started.token_env, name)
            stack.callback(clients[name].shutdown)
        for index in range(WARMUP + ITERATIONS):
            order = ("today", "proposed") if index % 2 == 0 else ("proposed", "today")
            for name in order:
                seconds = asyncio.run(iteration(clients[name], batch))
                if index >= WARMUP:
                    times[name].append(seconds)
    own = statistics.median(lowering_seconds(batch) for _ in range(ITERATIONS))
    lowered, plain = statistics.median(times["today"]), statistics.median(times["proposed"])
    ratio = lowered / plain
    row = {
        "case": f"SkyRL {SHAPE[0]}x{SHAPE[1]} fwd_no_grad + fwd_bwd, lowered vs proposed",
        "n": ITERATIONS,
        "median_ms": round(lowered * 1000, 1),
        "ref_median_ms": round(plain * 1000, 1),
        "lowering_ms": round(own * 1000, 1),
        "ratio": round(ratio, 3),
        "load1": load1(),
    }
    return [judge(row, f"lowered <= {GOAL_RATIO}x proposed", (ratio, "<=", GOAL_RATIO))]
