"""The reference backend takes a real tokenizer's ids and a recipe's sequence lengths: an id
far above the byte range is learned and then sampled, rows longer than 4,096 tokens score
alike with or without left padding, and the factored model's top-k is the exact one."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from arctic_rl_mock.backends import BackendError
from arctic_rl_mock.backends.common import VOCAB_SIZE
from arctic_rl_mock.backends.reference import ReferenceBackend

WORD = 262_143  # the last id of a 262,144-id vocabulary (Gemma's)
JOB = "job-v"


@pytest.fixture
def backend(tmp_path: Path) -> ReferenceBackend:
    made = ReferenceBackend(device="cpu")
    training = {"optimizer": {"lr": 5e-2}, "max_seq_len": 8192, "n_gpus": 1}
    jobs = [
        {"job_type": "training", "model_name": "m", "seed": 3, "training_config": training},
        {"job_type": "sampling", "model_name": "m", "inference_config": {"n_gpus": 1}},
    ]
    made.prepare_job(JOB, jobs, tmp_path / JOB)
    return made


def test_a_high_id_is_learned_and_then_sampled(backend: ReferenceBackend) -> None:
    ids = torch.full((2, 8), WORD)
    losses = []
    for _ in range(40):  # the service's minimal frame: cross-entropy on the next token
        losses.append(backend.forward_backward(JOB, {"kwargs": {"input_ids": ids}})["loss"])
        backend.step(JOB, None)
    assert losses[0] > 20.0 and losses[-1] < 1.0, losses
    backend.sync_weights(JOB, {})
    params = {"max_tokens": 3, "temperature": 0.0}
    greedy = backend.generate(JOB, {"prompts": [[WORD] * 4], "sampling_params": params})
    assert greedy["results"][0]["token_ids"] == [WORD] * 3
    sampled = backend.generate(
        JOB, {"prompts": [[WORD] * 4], "sampling_params": {"max_tokens": 8, "seed": 1}}
    )
    assert sampled["results"][0]["token_ids"].count(WORD) >= 6


def test_long_rows_score_alike_with_or_without_left_padding(backend: ReferenceBackend) -> None:
    gen = torch.Generator().manual_seed(0)
    tokens = torch.randint(150_000, WORD + 1, (4_100,), generator=gen)
    pad = 100
    ids = torch.stack([tokens, torch.cat([torch.zeros(pad, dtype=torch.long), tokens[:-pad]])])
    attention = torch.ones_like(ids)
    attention[1, :pad] = 0
    answer = backend.forward_no_grad(
        JOB, {"kwargs": {"input_ids": ids, "attention_mask": attention}}
    )
    logprobs = answer["model_outputs"]["logprobs"]
    assert logprobs.shape == (2, 4_100) and bool(torch.isfinite(logprobs).all())
    # Column i scores token i + 1: the padded row's token pad + i is the full row's token i.
    width = 4_100 - pad - 1
    assert torch.allclose(logprobs[1, pad : pad + width], logprobs[0, :width], atol=1e-4)


def test_log_probs_top_k_is_the_exact_top_k_over_every_id(backend: ReferenceBackend) -> None:
    prompt = [WORD, 151_643, 97, 200_000, 5]
    answer = backend.log_probs(JOB, {"prompts": [prompt], "top_k": 7})
    model = backend._jobs[JOB].sampler
    ids = torch.tensor([prompt])
    with torch.no_grad():
        dense = model(ids, torch.ones_like(ids)).dense().double().log_softmax(-1)
    assert torch.equal(answer["top_k_token_ids"][0], dense[0, :-1].topk(7, dim=-1).indices)


def test_ids_beyond_the_vocabulary_are_refused(backend: ReferenceBackend) -> None:
    ids = torch.tensor([[1, VOCAB_SIZE]])
    with pytest.raises(BackendError, match=rf"input_ids must lie in \[0, {VOCAB_SIZE}\)"):
        backend.forward_no_grad(JOB, {"kwargs": {"input_ids": ids}})


@pytest.mark.parametrize("padded_rows", [1, 2])
def test_rows_without_an_attended_token_still_score(
    backend: ReferenceBackend, padded_rows: int
) -> None:
    """A batch's padding rows (some or all of them) come back finite, as before."""
    ids = torch.tensor([[7, 8, 9], [WORD, 5, 6]])
    attention = torch.ones_like(ids)
    attention[:padded_rows] = 0
    batch = {"kwargs": {"input_ids": ids, "attention_mask": attention}}
    logprobs = backend.forward_no_grad(JOB, batch)["model_outputs"]["logprobs"]
    assert logprobs.shape == (2, 3) and bool(torch.isfinite(logprobs).all())
