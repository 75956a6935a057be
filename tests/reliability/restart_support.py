"""A job's state before and after a restart: the training steps and the fingerprint compared."""

from __future__ import annotations

from typing import Any

import torch

from devtools.live_mock import MockApi

PROBE = {"prompts": ["abcde", "xyz"], "completions": ["fgh", "uvw"]}


def update_batch(seed: int) -> dict[str, Any]:
    """A small GRPO batch whose advantages differ per ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 256, (4, 10), generator=gen)
    return {
        "args": [],
        "kwargs": {
            "input_ids": ids,
            "attention_mask": torch.ones_like(ids),
            "responses": ids[:, 5:],
            "response_mask": torch.ones(4, 5, dtype=torch.int64),
            "advantages": torch.randn(4, 5, generator=gen),
            "old_log_probs": torch.full((4, 5), -6.0),
        },
        "meta": {},
        "processing": {"loss_fn": "grpo", "config": {}},
    }


def train_step(api: MockApi, job_id: str, seed: int) -> dict[str, Any]:
    """forward-backward then step; returns the step's result."""
    api.run_frame(job_id, "forward-backward", update_batch(seed))
    return dict(api.run(job_id, "step", {}))


def fingerprint(api: MockApi, job_id: str) -> dict[str, Any]:
    """What the job's three weight sets answer: policy, frozen reference, sampling copy."""
    probe = update_batch(99)
    policy = api.run_frame(job_id, "forward-no-grad", probe)["model_outputs"]["logprobs"]
    reference = api.run_frame(job_id, "forward-no-grad", {**probe, "reference_model": True})
    sampler = api.run(job_id, "log-probs", PROBE)
    return {
        "policy": policy,
        "reference": reference["model_outputs"]["logprobs"],
        "sampler": sampler["logprobs"],
    }


def assert_same(left: dict[str, Any], right: dict[str, Any]) -> None:
    """Bit-for-bit equal fingerprints."""
    assert left.keys() == right.keys()
    for name in left:
        a, b = left[name], right[name]
        pairs = zip(a, b, strict=True) if isinstance(a, list) else [(a, b)]
        assert all(torch.equal(x, y) for x, y in pairs), f"{name} weights differ"
