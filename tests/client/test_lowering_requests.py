"""Today's forward operation frames, generate's fan-out and id-keyed log-probs, and what a
request must carry: each checked on its own, before anything is sent."""

from __future__ import annotations

import base64
import json
import logging

import pytest
import torch

from arctic_rl import wire
from arctic_rl._batch_checks import check_sampling_params, check_training_batch
from arctic_rl._errors import InvalidRequestError, NotServedError, UnexpectedAnswerError
from arctic_rl._forward_op import (
    FRAME_METADATA,
    JSON_CAP,
    envelope,
    frame_cap,
    joined,
    outputs_of,
    row_parts,
)
from arctic_rl._lowering import Notes, answered, lower_forward
from arctic_rl._requests import forward_request
from arctic_rl._results import as_tensor
from arctic_rl._sampling_lowering import fan_out, sampled_logprobs
from arctic_rl._services import today_registries


def forward_body(rows: int, width: int) -> dict:
    ids = torch.arange(rows * width, dtype=torch.long).reshape(rows, width)
    return {
        "args": [],
        "kwargs": {"input_ids": ids, "attention_mask": torch.ones_like(ids)},
        "context": {"input_ids": ids},
        "processing": {"post": ["compute_logprobs"], "loss_fn": None},
    }


def test_a_skyrl_sized_forward_fits_one_post_under_both_caps() -> None:
    body = forward_body(64, 4096)
    (frame,) = row_parts(body, min_rows=8)
    posted = envelope(frame, "job-1:training:0")
    assert len(posted) <= JSON_CAP and len(frame) <= 60 * 1024 * 1024
    assert wire.read_metadata(frame) == FRAME_METADATA
    assert frame_cap() == (JSON_CAP - 4096) // 4 * 3  # base64 inside the JSON cap


@pytest.mark.parametrize("sub_job_id", [None, 'odd "payload_b64": "" id'])
def test_the_envelope_is_the_operations_json_with_the_frame_in_base64(sub_job_id) -> None:
    frame = wire.dumps(forward_body(2, 3), metadata=FRAME_METADATA)
    posted = json.loads(envelope(frame, sub_job_id))
    payload = {"content_type": "application/octet-stream",
               "payload_b64": base64.b64encode(frame).decode("ascii")}  # fmt: skip
    routing = {} if sub_job_id is None else {"sub_job_id": sub_job_id}
    assert posted == {"operation_type": "forward", "payload": payload, **routing}


def test_a_big_forward_is_split_by_rows_each_part_a_whole_frame_of_enough_rows() -> None:
    body = forward_body(10, 512)
    whole = len(wire.dumps(body, metadata=FRAME_METADATA))
    frames = row_parts(body, min_rows=3, cap=whole // 2)
    assert len(frames) >= 2 and all(len(f) <= whole // 2 for f in frames)
    parts = [wire.loads(f) for f in frames]
    assert all(p["kwargs"]["input_ids"].shape[0] >= 3 for p in parts)
    rejoined = joined([{"logprobs": p["kwargs"]["input_ids"]} for p in parts])["logprobs"]
    assert torch.equal(rejoined, body["kwargs"]["input_ids"])  # in order, every row once


def test_a_split_that_would_leave_a_part_short_of_the_gpus_is_refused() -> None:
    body = forward_body(4, 512)
    whole = len(wire.dumps(body, metadata=FRAME_METADATA))
    with pytest.raises(NotServedError, match="at least 3 rows"):
        row_parts(body, min_rows=3, cap=whole // 2)


def test_forward_answers_are_read_in_every_shape_today_gives() -> None:
    lp = torch.ones(2, 3)
    frame = wire.dumps({"batch": {"logprobs": lp}, "metrics": {"x": 1.0}})
    framed = {"payload_b64": base64.b64encode(frame).decode()}
    outputs, metrics = outputs_of(framed)
    assert torch.equal(outputs["logprobs"], lp) and metrics == {"x": 1.0}
    assert outputs_of({"job_id": "j", "logprobs": [[1.0]]}) == ({"logprobs": [[1.0]]}, {})


@pytest.mark.parametrize(
    "form",
    [
        pytest.param(lambda lp: lp.tolist(), id="nested-json-numbers"),
        pytest.param(lambda lp: lp, id="one-tensor"),
    ],
)
def test_forward_backward_log_probs_are_put_back_from_every_form(form) -> None:
    mask = torch.tensor([[0, 1, 1, 1], [0, 0, 1, 1]])
    request = forward_request({"batch": {"input_ids": mask * 5, "attention_mask": mask}})
    lowered = lower_forward(request, min_rows=1, notes=Notes())
    aligned = torch.tensor([[-0.5, -0.25, -0.125, 0.0], [-1.5, -2.5, 0.0, 0.0]])
    out = answered(lowered, {"logprobs": form(aligned)}, Notes())["logprobs"]
    assert torch.equal(out, torch.tensor([[0.0, -0.5, -0.25, -0.125], [0.0, 0.0, -1.5, -2.5]]))
    wire_form = wire.loads(wire.dumps({"logprobs": form(aligned)}))  # as a result frame has it
    assert torch.equal(answered(lowered, wire_form, Notes())["logprobs"], out)


@pytest.mark.parametrize(
    "value",
    [[[-0.5, 1e-8], [3.0, -2.0]], [[1, 2], [3, 4]], [True, False], [[1, 2.5]], [1, 2**62]],
)
def test_nested_numbers_become_the_tensor_torch_builds(value) -> None:
    built = as_tensor(value)
    expected = torch.as_tensor(value)
    assert built.dtype == expected.dtype and torch.equal(built, expected)


@pytest.mark.parametrize("value", [[["a", "b"]], [[1.0], [2.0, 3.0]], [None], []])
def test_what_is_not_nested_numbers_is_built_by_torch_or_left_as_it_came(value) -> None:
    try:
        expected = torch.as_tensor(value)
    except (TypeError, ValueError, RuntimeError):
        assert as_tensor(value) is value
    else:
        assert torch.equal(as_tensor(value), expected)


def test_ragged_log_probs_are_an_unexpected_answer() -> None:
    mask = torch.ones(2, 3, dtype=torch.long)
    request = forward_request({"batch": {"input_ids": mask, "attention_mask": mask}})
    lowered = lower_forward(request, min_rows=1, notes=Notes())
    with pytest.raises(UnexpectedAnswerError, match="ragged"):
        answered(lowered, {"logprobs": [[0.0, 1.0, 2.0], [0.0]]}, Notes())


def test_n_is_fanned_out_in_order_and_left_out(caplog) -> None:
    notes = Notes()
    with caplog.at_level(logging.INFO, logger="arctic_rl"):
        prompts, params, keys = fan_out(["a", "b"], {"n": 3, "seed": 7}, ["k1", "k2"], notes)
    assert prompts == ["a", "a", "a", "b", "b", "b"] and keys == ["k1"] * 3 + ["k2"] * 3
    assert [p["seed"] for p in params] == [7, 8, 9, 7, 8, 9]
    assert all("n" not in p for p in params)
    assert "repeated n times" in caplog.text and "seed + k" in caplog.text
    per_prompt = fan_out(["a", "b"], [{"n": 2}, {"max_tokens": 4}], None, notes)
    assert per_prompt[0] == ["a", "a", "b"] and per_prompt[1][2] == {"max_tokens": 4}
    assert fan_out(["a"], {"max_tokens": 4}, None, notes) == (["a"], {"max_tokens": 4}, None)


def test_id_keyed_log_probs_are_read_by_id_never_by_position() -> None:
    entry = {
        "token_ids": [7, 3],
        "logprobs": [
            {"3": {"logprob": -9.0}, "7": {"logprob": -0.5}},  # top-k first, sampled second
            {"3": -0.25, "12": -3.0},
        ],
    }
    assert sampled_logprobs(entry) == [-0.5, -0.25]
    with pytest.raises(UnexpectedAnswerError, match="omit sampled token 3"):
        sampled_logprobs({"token_ids": [3], "logprobs": [{"4": -1.0}]})


@pytest.mark.parametrize(
    ("key", "nearest"), [("advantage", "advantages"), ("loss_masks", "loss_mask")]
)
def test_a_near_miss_key_is_refused_naming_the_nearest(key: str, nearest: str) -> None:
    batch = {
        "input_ids": torch.ones(1, 2),
        "response_mask": torch.ones(1, 2),
        key: torch.ones(1, 2),
    }
    with pytest.raises(InvalidRequestError, match=f"did you mean '{nearest}'"):
        check_training_batch(forward_request({"batch": batch, "processing": {"loss_fn": "grpo"}}))


@pytest.mark.parametrize("dropped", ["advantages", "response_mask"])
def test_a_policy_loss_without_what_it_reads_is_refused(dropped: str) -> None:
    batch = {"input_ids": torch.ones(1, 2), "response_mask": torch.ones(1, 2),
             "advantages": torch.ones(1, 2)}  # fmt: skip
    del batch[dropped]
    body = forward_request({"batch": batch, "processing": {"loss_fn": "verl_grpo"}})
    with pytest.raises(InvalidRequestError, match="which the batch lacks"):
        check_training_batch(body)
    body["processing"]["loss_fn"] = "causal_cross_entropy"  # reads neither
    check_training_batch(body)


def test_an_unknown_sampling_parameter_is_refused_naming_the_nearest() -> None:
    with pytest.raises(InvalidRequestError, match=r"'max_token'.*'max_tokens'"):
        check_sampling_params({"max_token": 8})
    with pytest.raises(InvalidRequestError, match="'tempreature'"):
        check_sampling_params([{"max_tokens": 8}, {"tempreature": 1.0}])
    check_sampling_params({"max_tokens": 8, "temperature": 1.0, "top_p": 1.0, "n": 2})


def test_todays_registries_refuse_what_it_lacks_by_name() -> None:
    today_registries().check({"loss_fn": "grpo", "post": ["compute_logprobs"]})
    with pytest.raises(NotServedError, match=r"no loss 'verl_grpo'.*did you mean 'grpo'"):
        today_registries().check({"loss_fn": "verl_grpo"})
    with pytest.raises(NotServedError, match="no post-processor 'apply_temperature'"):
        today_registries().check({"post": ["apply_temperature", "compute_logprobs"]})
