"""The lowering onto today's service, on its own: rows, frames, the loss settings.

`service_forward` stands for the service's forward: each aligned row's log-probs depend on
that row's tokens alone (the reference backend computes rows independently), column `k`
scoring token `k + 1`. The PPO invariant at step 1: the pi_old a framework sends back
(its `fwd_no_grad` answer, through its own layout) reaches the service as
`old_log_probs_shifted` equal, bit for bit, to the service's own forward of the rows sent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
import torch

from arctic_rl import _lowering
from arctic_rl._errors import NotServedError
from arctic_rl._layout import SKYRL, VERL
from arctic_rl._lowering import Notes, answered, lower_forward, lower_forward_backward
from arctic_rl._requests import forward_request
from devtools.batches import skyrl_repack

PROMPTS = [[5, 6, 7], [8, 9], [3]]
RESPONSES = [[11, 12], [13, 14, 15], [16]]


def service_forward(ids: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Log-probs of left-aligned rows: column k scores token k + 1 from the row's prefix."""
    weights = torch.arange(1, ids.shape[1] + 1, dtype=torch.float64)
    prefix = (ids.to(torch.float64) * weights).cumsum(1)
    out = -(torch.sin(prefix[:, 1:]) ** 2 + 0.01).to(torch.float32)
    out = torch.cat([out, torch.zeros(ids.shape[0], 1)], dim=1)
    scored = torch.zeros_like(valid)
    scored[:, :-1] = valid[:, 1:]
    return torch.where(scored, out, torch.zeros_like(out))


def skyrl_batch() -> dict[str, torch.Tensor]:
    """SkyRL's repack of PROMPTS and RESPONSES."""
    return skyrl_repack(PROMPTS, RESPONSES)


def forward_answer(batch: dict[str, Any], notes: Notes, restore: Callable | None = None) -> Any:
    """What the legacy client returns for a fwd_no_grad of `batch`: the service's forward
    of the aligned rows, put back in the caller's layout."""
    lowered = lower_forward(forward_request({"batch": batch}), min_rows=1, notes=notes)
    ids, valid = lowered.body["kwargs"]["input_ids"], lowered.plan.valid
    if restore is not None:
        return restore(service_forward(ids, valid))
    return answered(lowered, {"logprobs": service_forward(ids, valid)}, notes)["logprobs"]


def meta(**actor: Any) -> dict[str, Any]:
    return {"temperature": 1.0, "dp_size": 2, "actor_config": {"clip_ratio": 0.2, **actor}}


def sent_pi_old(batch: dict[str, Any], layout: Any, notes: Notes) -> tuple[Any, Any, Any]:
    """(old_log_probs_shifted sent, the service's own forward of the rows sent, loss mask)."""
    request = {"batch": batch, "meta": meta(), "processing": {"loss_fn": "verl_grpo"}}
    lowered = lower_forward_backward(
        layout.to_contract(forward_request(request)), min_rows=1, notes=notes
    )
    ids = lowered.body["kwargs"]["input_ids"]
    own = service_forward(ids, lowered.plan.valid)
    context = lowered.body["context"]
    return context["old_log_probs_shifted"], own, context["loss_mask"]  # both: k scores k + 1


def skyrl_pi_old_matches(notes: Notes, restore: Callable | None = None) -> bool:
    batch = skyrl_batch()
    answer = forward_answer(batch, notes, restore)
    sent, own, scored = sent_pi_old({**batch, "old_log_probs": answer}, SKYRL, notes)
    return bool(torch.equal(sent[scored], own[scored]))


def verl_pi_old_matches(notes: Notes) -> bool:
    """verl slices the answer's response part ([B, R], each row's values one left of its
    response tokens) and its adapter left-pads it to [B, T]."""
    batch = skyrl_batch()
    answer = forward_answer(batch, notes)
    width_r = max(map(len, RESPONSES))
    old = torch.zeros(len(PROMPTS), width_r)
    for i, r in enumerate(RESPONSES):
        first = int(batch["response_mask"][i].nonzero()[0])
        old[i, : len(r)] = answer[i, first - 1 : first - 1 + len(r)]
    padded = torch.cat([torch.zeros(len(PROMPTS), batch["input_ids"].shape[1] - width_r), old], 1)
    sent, own, scored = sent_pi_old({**batch, "old_log_probs": padded}, VERL, notes)
    assert int(scored.sum()) == sum(map(len, RESPONSES))
    return bool(torch.equal(sent[scored], own[scored]))


def test_step_one_pi_old_is_the_services_own_forward_bit_for_bit() -> None:
    assert skyrl_pi_old_matches(Notes())
    assert verl_pi_old_matches(Notes())


def test_skipping_the_row_inverse_is_caught() -> None:
    assert not skyrl_pi_old_matches(Notes(), restore=lambda aligned: aligned)


def test_shifting_pi_old_by_one_column_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_lowering, "_shifted", lambda t: t)  # token-aligned sent as shifted
    assert not skyrl_pi_old_matches(Notes())
    assert not verl_pi_old_matches(Notes())


def test_rows_are_left_aligned_and_every_input_moves_with_its_token() -> None:
    batch = skyrl_batch()
    request = {"batch": batch, "meta": meta(), "processing": {"loss_fn": "verl_grpo"}}
    body = lower_forward_backward(forward_request(request), min_rows=1, notes=Notes()).body
    ids, mask = body["kwargs"]["input_ids"], body["kwargs"]["attention_mask"]
    for i, (p, r) in enumerate(zip(PROMPTS, RESPONSES, strict=True)):
        n = len(p) + len(r)
        assert ids[i, :n].tolist() == p + r and not ids[i, n:].any()
        assert mask[i].tolist() == [1] * n + [0] * (ids.shape[1] - n)
        # Predicting frame: column k is the prediction of token k + 1.
        predicts = [False] * (len(p) - 1) + [True] * len(r) + [False] * (ids.shape[1] - n + 1)
        assert body["context"]["loss_mask"][i].tolist() == predicts
        assert body["context"]["advantages"][i, len(p) - 1 : n - 1].unique().numel() == 1
        assert not body["context"]["advantages"][i, n - 1 :].any()
    assert body["context"]["loss_mask"].dtype == torch.bool
    assert set(body) == {"args", "kwargs", "context", "processing"}  # no meta: no dp_size
    assert body["processing"] == {
        "post": ["compute_logprobs"],
        "loss_fn": "grpo",
        "config": {"eps_clip": 0.2, "loss_agg_mode": "token-mean", "entropy_coeff": 0.0},
    }


def test_answers_come_back_in_the_callers_columns() -> None:
    batch = skyrl_batch()
    notes = Notes()
    lowered = lower_forward(forward_request({"batch": batch}), min_rows=1, notes=notes)
    aligned = lowered.body["kwargs"]["input_ids"].to(torch.float32)
    back = answered(lowered, {"logprobs": aligned}, notes)["logprobs"]
    assert torch.equal(back, batch["input_ids"].to(torch.float32))  # each value on its token


def test_a_batch_short_of_the_training_gpus_is_padded_with_rows_without_loss() -> None:
    batch = {k: v[:1] for k, v in skyrl_batch().items()}
    request = {"batch": batch, "meta": meta(), "processing": {"loss_fn": "verl_grpo"}}
    lowered = lower_forward_backward(forward_request(request), min_rows=4, notes=Notes())
    context = lowered.body["context"]
    assert context["input_ids"].shape[0] == 4
    assert not context["loss_mask"][1:].any() and not context["advantages"][1:].any()
    answer = {"logprobs": torch.ones(4, batch["input_ids"].shape[1])}
    assert answered(lowered, answer, Notes())["logprobs"].shape[0] == 1


@pytest.mark.parametrize(
    ("actor", "named"),
    [
        ({"clip_ratio_low": 0.2, "clip_ratio_high": 0.28}, "asymmetric clip"),
        ({"use_kl_loss": True, "kl_loss_coef": 0.001}, "use_kl_loss"),
        ({"policy_loss": {"loss_mode": "gspo"}}, "loss_mode 'gspo'"),
    ],
)
def test_a_loss_setting_grpo_cannot_honour_is_refused_naming_it_and_the_fix(actor, named) -> None:
    request = {
        "batch": skyrl_batch(),
        "meta": meta(**actor),
        "processing": {"loss_fn": "verl_grpo"},
    }
    with pytest.raises(NotServedError) as refused:
        lower_forward_backward(forward_request(request), min_rows=1, notes=Notes())
    assert named in str(refused.value) and "; set" in str(refused.value)


def test_settings_without_effect_are_accepted_and_named_once(caplog) -> None:
    weights = torch.ones(3, 5)
    request = {
        "batch": skyrl_batch(),
        "meta": {**meta(use_kl_loss=True, kl_loss_coef=0.0, clip_ratio_c=3.0,
                        entropy_coeff=0.01, loss_agg_mode="seq-mean-token-mean"),
                 "rollout_is_weights": weights},
        "processing": {"loss_fn": "verl_grpo"},
    }  # fmt: skip
    notes = Notes()
    with caplog.at_level(logging.INFO, logger="arctic_rl"):
        for _ in range(2):
            body = lower_forward_backward(forward_request(request), min_rows=1, notes=notes).body
    config = body["processing"]["config"]
    assert config["entropy_coeff"] == 0.01 and config["loss_agg_mode"] == "seq-mean-token-mean"
    for said in ("kl_loss_coef 0", "clip_ratio_c 3.0", "rollout_is_weights", "dp_size"):
        assert sum(said in r.getMessage() for r in caplog.records) == 1, said
    request["meta"]["rollout_is_weights"] = weights * 0.5
    with pytest.raises(NotServedError, match="rollout_is_weights"):
        lower_forward_backward(forward_request(request), min_rows=1, notes=notes)


def test_a_temperature_other_than_one_is_refused_at_the_first_forward() -> None:
    request = {"batch": skyrl_batch(), "meta": {"temperature": 0.7}}
    with pytest.raises(NotServedError, match=r"temperature 0.7.*sample at temperature 1.0"):
        lower_forward(forward_request(request), min_rows=1, notes=Notes())


def test_entropy_is_nan_and_said_once_never_zeros(caplog) -> None:
    request = {"batch": skyrl_batch(), "processing": {"post": ["compute_entropy_and_logprobs"]}}
    notes = Notes()
    lowered = lower_forward(forward_request(request), min_rows=1, notes=notes)
    answer = {"logprobs": torch.zeros(lowered.body["kwargs"]["input_ids"].shape)}
    with caplog.at_level(logging.INFO, logger="arctic_rl"):
        first = answered(lowered, answer, notes)
        answered(lowered, answer, notes)
    assert first["entropy"].isnan().all()
    assert sum("computes no entropy" in r.getMessage() for r in caplog.records) == 1


def test_the_row_order_is_the_stable_sort_of_tokens_before_padding() -> None:
    gen = torch.Generator().manual_seed(3)
    mask = torch.rand(9, 40, generator=gen) < 0.6  # holes anywhere, not only at the ends
    mask[0], mask[1] = False, True  # a row without tokens, a row without padding
    plan = _lowering.RowPlan.of(mask.long(), rows=9)
    assert torch.equal(plan.order, torch.argsort((~mask).to(torch.int8), dim=1, stable=True))


def test_positions_counted_from_each_rows_first_token_are_left_to_the_service() -> None:
    batch = skyrl_batch()  # SkyRL's positions: its tokens counted from 0
    forward = {k: batch[k] for k in ("input_ids", "attention_mask", "position_ids")}
    body = lower_forward(forward_request({"batch": forward}), min_rows=1, notes=Notes()).body
    assert "position_ids" not in body["kwargs"]
    shifted = {**forward, "position_ids": batch["position_ids"] + batch["attention_mask"]}
    body = lower_forward(forward_request({"batch": shifted}), min_rows=1, notes=Notes()).body
    sent, valid = body["kwargs"]["position_ids"], body["kwargs"]["attention_mask"].bool()
    assert torch.equal(sent, (torch.arange(sent.shape[1]) + 1).expand_as(sent) * valid)
