"""One per-token layout on the wire: PPO invariants at an on-policy first step, per framework.

At the first step the policy, the old policy and the reference are the same model, so a
batch whose old and reference log-probs line up with the tokens the loss scores gives
`ppo_kl`, `pg_clipfrac_lower` and `kl_loss` exactly 0 and a ratio of 1 (the policy loss is
then minus the mean advantage). Each batch is built as its framework builds it and sent
through the legacy client (the one both frameworks hold) to the reference mock over HTTP:

- SkyRL (`integrations/arctic_rl/trainer.py`): the `[B, T]` log-prob answer of its
  `fwd_no_grad` goes back unchanged as `old_log_probs`; advantages and masks are `[B, R]`
  left-padded to `[B, T]`.
- verl (the Arctic adapter and verl's `no_padding_2_padding`): old and reference
  log-probs are the answer's values that score the response tokens, `[B, R]`, left-padded
  to `[B, T]` like the advantages and masks; `rollout_is_weights` `[B, R]` sits in `meta`.

A one-token shift of those inputs must show in the metrics.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
import torch

from arctic_rl import ArcticRLClientConfig, create_arctic_rl_client
from arctic_rl.integrations._layout import AnswerLog, answer_as_input

from .conftest import PAT_ENV

PROMPTS = (b"Say it: ", b"2 + 2 =", b"hi")
RESPONSES = (b"aaab", b"4", b"there!")
PAD = 0
TRAIN_POST = {"post": ["apply_temperature", "compute_entropy_and_logprobs"], "loss_fn": "verl_grpo"}
FORWARD_POST = {"post": ["compute_entropy_and_logprobs"], "loss_fn": None}


@pytest.fixture
def legacy(live_mock_factory: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    mock = live_mock_factory("reference")
    monkeypatch.setenv(PAT_ENV, mock.token)
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        cortex={"base_url": mock.base_url, "pat_env": PAT_ENV, "long_poll_s": 2},
    )
    client = create_arctic_rl_client(config)
    yield client
    client.shutdown()


def dense_rows() -> dict[str, torch.Tensor]:
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


def left_pad(t: torch.Tensor, width: int) -> torch.Tensor:
    """Both frameworks' `_left_pad`: zeros in front up to `width` (a no-op when as wide)."""
    missing = width - t.shape[-1]
    return t if missing <= 0 else torch.cat([t.new_zeros(t.shape[0], missing), t], dim=-1)


def advantages(response_mask: torch.Tensor) -> torch.Tensor:
    """Distinct advantages of both signs on every response token, `[B, R]`."""
    values = torch.linspace(-1.5, 1.0, response_mask.numel()).reshape(response_mask.shape)
    return values * response_mask


def meta(rows: dict[str, torch.Tensor]) -> dict[str, Any]:
    return {
        "pad_token_id": PAD,
        "temperature": 1.0,
        "batch_num_tokens": rows["response_mask"].sum(),
        "global_batch_size": rows["input_ids"].shape[0],
        "actor_config": {"loss_agg_mode": "token-mean", "clip_ratio": 0.2, "use_kl_loss": True},
        "policy_loss_config": {"loss_mode": "vanilla", "kl_loss_type": "low_var_kl"},
    }


async def answers(client: Any, rows: dict[str, torch.Tensor]) -> tuple[Any, Any]:
    """The policy's and the reference's `[B, T]` log-prob answers, as both frameworks ask."""
    forward = {k: rows[k] for k in ("input_ids", "attention_mask", "prompts", "position_ids")}
    payload = {"batch": forward, "meta": meta(rows), "processing": FORWARD_POST}
    policy = await client.fwd_no_grad(dict(payload), reference_model=False)
    reference = await client.fwd_no_grad(dict(payload), reference_model=True)
    return policy["batch"]["logprobs"], reference["batch"]["log_probs"]


def response_scores(answer: torch.Tensor, rows: dict[str, torch.Tensor], shift: int = 0) -> Any:
    """verl's `no_padding_2_padding` on a dense answer: the values scoring the response
    tokens (column P-1+k scores token P+k), `[B, R]`, zero past each response."""
    width_p, width_r = rows["prompts"].shape[1], rows["responses"].shape[1]
    start = width_p - 1 + shift
    return answer[:, start : start + width_r] * rows["response_mask"]


def skyrl_batch(rows: dict[str, torch.Tensor], old: Any, ref: Any) -> dict[str, Any]:
    seq = rows["input_ids"].shape[1]
    batch = {k: rows[k] for k in ("input_ids", "attention_mask", "prompts", "responses")}
    batch["position_ids"] = rows["position_ids"]
    batch["response_mask"] = left_pad(rows["response_mask"], seq)
    batch["advantages"] = left_pad(advantages(rows["response_mask"]), seq)
    batch["old_log_probs"] = left_pad(old, seq)
    batch["ref_log_prob"] = left_pad(ref, seq)
    batch["loss_mask"] = batch["response_mask"]
    return {"batch": batch, "meta": meta(rows), "processing": TRAIN_POST}


def verl_batch(
    rows: dict[str, torch.Tensor], old: Any, ref: Any, *, padded: bool = True
) -> dict[str, Any]:
    seq = rows["input_ids"].shape[1] if padded else 0
    batch = {k: rows[k] for k in ("input_ids", "attention_mask", "prompts", "responses")}
    batch["position_ids"] = rows["position_ids"]
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


def minus_mean_advantage(rows: dict[str, torch.Tensor]) -> float:
    """The token-mean policy loss at ratio 1: -sum(A * mask) / tokens."""
    mask = rows["response_mask"].float()
    return float(-(advantages(rows["response_mask"]) * mask).sum() / mask.sum())


def train_metrics(client: Any, build: Any) -> tuple[dict[str, float], dict[str, torch.Tensor]]:
    async def run() -> dict[str, float]:
        old, ref = await answers(client, rows)
        result = await client.fwd_bwd(build(rows, old, ref))
        return result["metrics"]

    rows = dense_rows()
    return asyncio.run(run()), rows


def assert_on_policy(metrics: dict[str, float], rows: dict[str, torch.Tensor]) -> None:
    invariants = (metrics["ppo_kl"], metrics["pg_clipfrac_lower"], metrics["kl_loss"])
    assert invariants == (0.0, 0.0, 0.0), metrics
    assert metrics["pg_loss"] == pytest.approx(minus_mean_advantage(rows), abs=1e-6)


def assert_off_policy(metrics: dict[str, float], rows: dict[str, torch.Tensor]) -> None:
    assert metrics["ppo_kl"] != 0.0 and metrics["kl_loss"] > 0.0, metrics
    assert metrics["pg_loss"] != pytest.approx(minus_mean_advantage(rows), abs=1e-6)


# -- SkyRL ------------------------------------------------------------------------------


def test_skyrl_echoed_answer_is_on_policy(legacy: Any) -> None:
    metrics, rows = train_metrics(legacy, skyrl_batch)
    assert_on_policy(metrics, rows)


def test_skyrl_answer_copy_is_read_as_token_aligned_and_shows_the_shift(legacy: Any) -> None:
    # Only the answer objects the client handed out are converted; a copy is taken to be
    # token-aligned already, so this roll-layout copy lands one token off, and shows.
    metrics, rows = train_metrics(legacy, lambda r, o, f: skyrl_batch(r, o.clone(), f.clone()))
    assert_off_policy(metrics, rows)


# -- verl -------------------------------------------------------------------------------


@pytest.mark.parametrize("padded", [True, False], ids=["left-padded", "response-wide"])
def test_verl_response_aligned_inputs_are_on_policy(legacy: Any, padded: bool) -> None:
    def build(rows: dict[str, torch.Tensor], old: Any, ref: Any) -> dict[str, Any]:
        old_r, ref_r = response_scores(old, rows), response_scores(ref, rows)
        return verl_batch(rows, old_r, ref_r, padded=padded)

    metrics, rows = train_metrics(legacy, build)
    assert_on_policy(metrics, rows)


def test_verl_inputs_one_token_off_show_in_the_metrics(legacy: Any) -> None:
    def build(rows: dict[str, torch.Tensor], old: Any, ref: Any) -> dict[str, Any]:
        shifted = response_scores(old, rows, shift=1), response_scores(ref, rows, shift=1)
        return verl_batch(rows, *shifted)

    metrics, rows = train_metrics(legacy, build)
    assert_off_policy(metrics, rows)


# -- the conversion itself --------------------------------------------------------------


def test_answer_as_input_moves_each_score_onto_its_token() -> None:
    answer = torch.tensor([[-1.0, -2.0, -3.0, 0.0]])  # scores tokens 1, 2, 3; last wraps
    assert answer_as_input(answer).tolist() == [[0.0, -1.0, -2.0, -3.0]]


def test_answer_log_converts_only_the_answers_it_handed_out() -> None:
    log = AnswerLog()
    handed = torch.tensor([[-1.0, -2.0, 0.0]])
    log.remember({"logprobs": handed, "log_probs": handed})
    own = handed.clone()
    request = {
        "args": [],
        "kwargs": {"old_log_probs": handed, "ref_log_prob": own, "advantages": handed},
        "context": {"ref_log_prob": handed},
    }
    out = log.to_contract(request)
    assert out["kwargs"]["old_log_probs"].tolist() == [[0.0, -1.0, -2.0]]
    assert out["context"]["ref_log_prob"].tolist() == [[0.0, -1.0, -2.0]]
    assert out["kwargs"]["ref_log_prob"] is own  # a tensor the caller built: as it is
    assert out["kwargs"]["advantages"] is handed  # not a log-prob input
    assert request["kwargs"]["old_log_probs"] is handed  # the caller's mapping is untouched


def test_answer_log_forgets_answers_nobody_holds() -> None:
    log = AnswerLog()
    log.remember({"logprobs": torch.zeros(1, 3)})
    gc.collect()
    assert len(log._held) == 0
