"""SkyRL's Arctic trainer and generator, replayed: per iteration the calls and payloads
its `ArcticGenerator` and `_ArcticDispatch` make, with a reward (share of the byte 'a').

The dispatch runs its calls as SkyRL's does (`_run`: inside the trainer's loop, each on a
fresh loop in a worker thread); like SkyRL's, its `save_checkpoint` saves without the
folder, its `load_checkpoint` only logs and it has no `finalize_pending_saves`. The core
trainer (`skyrl.train.trainer.RayPPOTrainer`) saves, resumes and prunes around it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from typing import Any

import torch
from skyrl.train.trainer import RayPPOTrainer

PROMPTS = ("Say it: ", "Again: ")
TARGET = ord("a")
PAD = 0


def repack(prompts: list[list[int]], responses: list[list[int]]) -> dict[str, torch.Tensor]:
    """SkyRL's `_repack_to_verl_shape`: prompts left-padded to P, responses right-padded."""
    width_p = max(len(p) for p in prompts)
    width_r = max(1, max(len(r) for r in responses))
    rows = len(prompts)
    ids = torch.full((rows, width_p + width_r), PAD, dtype=torch.long)
    attention = torch.zeros_like(ids)
    response_mask = torch.zeros(rows, width_r, dtype=torch.long)
    for i, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        ids[i, width_p - len(p) : width_p] = torch.tensor(p)
        attention[i, width_p - len(p) : width_p + len(r)] = 1
        if r:
            ids[i, width_p : width_p + len(r)] = torch.tensor(r)
            response_mask[i, : len(r)] = 1
    return {
        "input_ids": ids,
        "attention_mask": attention,
        "position_ids": (attention.cumsum(1) - 1).clamp(min=0),
        "prompts": ids[:, :width_p],
        "responses": ids[:, width_p:],
        "response_mask": response_mask,
    }


def left_pad(t: torch.Tensor, width: int) -> torch.Tensor:
    """SkyRL's `_left_pad_to_seq`: a no-op for a tensor already `width` wide."""
    missing = width - t.shape[-1]
    return t if missing <= 0 else torch.cat([t.new_zeros(t.shape[0], missing), t], dim=-1)


def meta(batch: dict[str, torch.Tensor], n: int, entropy: bool) -> dict[str, Any]:
    return {
        "pad_token_id": PAD,
        "rollout_n": n,
        "max_prompt_len": batch["prompts"].shape[1],
        "max_response_len": batch["responses"].shape[1],
        "temperature": 1.0,
        "calculate_entropy": entropy,
        "drop_position_ids": False,
        "logits_optimization": "none",
        "dp_size": 1,
        "batch_num_tokens": int(batch["response_mask"].sum()),
        "global_batch_size": batch["input_ids"].shape[0],
        "rollout_is_weights": None,
        "actor_config": {"loss_agg_mode": "token-mean", "clip_ratio": 0.2, "use_kl_loss": False},
        "policy_loss_config": {"loss_mode": "vanilla"},
    }


def _run(coro: Any) -> Any:
    """SkyRL's helper: `asyncio.run`, else (inside a running loop) a fresh loop in a thread."""
    try:
        return asyncio.run(coro)
    except RuntimeError:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(
                lambda c=coro: asyncio.new_event_loop().run_until_complete(c)
            ).result()


async def iteration(client: Any, dispatch: _ArcticDispatch, cfg: dict[str, Any]) -> dict[str, Any]:
    n = cfg["generator.n_samples_per_prompt"]
    prompts = [p for p in PROMPTS for _ in range(n)]
    sampling = {
        "max_tokens": cfg["generator.sampling_params.max_generate_length"],
        "temperature": cfg["generator.sampling_params.temperature"],
    }
    outputs = await client.generate(prompts=prompts, sampling_params=sampling)
    responses = [list(o["token_ids"]) for o in outputs]
    width = sampling["max_tokens"]
    rewards = torch.tensor([sum(t == TARGET for t in r) / width for r in responses])
    groups = rewards.view(-1, n)
    adv = ((groups - groups.mean(1, keepdim=True)) / (groups.std(1, keepdim=True) + 1e-6)).view(-1)
    batch = repack([list(p.encode()) for p in prompts], responses)
    step_meta = meta(batch, n, entropy=True)
    loss_only = ("actor_config", "policy_loss_config")
    old_meta = {k: v for k, v in step_meta.items() if k not in loss_only}
    old_meta["calculate_entropy"] = False
    forward = {k: batch[k] for k in ("input_ids", "attention_mask", "prompts", "position_ids")}
    old = _run(
        dispatch.client.fwd_no_grad(
            {
                "batch": forward,
                "meta": old_meta,
                "processing": {"post": ["compute_entropy_and_logprobs"], "loss_fn": None},
            },
            reference_model=False,
        )
    )
    logprobs = old["batch"].get("logprobs")
    seq = batch["input_ids"].shape[-1]
    advantages = adv[:, None] * batch["response_mask"].float()
    train = {
        **{k: batch[k] for k in ("input_ids", "attention_mask", "prompts", "responses")},
        "position_ids": batch["position_ids"],
        "response_mask": left_pad(batch["response_mask"], seq),
        "advantages": left_pad(advantages, seq),
        "old_log_probs": left_pad(logprobs, seq),
    }
    train["loss_mask"] = train["response_mask"]
    result = _run(
        dispatch.client.fwd_bwd(
            {
                "batch": train,
                "meta": step_meta,
                "processing": {
                    "post": ["apply_temperature", "compute_entropy_and_logprobs"],
                    "loss_fn": "verl_grpo",
                },
            }
        )
    )
    metrics = result.get("metrics", result)
    assert "loss" in metrics, metrics
    step = _run(dispatch.client.step())
    assert isinstance(step.get("metrics", step), dict)
    return {
        "reward": float(rewards.mean()),
        "responses": responses,
        "policy": untimed(metrics),
        "optim": untimed(step),
    }


def untimed(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without its `timing/*` figures (they differ from run to run)."""
    return {
        k: untimed(v) if isinstance(v, dict) else v
        for k, v in answer.items()
        if k != "timing" and not k.startswith("timing/")
    }


class _ArcticDispatch:
    """SkyRL's Arctic dispatch as far as checkpoints go: its save ignores the folder, its
    load only logs, and it defines no `finalize_pending_saves`."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def save_checkpoint(self, model: str, ckpt_dir: str, tokenizer: Any = None) -> None:
        _run(self.client.save_checkpoint())

    def load_checkpoint(self, model: str, ckpt_dir: str, **kwargs: Any) -> None:
        logging.getLogger("skyrl").info("Arctic RL: load_checkpoint for %s, delegated", model)

    async def save_weights_for_sampler(self) -> None:
        await self.client.sync_weights(cuda_ipc=False, low_memory=False)


class ArcticPPOTrainer(RayPPOTrainer):
    def __init__(self, cfg: dict[str, Any], client: Any) -> None:
        self._client = client
        self.rewards: list[float] = []
        super().__init__(cfg)

    def build_models(self) -> None:
        self.dispatch = _ArcticDispatch(self._client)

    async def run_step(self) -> dict[str, Any]:
        metrics = await iteration(self._client, self.dispatch, self.cfg)
        self.rewards.append(metrics["reward"])
        return metrics


def train(client: Any, cfg: dict[str, Any], iterations: int) -> list[float]:
    """This process's rewards, one per step it ran (a resumed run starts after its save)."""
    trainer = ArcticPPOTrainer(type(cfg)({**cfg, "trainer.total_steps": iterations}), client)
    asyncio.run(trainer.train())
    return trainer.rewards
