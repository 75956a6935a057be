"""The reference backend really learns: a 30-iteration GRPO loop over raw HTTP.

Task: make the tiny byte-level LM emit the letter ``a``. Reward of a completion is the
share of its tokens equal to ``a``; advantages are group-normalised per prompt (GRPO).
Each iteration samples from the sampling copy (generate), trains (forward-backward with
the sampler's log-probs as old log-probs), steps and syncs weights, exactly the calls a
real RL driver makes. Seeded, so the numbers are the same on every run.
"""

from __future__ import annotations

from typing import Any

import torch

from arctic_rl import wire
from devtools.live_mock import LiveMock, MockApi

TARGET = ord("a")
PROMPTS = ["Q: ", "say: ", "> ", "go "]
GROUP = 8
MAX_TOKENS = 12
ITERATIONS = 30


def rollout_batch(
    prompts: list[str], results: list[dict[str, Any]], advantages: torch.Tensor
) -> dict[str, Any]:
    """Left-padded prompts + right-padded responses, verl-style [B, R] tensors."""
    prompt_ids = [list(p.encode()) for p in prompts]
    width_p = max(len(p) for p in prompt_ids)
    bsz = len(results)
    ids = torch.zeros(bsz, width_p + MAX_TOKENS, dtype=torch.int64)
    attn = torch.zeros_like(ids)
    mask = torch.zeros(bsz, MAX_TOKENS, dtype=torch.int64)
    old = torch.zeros(bsz, MAX_TOKENS)
    for row, (prompt, result) in enumerate(zip(prompt_ids, results, strict=True)):
        tokens = result["token_ids"]
        ids[row, width_p - len(prompt) : width_p] = torch.tensor(prompt)
        attn[row, width_p - len(prompt) : width_p + len(tokens)] = 1
        ids[row, width_p : width_p + len(tokens)] = torch.tensor(tokens)
        mask[row, : len(tokens)] = 1
        old[row, : len(tokens)] = torch.tensor(result["logprobs"])
    return {
        "args": [],
        "kwargs": {
            "input_ids": ids,
            "attention_mask": attn,
            "position_ids": (attn.cumsum(-1) - 1).clamp(min=0),
            "prompts": ids[:, :width_p],
            "responses": ids[:, width_p:],
            "response_mask": mask,
            "advantages": advantages[:, None] * mask,
            "old_log_probs": old,
        },
        "meta": {"global_batch_size": bsz},
        "processing": {"post": ["logprobs"], "loss_fn": "grpo", "config": {"clip_ratio": 0.2}},
    }


def test_grpo_loop_raises_reward(proposed_reference_mock: LiveMock) -> None:
    proposed_api = MockApi(proposed_reference_mock)
    job_id = proposed_api.create_job(seed=7, lr=1e-2, gradient_clipping=1.0)
    prompts = [p for p in PROMPTS for _ in range(GROUP)]
    rewards_per_iter: list[float] = []
    for _ in range(ITERATIONS):
        generated = proposed_api.run_frame(
            job_id,
            "generate",
            {"prompts": prompts, "sampling_params": {"max_tokens": MAX_TOKENS, "temperature": 1.0}},
        )["results"]
        rewards = torch.tensor(
            [
                sum(t == TARGET for t in r["token_ids"]) / max(len(r["token_ids"]), 1)
                for r in generated
            ]
        )
        rewards_per_iter.append(float(rewards.mean()))
        grouped = rewards.view(len(PROMPTS), GROUP)
        advantages = (
            (grouped - grouped.mean(1, keepdim=True)) / (grouped.std(1, keepdim=True) + 1e-6)
        ).view(-1)
        batch = rollout_batch(prompts, generated, advantages)
        out = proposed_api.run_frame(job_id, "forward-backward", batch)
        # Old log-probs came from the synced sampler, so the policy starts each update on-policy.
        assert abs(out["metrics"]["ppo_kl"]) < 1e-3
        # The roll layout of the service's post-processors: [B, T], like input_ids.
        assert out["post_process_outputs"]["logprobs"].shape == batch["kwargs"]["input_ids"].shape
        step = proposed_api.run(job_id, "step", {})
        assert step["metrics"]["grad_norm"] >= 0.0
        proposed_api.run(job_id, "sync-weights", {})
    first, last = sum(rewards_per_iter[:5]) / 5, sum(rewards_per_iter[-5:]) / 5
    assert last > first + 0.3, rewards_per_iter
    proposed_api.close()


def test_generation_changes_only_after_sync(proposed_reference_mock: LiveMock) -> None:
    proposed_api = MockApi(proposed_reference_mock)
    job_id = proposed_api.create_job(seed=3, lr=5e-2)
    request = {"prompts": ["abc"] * 4, "sampling_params": {"max_tokens": 8, "seed": 11}}
    before = proposed_api.run_frame(job_id, "generate", request)
    prompts = ["abc"] * 4
    batch = rollout_batch(prompts, before["results"], torch.tensor([1.0, -1.0, 1.0, -1.0]))
    for _ in range(3):
        proposed_api.run_frame(job_id, "forward-backward", batch)
        proposed_api.run(job_id, "step", {})
    assert proposed_api.run_frame(job_id, "generate", request) == before
    assert proposed_api.run(job_id, "sync-weights", {})["version"] == 1
    after = proposed_api.run_frame(job_id, "generate", request)
    assert after["results"] != before["results"]
    proposed_api.close()


def test_forward_no_grad_reference_model_stays_frozen(proposed_reference_mock: LiveMock) -> None:
    proposed_api = MockApi(proposed_reference_mock)
    job_id = proposed_api.create_job(seed=5, lr=5e-2)
    prompts = ["xyz"] * 4
    generated = proposed_api.run_frame(
        job_id, "generate", {"prompts": prompts, "sampling_params": {"max_tokens": 6}}
    )
    batch = rollout_batch(prompts, generated["results"], torch.tensor([1.0, -1.0, 0.5, -0.5]))
    probe = {k: batch[k] for k in ("args", "meta")} | {"kwargs": dict(batch["kwargs"])}
    ref0 = proposed_api.run_frame(job_id, "forward-no-grad", {**probe, "reference_model": True})
    pol0 = proposed_api.run_frame(job_id, "forward-no-grad", probe)
    assert torch.allclose(ref0["model_outputs"]["logprobs"], pol0["model_outputs"]["logprobs"])
    proposed_api.run_frame(job_id, "forward-backward", batch)
    proposed_api.run(job_id, "step", {})
    ref1 = proposed_api.run_frame(job_id, "forward-no-grad", {**probe, "reference_model": True})
    pol1 = proposed_api.run_frame(job_id, "forward-no-grad", probe)
    assert torch.equal(ref1["model_outputs"]["logprobs"], ref0["model_outputs"]["logprobs"])
    assert not torch.allclose(pol1["model_outputs"]["logprobs"], pol0["model_outputs"]["logprobs"])
    assert wire.dumps(ref1) == wire.dumps(ref0)
    proposed_api.close()
