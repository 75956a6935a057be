"""The mock plays today's live service by default: it refuses what live refuses, before any
model call, and answers in live's shapes; ``service=proposed`` serves the proposals too."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml
from arctic_rl_mock.settings import Settings

from arctic_rl import wire
from devtools.live_mock import LiveMock, MockApi, request_chunks

from .fidelity import published_frame

ROWS, WIDTH = 2, 10
CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "cortex_gs.yaml"


@pytest.fixture
def today(live_mock: LiveMock) -> Iterator[MockApi]:
    api = MockApi(live_mock)
    yield api
    api.close()


@pytest.fixture
def proposed(live_mock_factory: Callable[..., LiveMock]) -> Iterator[MockApi]:
    api = MockApi(live_mock_factory(service="proposed"))
    yield api
    api.close()


def grpo_frame(**processing: Any) -> dict[str, Any]:
    """The published client's lowered grpo frame, with ``processing`` overrides."""
    frame = published_frame(ROWS, WIDTH)
    frame["processing"] = {**frame["processing"], **processing}
    return frame


def submit(api: MockApi, job_id: str, frame: dict[str, Any]) -> Any:
    """The forward-backward frame as one chunk envelope; the final chunk's answer."""
    chunks = request_chunks(frame, payload_bytes=1 << 20)
    return api.post_chunks(job_id, "forward-backward", chunks)[-1]


def refused(response: Any, *loc: Any) -> str:
    """A 422 in the contract's shape located at ``loc``; its message."""
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error_code"] == "validation_error"
    assert body["detail"][0]["loc"] == ["body", *loc]
    return str(body["message"])


def no_requests(api: MockApi, job_id: str) -> None:
    """Nothing reached the backend: refused at submission (the 422), and no request ran
    and failed (the job's log lists each one that did)."""
    page = api.http.post(
        f"/{job_id}/operation", json={"operation_type": "tail-logs", "payload": {}}
    ).json()
    assert not [line for line in page["entries"] if "failed" in line], page


@pytest.mark.parametrize(
    ("processing", "loc", "named"),
    [
        ({"loss_fn": "verl_grpo"}, ["processing", "loss_fn"], "verl_grpo"),
        ({"post": ["apply_temperature"]}, ["processing", "post", 0], "apply_temperature"),
        (
            {"post": ["compute_logprobs", "compute_entropy_and_logprobs"]},
            ["processing", "post", 1],
            "compute_entropy_and_logprobs",
        ),
    ],
)
def test_unregistered_names_are_refused_before_any_model_call(
    today: MockApi, processing: dict[str, Any], loc: list[Any], named: str
) -> None:
    job_id = today.create_job()
    message = refused(submit(today, job_id, grpo_frame(**processing)), *loc)
    assert named in message
    no_requests(today, job_id)


def test_the_published_grpo_frame_trains_and_answers_in_lives_shape(today: MockApi) -> None:
    job_id = today.create_job()
    result = today.result(job_id, submit(today, job_id, grpo_frame()).json()["request_id"])
    logprobs = result["post_process_outputs"]["logprobs"]
    assert isinstance(logprobs, list) and len(logprobs) == ROWS
    assert all(isinstance(row, list) and len(row) == WIDTH for row in logprobs)
    assert set(result["post_process_outputs"]) == {"logprobs"}


@pytest.mark.parametrize(
    ("rename", "named", "hint"),
    [
        (("advantages", None), "context.advantages", None),
        (("advantages", "advantage"), "context.advantages", "advantage"),
        (("loss_mask", "loss_masks"), "context.loss_mask", "loss_masks"),
    ],
)
def test_grpo_without_its_inputs_is_refused_naming_the_key(
    today: MockApi, rename: tuple[str, str | None], named: str, hint: str | None
) -> None:
    job_id = today.create_job()
    frame = grpo_frame()
    old, new = rename
    value = frame["context"].pop(old)
    if new is not None:
        frame["context"][new] = value
    message = refused(submit(today, job_id, frame), *named.split("."))
    assert named in message
    assert hint is None or f"found {hint!r}" in message
    no_requests(today, job_id)


def test_the_proposed_service_refuses_a_near_miss_too(proposed: MockApi) -> None:
    job_id = proposed.create_job()
    frame = grpo_frame(loss_fn="verl_grpo")
    frame["context"]["advantage"] = frame["context"].pop("advantages")
    message = refused(submit(proposed, job_id, frame), "kwargs", "advantages")
    assert "found 'advantage'" in message


def test_left_padded_rows_are_refused(today: MockApi) -> None:
    job_id = today.create_job()
    frame = grpo_frame()
    frame["kwargs"]["attention_mask"][1, :3] = 0  # row 1 padded on the left
    message = refused(submit(today, job_id, frame), "kwargs", "attention_mask")
    assert "left-aligned" in message and "row 1" in message


def test_proposed_routes_and_the_capabilities_route_are_404(today: MockApi) -> None:
    job_id = today.create_job()
    for route in ("forward-no-grad", "log-probs", "sync-weights"):
        assert today.http.post(f"/{job_id}/{route}", content=b"{}").status_code == 404, route
    assert today.http.get("/capabilities").status_code == 404


def test_the_proposed_service_serves_them(proposed: MockApi) -> None:
    answer = proposed.http.get("/capabilities")
    assert answer.status_code == 200, answer.text
    assert {"forward_no_grad", "verl_grpo", "sampling_n"} <= set(answer.json()["proposals"])
    job_id = proposed.create_job()
    result = proposed.result(
        job_id, submit(proposed, job_id, grpo_frame(loss_fn="verl_grpo")).json()["request_id"]
    )
    assert isinstance(result["post_process_outputs"]["logprobs"], torch.Tensor)


def test_idempotency_key_is_not_honoured(today: MockApi, proposed: MockApi) -> None:
    """Live, a resent step under the same key runs twice; the proposal runs it once."""
    for api, runs in ((today, 2), (proposed, 1)):
        job_id = api.create_job()
        headers = {"Idempotency-Key": "step-1"}
        first = api.http.post(f"/{job_id}/step", json={}, headers=headers).json()
        again = api.http.post(f"/{job_id}/step", json={}, headers=headers).json()
        assert len({first["request_id"], again["request_id"]}) == runs
        api.wait(job_id, again["request_id"])
        assert api.run(job_id, "step", {})["global_steps"] == runs + 1


def test_no_cost_budget_today(today: MockApi, proposed: MockApi) -> None:
    """5 x 4096 is over the proposed batch budget (rows x width² > 2^26)."""
    frame = {"kwargs": {"input_ids": torch.zeros(5, 4096, dtype=torch.int64)}}
    frame["kwargs"]["labels"] = frame["kwargs"]["input_ids"].clone()
    job_today = today.create_job(max_seq_len=4096)
    assert submit(today, job_today, frame).status_code == 202
    job_proposed = proposed.create_job(max_seq_len=4096)
    assert submit(proposed, job_proposed, frame).json()["error_code"] == "batch_over_budget"


def generate(api: MockApi, job_id: str, params: dict[str, Any]) -> Any:
    return api.http.post(
        f"/{job_id}/generate", content=wire.dumps({"prompts": ["ab"], "sampling_params": params})
    )


@pytest.mark.parametrize(
    ("params", "key", "hint"),
    [({"max_tokens": 2, "n": 2}, "n", None), ({"max_token": 2}, "max_token", "max_tokens")],
)
def test_n_and_unknown_sampling_params_are_refused(
    today: MockApi, params: dict[str, Any], key: str, hint: str | None
) -> None:
    job_id = today.create_job()
    message = refused(generate(today, job_id, params), "sampling_params", key)
    assert hint is None or f"did you mean {hint!r}" in message


def test_generate_log_probs_are_keyed_by_token_id(today: MockApi, proposed: MockApi) -> None:
    job_id = today.create_job()
    answer = today.result(job_id, generate(today, job_id, {"max_tokens": 3}).json()["request_id"])
    (output,) = answer["results"]
    assert [list(entry) for entry in output["logprobs"]] == [[str(t)] for t in output["token_ids"]]
    job_id = proposed.create_job()
    answer = proposed.result(
        job_id, generate(proposed, job_id, {"max_tokens": 3, "n": 2}).json()["request_id"]
    )
    assert len(answer["results"]) == 2
    assert all(isinstance(v, float) for v in answer["results"][0]["logprobs"])


def forward_operation(api: MockApi, job_id: str, frame: dict[str, Any]) -> Any:
    payload = base64.b64encode(bytes(wire.dumps(frame))).decode("ascii")
    body = {
        "operation_type": "forward",
        "payload": {"content_type": "application/octet-stream", "payload_b64": payload},
    }
    return api.http.post(f"/{job_id}/operation", json=body)


def forward_frame(post: list[str]) -> dict[str, Any]:
    frame = published_frame(ROWS, WIDTH)
    return {
        "args": (),
        "kwargs": {k: frame["kwargs"][k] for k in ("input_ids", "attention_mask")},
        "context": {"input_ids": frame["kwargs"]["input_ids"]},
        "processing": {"post": post, "loss_fn": None},
    }


def test_the_forward_operation_answers_job_id_and_logprobs(today: MockApi) -> None:
    job_id = today.create_job()
    accepted = forward_operation(today, job_id, forward_frame(["compute_logprobs"]))
    assert accepted.status_code == 202, accepted.text
    result = today.result(job_id, accepted.json()["request_id"])
    assert set(result) == {"job_id", "logprobs"} and result["job_id"] == job_id
    assert result["logprobs"].shape == (ROWS, WIDTH)


def test_the_forward_operation_takes_compute_logprobs_only(today: MockApi) -> None:
    job_id = today.create_job()
    answer = forward_operation(today, job_id, forward_frame(["compute_entropy_and_logprobs"]))
    refused(answer, "processing", "post", 0)


def test_an_operation_body_over_16_mib_is_413(today: MockApi) -> None:
    job_id = today.create_job()
    body = b'{"operation_type": "forward", "payload": {"payload_b64": "' + b"A" * (16 << 20)
    answer = today.http.post(
        f"/{job_id}/operation", content=body, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 413
    assert answer.json()["error_code"] == "payload_too_large"


def job_body(**training: Any) -> dict[str, Any]:
    config = {"max_seq_len": 64, "n_gpus": 2, **training}
    return {
        "sub_job_configs": [
            {"job_type": "training", "model_name": "tiny-byte-lm", "training_config": config},
            {
                "job_type": "sampling",
                "model_name": "tiny-byte-lm",
                "inference_config": {"max_seq_len": 64, "n_gpus": 1},
            },
        ]
    }


def settled(api: MockApi, job_id: str) -> dict[str, Any]:
    """The job once it left the start-up states (generous bound, polled)."""
    for _ in range(3000):
        job = api.http.get(f"/{job_id}").json()
        if job["status"] in ("running", "failed"):
            return dict(job)
        api.http.get("/capacity")  # a round trip between polls
    raise AssertionError(f"job {job_id} never settled: {job}")


DS_OK = {
    "train_batch_size": 8,
    "train_micro_batch_size_per_gpu": 2,
    "gradient_accumulation_steps": 2,
}


@pytest.mark.parametrize(
    ("training", "reason"),
    [
        ({"attn_implementation": "flash_attention_2"}, "FlashAttention 3"),
        (
            {
                "ds_config": {
                    **DS_OK,
                    "zero_optimization": {"offload_optimizer": {"device": "none"}},
                }
            },
            "offload_optimizer",
        ),
        ({"ds_config": {**DS_OK, "train_batch_size": 16}}, "16 != 2 x 2 x 2"),
    ],
)
def test_a_config_live_cannot_load_fails_the_job_with_the_reason(
    today: MockApi, proposed: MockApi, training: dict[str, Any], reason: str
) -> None:
    job_id = today.http.post("/", json=job_body(**training)).json()["job_id"]
    job = settled(today, job_id)
    assert job["status"] == "failed"
    assert reason in job["reason"], job
    accepted = proposed.http.post("/", json=job_body(**training)).json()["job_id"]
    assert settled(proposed, accepted)["status"] == "running"


def test_a_config_live_loads_runs(today: MockApi) -> None:
    body = job_body(attn_implementation="flash_attention_3", ds_config=DS_OK)
    job_id = today.http.post("/", json=body).json()["job_id"]
    assert settled(today, job_id)["status"] == "running"


def test_fewer_rows_than_training_gpus_are_refused(today: MockApi) -> None:
    job_id = today.create_job(n_gpus=4)
    message = refused(submit(today, job_id, grpo_frame()), "kwargs", "input_ids")
    assert "2 rows for 4 training GPUs" in message


def test_step_one_pi_old_is_the_services_own_forward_bit_for_bit(
    live_reference_mock: LiveMock,
) -> None:
    """On the reference backend, today's mode: the forward operation's log-probs, sent
    back as old_log_probs_shifted, are grpo's own (ratio exactly 1); one column off, not."""
    api = MockApi(live_reference_mock)
    job_id = api.create_job()
    accepted = forward_operation(api, job_id, forward_frame(["compute_logprobs"]))
    own = api.result(job_id, accepted.json()["request_id"])["logprobs"]
    frame = grpo_frame()
    frame["context"]["old_log_probs_shifted"] = own
    trained = api.result(job_id, submit(api, job_id, frame).json()["request_id"])
    answered = torch.tensor(trained["post_process_outputs"]["logprobs"], dtype=torch.float32)
    assert torch.equal(answered, own)
    assert trained["metrics"] == {"importance_weight": 1.0, "clip_ratio": 0.0}
    frame["context"]["old_log_probs_shifted"] = torch.roll(own, 1, dims=1)
    off = api.result(job_id, submit(api, job_id, frame).json()["request_id"])
    assert off["metrics"]["importance_weight"] != 1.0
    api.close()


def test_the_operation_cap_is_the_contracts() -> None:
    contract = yaml.safe_load(CONTRACT.read_text())
    payload = contract["components"]["schemas"]["ForwardOperationPayload"]
    assert Settings.max_operation_body_bytes == payload["x-max-json-bytes"] == 16 * 1024 * 1024
