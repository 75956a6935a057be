"""What the per-token layout tests build and check: rows, each framework's batch, PPO metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
import torch

import arctic_rl
from arctic_rl import ArcticRLClientConfig

from .conftest import PAT_ENV

PROMPTS = (b"Say it: ", b"2 + 2 =", b"hi")


RESPONSES = (b"aaab", b"4", b"there!")


PAD = 0


TRAIN_POST = {"post": ["apply_temperature", "compute_entropy_and_logprobs"], "loss_fn": "verl_grpo"}


FORWARD_POST = {"post": ["compute_entropy_and_logprobs"], "loss_fn": None}


FORWARD_KEYS = ("input_ids", "attention_mask", "prompts", "position_ids")


Rows = dict[str, torch.Tensor]


def cortex_settings(mock: Any) -> dict[str, Any]:
    return {"base_url": mock.base_url, "pat_env": PAT_ENV, "long_poll_s": 2}


def framework_config(**fields: Any) -> ArcticRLClientConfig:
    """What the frameworks build: backend "local", no cortex block."""
    return ArcticRLClientConfig(model_name="tiny-byte-lm", training_gpus=1, **fields)


def dense_rows() -> Rows:
    """Left-padded prompts, right-padded responses: `[B, P+R]`, response_mask `[B, R]`."""
    width_p, width_r = max(map(len, PROMPTS)), max(map(len, RESPONSES))
    rows = len(PROMPTS)
    ids = torch.full((rows, width_p + width_r), PAD, dtype=torch.long)
    attention = torch.zeros_like(ids)
    response_mask = torch.zeros(rows, width_r, dtype=torch.long)
    for i, (p, r) in enumerate(zip(PROMPTS, RESPONSES, strict=True)):
        ids[i, width_p - len(p) : width_p] = torch.tensor(list(p))
        ids[i, width_p : width_p + len(r)] = torch.tensor(list(r))
        attention[i, width_p - len(p) : width_p + len(r)] = 1
        response_mask[i, : len(r)] = 1
    return {
        "input_ids": ids,
        "attention_mask": attention,
        "position_ids": (attention.cumsum(1) - 1).clamp(min=0),
        "prompts": ids[:, :width_p],
        "responses": ids[:, width_p:],
        "response_mask": response_mask,
    }


def row_slice(rows: Rows, start: int, stop: int) -> Rows:
    return {name: t[start:stop] for name, t in rows.items()}


def left_pad(t: torch.Tensor, width: int) -> torch.Tensor:
    """Both frameworks' `_left_pad`: zeros in front up to `width` (a no-op when as wide)."""
    missing = width - t.shape[-1]
    return t if missing <= 0 else torch.cat([t.new_zeros(t.shape[0], missing), t], dim=-1)


def advantages(response_mask: torch.Tensor) -> torch.Tensor:
    """Distinct advantages of both signs on every response token, `[B, R]`."""
    values = torch.linspace(-1.5, 1.0, response_mask.numel()).reshape(response_mask.shape)
    return values * response_mask


def meta(rows: Rows) -> dict[str, Any]:
    return {
        "pad_token_id": PAD,
        "temperature": 1.0,
        "batch_num_tokens": rows["response_mask"].sum(),
        "global_batch_size": rows["input_ids"].shape[0],
        "actor_config": {"loss_agg_mode": "token-mean", "clip_ratio": 0.2, "use_kl_loss": True},
        "policy_loss_config": {"loss_mode": "vanilla", "kl_loss_type": "low_var_kl"},
    }


async def answers(client: Any, rows: Rows) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy's and the reference's `[B, T]` log-prob answers, as both frameworks ask."""
    payload = {"batch": {k: rows[k] for k in FORWARD_KEYS}, "processing": FORWARD_POST}
    policy = await client.fwd_no_grad({**payload, "meta": meta(rows)}, reference_model=False)
    reference = await client.fwd_no_grad({**payload, "meta": meta(rows)}, reference_model=True)
    return policy["batch"]["logprobs"], reference["batch"]["log_probs"]


def response_scores(answer: torch.Tensor, rows: Rows, shift: int = 0) -> torch.Tensor:
    """verl's `no_padding_2_padding` on a dense answer: the values scoring the response
    tokens (column P-1+k scores token P+k), `[B, R]`, zero past each response."""
    width_p, width_r = rows["prompts"].shape[1], rows["responses"].shape[1]
    start = width_p - 1 + shift
    return answer[:, start : start + width_r] * rows["response_mask"]


def skyrl_batch(rows: Rows, old: torch.Tensor, ref: torch.Tensor) -> dict[str, Any]:
    seq = rows["input_ids"].shape[1]
    batch = {k: rows[k] for k in (*FORWARD_KEYS, "responses")}
    batch["response_mask"] = left_pad(rows["response_mask"], seq)
    batch["advantages"] = left_pad(advantages(rows["response_mask"]), seq)
    batch["old_log_probs"] = left_pad(old, seq)
    batch["ref_log_prob"] = left_pad(ref, seq)
    batch["loss_mask"] = batch["response_mask"]
    return {"batch": batch, "meta": meta(rows), "processing": TRAIN_POST}


def verl_batch(rows: Rows, old: Any, ref: Any, *, padded: bool = True) -> dict[str, Any]:
    seq = rows["input_ids"].shape[1] if padded else 0
    batch = {k: rows[k] for k in (*FORWARD_KEYS, "responses")}
    per_token = {
        "old_log_probs": old,
        "advantages": advantages(rows["response_mask"]),
        "response_mask": rows["response_mask"],
        "ref_log_prob": ref,
    }
    batch.update({name: left_pad(t, seq) for name, t in per_token.items()})
    batch["loss_mask"] = batch["response_mask"]
    step_meta = {**meta(rows), "rollout_is_weights": torch.ones(rows["response_mask"].shape)}
    return {"batch": batch, "meta": step_meta, "processing": TRAIN_POST}


def minus_mean_advantage(rows: Rows) -> float:
    """The token-mean policy loss at ratio 1: -sum(A * mask) / tokens."""
    mask = rows["response_mask"].float()
    return float(-(advantages(rows["response_mask"]) * mask).sum() / mask.sum())


Build = Callable[[Rows, torch.Tensor, torch.Tensor], dict[str, Any]]


def train_metrics(client: Any, build: Build, rows: Rows | None = None) -> dict[str, float]:
    """One fwd_bwd of `build(rows, old answer, reference answer)`; its metrics."""
    rows = dense_rows() if rows is None else rows

    async def run() -> dict[str, float]:
        old, ref = await answers(client, rows)
        return (await client.fwd_bwd(build(rows, old, ref)))["metrics"]

    return asyncio.run(run())


def assert_on_policy(metrics: dict[str, float], rows: Rows) -> None:
    invariants = (metrics["ppo_kl"], metrics["pg_clipfrac_lower"], metrics["kl_loss"])
    assert invariants == (0.0, 0.0, 0.0), metrics
    assert metrics["pg_loss"] == pytest.approx(minus_mean_advantage(rows), abs=1e-6)


def assert_off_policy(metrics: dict[str, float], rows: Rows) -> None:
    assert metrics["ppo_kl"] != 0.0, metrics
    assert metrics["kl_loss"] > 0.0, metrics
    assert metrics["pg_loss"] != pytest.approx(minus_mean_advantage(rows), abs=1e-6)


def contiguous_copy(t: torch.Tensor) -> torch.Tensor:
    return t.t().contiguous().t().contiguous()


def cloned_answers(rows: Rows, old: torch.Tensor, ref: torch.Tensor) -> dict[str, Any]:
    return skyrl_batch(rows, old.clone(), ref.clone())


def native_metrics(mock: Any, build: Build, rows: Rows) -> dict[str, float]:
    config = framework_config(backend="cortex", cortex=cortex_settings(mock))

    async def run() -> dict[str, float]:
        async with await arctic_rl.AsyncArcticRLClient.connect(config) as client:
            forward = {k: rows[k] for k in FORWARD_KEYS}
            old = await client.fwd_no_grad(forward, meta=meta(rows), processing=FORWARD_POST)
            ref = await client.fwd_no_grad(
                forward, reference_model=True, meta=meta(rows), processing=FORWARD_POST
            )
            body = build(rows, old["model_outputs"]["logprobs"], ref["model_outputs"]["logprobs"])
            return (await client.fwd_bwd(body))["metrics"]

    return asyncio.run(run())


def narrower(t: torch.Tensor) -> torch.Tensor:
    return t[:, 1:]
