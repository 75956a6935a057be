"""Backends in-process: shapes and keys of the canned one, real numbers of the reference one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from arctic_rl_mock.backends import Backend, BackendError, make_backend
from arctic_rl_mock.backends.canned import CannedBackend
from arctic_rl_mock.backends.reference import ReferenceBackend, TinyLM

from arctic_rl import wire

from .backend_jobs import sub_jobs

METRICS = {"grad_norm", "ppo_kl", "pg_clipfrac_lower", "pg_loss", "kl_loss", "kl_coef"}
# The committed copy of the golden frames, so no run depends on shared/.
GOLDEN_BATCH = Path(__file__).resolve().parents[1] / "wire" / "golden" / "fwd_bwd_batch.bin"


def batch(
    seed: int = 0, bsz: int = 3, prompt: int = 4, response: int = 5, **extra: Any
) -> dict[str, Any]:
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 256, (bsz, prompt + response), generator=gen)
    kwargs = {
        "input_ids": ids,
        "attention_mask": torch.ones_like(ids),
        "position_ids": torch.arange(prompt + response).repeat(bsz, 1),
        "responses": ids[:, prompt:],
        "response_mask": torch.ones(bsz, response, dtype=torch.int64),
        "advantages": torch.randn(bsz, response, generator=gen),
        "old_log_probs": torch.full((bsz, response), -5.0),
        **extra,
    }
    return {
        "args": [],
        "kwargs": kwargs,
        "meta": {},
        "processing": {"loss_fn": "grpo", "config": {}},
    }


@pytest.fixture
def reference(tmp_path: Path) -> ReferenceBackend:
    backend = ReferenceBackend(device="cpu")
    backend.prepare_job("job-r", sub_jobs(seed=1), tmp_path / "job-r")
    return backend


def test_both_backends_satisfy_the_protocol() -> None:
    for name in ("canned", "reference"):
        assert isinstance(make_backend(name, device="cpu"), Backend)
    with pytest.raises(ValueError):
        make_backend("nope")


def test_canned_answers_have_contract_shapes(tmp_path: Path) -> None:
    backend = CannedBackend()
    backend.prepare_job("job-c", sub_jobs(lr=3e-4), tmp_path)
    out = backend.forward_backward("job-c", batch())
    assert set(out["metrics"]) == METRICS and {"avg_loss", "loss"} <= set(out)
    assert out["post_process_outputs"]["logprobs"].shape == (3, 9)  # roll layout: [B, T]
    assert out["post_process_outputs"]["logprobs"].dtype == torch.float32
    no_resp = batch()
    del no_resp["kwargs"]["responses"], no_resp["kwargs"]["response_mask"]
    fwd = backend.forward_no_grad("job-c", no_resp)["model_outputs"]
    assert fwd["logprobs"].shape == fwd["entropy"].shape == (3, 9)
    assert backend.step("job-c", None) == {
        "global_steps": 1,
        "last_lr": 3e-4,
        "metrics": out["metrics"],
    }
    assert backend.step("job-c", 0.5)["last_lr"] == 0.5
    gen = backend.generate(
        "job-c", {"prompts": ["ab", [1, 2, 3]], "sampling_params": {"max_tokens": 5}}
    )
    assert [r["token_ids"] for r in gen["results"]] == [[97, 98, 97, 98, 97], [1, 2, 3, 1, 2]]
    assert gen["results"][0]["text"] == "ababa"
    twice = backend.generate(
        "job-c", {"prompts": ["x", "y"], "sampling_params": {"n": 2, "max_tokens": 1}}
    )
    assert [r["text"] for r in twice["results"]] == ["x", "x", "y", "y"]
    lp = backend.log_probs("job-c", {"prompts": ["abc"], "completions": ["de"], "top_k": 2})
    assert lp["logprobs"][0].shape == (2,) and lp["top_k_token_ids"][0].shape == (2, 2)
    synced = backend.sync_weights("job-c", {})
    assert synced == {
        "synced_sub_job_ids": ["job-c:sampling:0"],
        "weight_format": "vllm",  # the service's default
        "version": 1,
    }


def test_reference_logprobs_are_shifted(reference: ReferenceBackend) -> None:
    data = batch()
    out = reference.forward_no_grad("job-r", data)["model_outputs"]
    ids = data["kwargs"]["input_ids"]
    model: TinyLM = reference._jobs["job-r"].policy
    with torch.no_grad():
        logp = model(ids, torch.ones_like(ids)).dense().double().log_softmax(-1)
    # Roll layout: logprobs[:, i] scores input_ids[:, i + 1]; the wrapped last column is 0.
    expected = logp[:, :-1].gather(-1, ids[:, 1:, None]).squeeze(-1).float()
    assert torch.allclose(out["logprobs"][:, :-1], expected, atol=1e-5)
    assert bool((out["logprobs"][:, -1] == 0).all())
    assert out["entropy"].shape == (3, 9) and bool((out["entropy"][:, :-1] > 0).all())


def test_minimal_frame_trains_with_cross_entropy_over_labels(reference: ReferenceBackend) -> None:
    """The service's minimal {input_ids, labels} frame: labels pick each position's target."""
    ids = torch.tensor([[5, 6, 7, 8], [9, 10, 11, 12]])
    labels = torch.tensor([[6, 7, 8, -100], [30, -100, 40, -100]])
    model: TinyLM = reference._jobs["job-r"].policy
    with torch.no_grad():
        logp = model(ids, torch.ones_like(ids)).dense().double().log_softmax(-1)
    kept = [(0, 0, 6), (0, 1, 7), (0, 2, 8), (1, 0, 30), (1, 2, 40)]
    expected = -sum(float(logp[b, i, t]) for b, i, t in kept) / len(kept)
    out = reference.forward_backward(
        "job-r", {"args": [], "kwargs": {"input_ids": ids, "labels": labels}}
    )
    assert out["loss"] == pytest.approx(expected, rel=1e-5)
    with pytest.raises(BackendError, match="needs advantages"):
        reference.forward_backward(
            "job-r", {"kwargs": {"input_ids": ids}, "processing": {"loss_fn": "grpo"}}
        )
    with pytest.raises(BackendError, match="labels must match"):
        reference.forward_backward("job-r", {"kwargs": {"input_ids": ids, "labels": labels[:, :2]}})


def test_reference_is_deterministic_per_seed(tmp_path: Path) -> None:
    def trace(seed: int) -> bytes:
        backend = ReferenceBackend(device="cpu")
        backend.prepare_job("job-d", sub_jobs(seed=seed), tmp_path / "job-d")
        results = [backend.forward_backward("job-d", batch()), backend.step("job-d", None)]
        backend.sync_weights("job-d", {})
        results.append(
            backend.generate("job-d", {"prompts": ["hi"] * 3, "sampling_params": {"max_tokens": 6}})
        )
        return wire.dumps(results)

    assert trace(3) == trace(3)
    backend = ReferenceBackend(device="cpu")
    backend.prepare_job("job-n", sub_jobs(), tmp_path / "job-n")
    request = {"prompts": ["a", "b"], "sampling_params": [{"n": 3}, {"n": 1, "max_tokens": 2}]}
    lengths = [len(r["token_ids"]) for r in backend.generate("job-n", request)["results"]]
    assert len(lengths) == 4 and lengths[-1] <= 2
    assert trace(3) != trace(4)


def test_gradients_accumulate_until_step(reference: ReferenceBackend) -> None:
    first = reference.forward_backward("job-r", batch())["metrics"]["grad_norm"]
    second = reference.forward_backward("job-r", batch())["metrics"]["grad_norm"]
    assert second == pytest.approx(2 * first, rel=1e-4)
    step = reference.step("job-r", None)
    assert step["metrics"]["grad_norm"] == pytest.approx(second, rel=1e-4)
    assert step["global_steps"] == 1 and step["last_lr"] == 1e-2
    assert reference.forward_backward("job-r", batch())["metrics"]["grad_norm"] != pytest.approx(
        second
    )


def test_kl_to_reference_is_reported(reference: ReferenceBackend) -> None:
    ref = reference.forward_no_grad("job-r", {**batch(), "reference_model": True})
    data = batch(ref_log_prob=ref["model_outputs"]["logprobs"] - 0.5)
    metrics = reference.forward_backward("job-r", data)["metrics"]
    assert metrics["kl_coef"] == pytest.approx(1e-3)
    assert metrics["kl_loss"] > 0


def test_checkpoint_roundtrip(reference: ReferenceBackend, tmp_path: Path) -> None:
    reference.forward_backward("job-r", batch())
    reference.step("job-r", None)
    saved = reference.save_checkpoint("job-r", tmp_path / "ck", "resumable")
    assert saved["global_steps"] == 1
    assert {p.name for p in (tmp_path / "ck").iterdir()} == {
        "model.safetensors",
        "optimizer.safetensors",
    }
    before = reference.forward_no_grad("job-r", batch())["model_outputs"]["logprobs"]
    reference.forward_backward("job-r", batch())
    reference.step("job-r", None)
    assert not torch.equal(
        reference.forward_no_grad("job-r", batch())["model_outputs"]["logprobs"], before
    )
    assert reference.load_checkpoint("job-r", tmp_path / "ck") == {"global_steps": 1}
    assert torch.equal(
        reference.forward_no_grad("job-r", batch())["model_outputs"]["logprobs"], before
    )
    with pytest.raises(BackendError):
        reference.load_checkpoint("job-r", tmp_path / "missing")


def test_golden_batch_trains_on_both_backends(tmp_path: Path) -> None:
    golden = wire.loads(GOLDEN_BATCH.read_bytes())
    for backend in (CannedBackend(), ReferenceBackend(device="cpu")):
        backend.prepare_job("job-g", sub_jobs(), tmp_path / backend.name)
        out = backend.forward_backward("job-g", golden)
        assert torch.isfinite(torch.tensor(out["loss"]))
        assert out["post_process_outputs"]["logprobs"].shape == (8, 160)


def test_bad_batches_raise_backend_errors(reference: ReferenceBackend) -> None:
    with pytest.raises(BackendError, match="input_ids"):
        reference.forward_backward("job-r", {"kwargs": {}})
    bad = batch()
    bad["kwargs"]["advantages"] = torch.zeros(3, 50)
    with pytest.raises(BackendError, match="advantages"):
        reference.forward_backward("job-r", bad)
    with pytest.raises(BackendError, match="loss_fn"):
        reference.forward_backward("job-r", {**batch(), "processing": {"loss_fn": "magic"}})


def test_verl_style_loss_settings(reference: ReferenceBackend) -> None:
    data = batch()
    data["processing"] = {
        "loss_fn": "verl_grpo",
        "config": {"clip_ratio_low": 0.1, "clip_ratio_high": 0.3},
    }
    data["meta"] = {
        "batch_num_tokens": torch.tensor(1000),
        "policy_loss_config": {"clip_ratio_c": 2.0},
    }
    scaled = reference.forward_backward("job-r", data)["loss"]
    data["meta"] = {}
    unscaled = reference.forward_backward("job-r", data)["loss"]
    # token-mean over batch_num_tokens=1000 instead of the 15 response tokens
    assert scaled == pytest.approx(unscaled * 15 / 1000, rel=1e-4)
    del data["processing"]
    assert torch.isfinite(torch.tensor(reference.forward_backward("job-r", data)["loss"]))
