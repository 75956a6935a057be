"""Stock grpo on the reference backend, in-process: the numbers today's service computes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from arctic_rl_mock.backends.reference import ReferenceBackend

from .backend_jobs import sub_jobs

ROWS, WIDTH = 8, 12


def prepared(tmp_path: Path, name: str) -> ReferenceBackend:
    backend = ReferenceBackend()
    backend.prepare_job(name, sub_jobs(seed=3, lr=1e-2), tmp_path / name)
    return backend


def rows(bsz: int = ROWS, seed: int = 0) -> dict[str, torch.Tensor]:
    """Left-aligned rows of different lengths, a loss mask over each row's answer."""
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 256, (bsz, WIDTH), generator=gen)
    lengths = torch.randint(WIDTH // 2, WIDTH + 1, (bsz,), generator=gen)
    attention = (torch.arange(WIDTH)[None, :] < lengths[:, None]).to(torch.int64)
    ids = ids * attention
    loss_mask = attention.bool() & (torch.arange(WIDTH)[None, :] >= 3)
    return {
        "input_ids": ids,
        "attention_mask": attention,
        "advantages": torch.randn(bsz, WIDTH, generator=gen),
        "loss_mask": loss_mask,
    }


def grpo_frame(tensors: dict[str, torch.Tensor], **config: Any) -> dict[str, Any]:
    context = {k: tensors[k] for k in ("input_ids", "advantages", "loss_mask")}
    if "old_log_probs_shifted" in tensors:
        context["old_log_probs_shifted"] = tensors["old_log_probs_shifted"]
    return {
        "args": (),
        "kwargs": {k: tensors[k] for k in ("input_ids", "attention_mask")},
        "context": context,
        "processing": {"post": ["compute_logprobs"], "loss_fn": "grpo", "config": config},
    }


def part(tensors: dict[str, torch.Tensor], start: int, end: int) -> dict[str, torch.Tensor]:
    return {k: v[start:end] for k, v in tensors.items()}


def weights(backend: ReferenceBackend, name: str) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in backend._job(name).policy.state_dict().items()}


def test_without_old_log_probs_the_ratio_is_exactly_one(tmp_path: Path) -> None:
    backend = prepared(tmp_path, "j")
    tensors = rows()
    tokens = int(tensors["loss_mask"][:, :-1].sum())
    result = backend.forward_backward("j", grpo_frame(tensors, batch_num_tokens=tokens))
    assert result["metrics"] == {"importance_weight": 1.0, "clip_ratio": 0.0}
    # ratio 1: the loss is -sum(advantages over the counted predicting columns) / tokens
    counted = tensors["loss_mask"][:, :-1] & tensors["attention_mask"][:, 1:].bool()
    expected = -(tensors["advantages"][:, :-1] * counted).sum() / tokens
    assert abs(result["loss"] - float(expected)) < 1e-5


def test_splitting_a_batch_changes_no_bit_of_the_update(tmp_path: Path) -> None:
    tensors = rows()
    config = {"batch_num_tokens": int(tensors["loss_mask"].sum()), "global_batch_size": ROWS}
    whole, split = prepared(tmp_path, "whole"), prepared(tmp_path, "split")
    whole.forward_backward("whole", grpo_frame(tensors, **config))
    for start in (0, ROWS // 2):
        split.forward_backward(
            "split", grpo_frame(part(tensors, start, start + ROWS // 2), **config)
        )
    whole.step("whole", None)
    split.step("split", None)
    before = weights(prepared(tmp_path, "fresh"), "fresh")
    after_whole, after_split = weights(whole, "whole"), weights(split, "split")
    assert any(not torch.equal(after_whole[k], before[k]) for k in before)  # it trained
    assert all(torch.equal(after_whole[k], after_split[k]) for k in before)


def test_pi_old_is_read_in_the_predicting_frame(tmp_path: Path) -> None:
    """The service's own forward sent back as old_log_probs_shifted: ratio exactly 1.
    The same numbers one column off: the ratio moves (a frame bug shows)."""
    backend = prepared(tmp_path, "j")
    tensors = rows()
    forward = {
        "args": (),
        "kwargs": {k: tensors[k] for k in ("input_ids", "attention_mask")},
        "context": {"input_ids": tensors["input_ids"]},
        "processing": {"post": ["compute_logprobs"], "loss_fn": None},
    }
    own = backend.forward_no_grad("j", forward)["model_outputs"]["logprobs"]
    trained = backend.forward_backward("j", grpo_frame({**tensors, "old_log_probs_shifted": own}))
    assert torch.equal(trained["post_process_outputs"]["logprobs"], own)
    assert trained["metrics"]["importance_weight"] == 1.0
    shifted = torch.roll(own, 1, dims=1)
    off = backend.forward_backward("j", grpo_frame({**tensors, "old_log_probs_shifted": shifted}))
    assert abs(off["metrics"]["importance_weight"] - 1.0) > 1e-3


def test_eps_clip_bounds_the_ratio_and_entropy_and_dp_size_change_the_loss(
    tmp_path: Path,
) -> None:
    backend = prepared(tmp_path, "j")
    tensors = rows()
    far = {**tensors, "old_log_probs_shifted": torch.full((ROWS, WIDTH), -50.0)}
    clipped = backend.forward_backward("j", grpo_frame(far, eps_clip=0.2))
    assert clipped["metrics"]["clip_ratio"] == 1.0
    plain = backend.forward_backward("j", grpo_frame(tensors))["loss"]
    halved = backend.forward_backward("j", grpo_frame(tensors, dp_size=2))["loss"]
    assert abs(halved - plain / 2) < 1e-6 and plain != 0.0
    entropic = backend.forward_backward("j", grpo_frame(tensors, entropy_coeff=0.1))["loss"]
    assert entropic < plain  # minus a positive entropy term
