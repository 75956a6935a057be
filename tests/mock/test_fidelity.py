"""The mock answers like today's service (issue #10): what the published client and older
clients send is accepted, and answers come back in today's shapes.

Plain httpx over 127.0.0.1 plus the DSSST1 codec; every expectation is written out from
the service's published description (cited as spec:LINE in ../shared/reference/fidelity.md).
"""

from __future__ import annotations

import base64
import logging
import re
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest
import torch

from arctic_rl import wire
from devtools.live_mock import LiveMock, MockApi, request_chunks

from .fidelity import (
    SUB_JOB_DEFAULTS,
    bare,
    create,
    default_job,
    full_width,
    minimal_frame,
    paged_forward_backward,
    published_frame,
)


# ----------------------------------------------------------------- open request bodies
def test_create_job_with_the_published_clients_default_training_settings(
    api: MockApi, caplog: pytest.LogCaptureFixture
) -> None:
    training = {
        **SUB_JOB_DEFAULTS["training"],
        "seed": 3,
        "model_post_init": ["tie_weights"],
        "training_config": {
            "max_seq_len": 64,
            "n_gpus": 1,
            "optimizer": {"name": "AdamW", "lr": 1e-4, "betas": [0.9, 0.95]},
            "ds_config": {"zero_optimization": {"stage": 2}},
            "activation_checkpointing": True,
        },
    }
    sampling = {
        **SUB_JOB_DEFAULTS["sampling"],
        "inference_config": {"max_seq_len": 64, "n_gpus": 1, "vllm_config": {"enforce_eager": 1}},
    }
    with caplog.at_level(logging.DEBUG, logger="arctic_rl_mock"):
        job_id = create(api, sampling, training, debug={"trace": True})
    ignored = " ".join(r.getMessage() for r in caplog.records if "ignoring" in r.getMessage())
    assert "body.debug" in ignored
    job = api.http.get(f"/{job_id}").json()
    assert [s["sub_job_id"] for s in job["sub_jobs"]] == [
        f"{job_id}:sampling:0",
        f"{job_id}:training:0",
    ]
    assert job["sub_jobs"][1]["training_config"] == training["training_config"]
    assert job["sub_jobs"][0]["inference_config"]["vllm_config"] == {"enforce_eager": 1}
    assert job["submitted_by"] == "MOCK_USER" and job["owner_role"] == "MOCK_ROLE"
    assert api.run(job_id, "step", {})["last_lr"] == pytest.approx(1e-4)  # optimizer by name


def test_save_takes_the_published_clients_fields_and_answers_the_servers_id(
    api: MockApi,
) -> None:
    job_id = default_job(api)
    api.run(job_id, "step", {})
    saved = api.run(
        job_id,
        "save",
        {
            "checkpoint_id": "callers-choice",
            "checkpoint_type": "resumable",
            "path": "/somewhere",
            "step": 7,
            "export_hf": False,
            "save_total_limit": 2,
            "stage_info": {"stage": "@db.s.stage"},
        },
    )
    assert saved["checkpoint_id"] == "global_step1"
    assert saved["checkpoint_tag"] == "global_step1"
    listed = api.http.get(f"/{job_id}/checkpoints").json()["checkpoints"]
    assert [c["checkpoint_id"] for c in listed] == ["global_step1"]


# ----------------------------------------------------------------- forward-backward frames
def test_bare_minimal_frame_trains_and_each_post_is_its_own_execution(
    live_reference_mock: LiveMock,
) -> None:
    api = MockApi(live_reference_mock)
    job_id = default_job(api, optimizer={"name": "AdamW", "lr": 1e-2})
    frame = minimal_frame()
    losses = []
    for _ in range(4):
        result = bare(api, job_id, "forward-backward", frame)
        assert full_width(result["post_process_outputs"]["logprobs"]) == (2, 10)
        losses.append(result["avg_loss"])
        api.run(job_id, "step", {})
    assert losses == sorted(losses, reverse=True) and losses[-1] < losses[0]
    assert 3.0 < losses[0] < 8.0  # an untrained byte model: a few nats per token
    assert api.run(job_id, "step", {})["global_steps"] == 5
    api.close()


def test_labels_choose_the_targets_and_minus_100_is_ignored(
    live_reference_mock: LiveMock,
) -> None:
    """Masking every label leaves nothing to learn: zero loss, whatever the tokens."""
    api = MockApi(live_reference_mock)
    job_id = default_job(api)
    frame = minimal_frame()
    frame["kwargs"]["labels"] = torch.full_like(frame["kwargs"]["input_ids"], -100)
    assert bare(api, job_id, "forward-backward", frame)["avg_loss"] == 0.0
    api.close()


def test_published_clients_frame_trains_enveloped(live_reference_mock: LiveMock) -> None:
    api = MockApi(live_reference_mock)
    job_id = default_job(api)
    result = api.run_frame(job_id, "forward-backward", published_frame())
    assert set(result) >= {"job_id", "avg_loss", "metrics", "post_process_outputs"}
    assert result["job_id"] == job_id
    assert full_width(result["post_process_outputs"]["logprobs"]) == (2, 10)
    assert "entropy" not in result["post_process_outputs"]
    assert torch.isfinite(torch.tensor(result["avg_loss"]))
    api.close()


def test_bare_frame_with_a_bad_batch_fails_the_request(api: MockApi) -> None:
    job_id = default_job(api)
    response = api.http.post(
        f"/{job_id}/forward-backward", content=wire.dumps({"kwargs": {"labels": [1]}})
    )
    failed = api.wait(job_id, response.json()["request_id"])
    assert failed["status"] == "failed"
    assert failed["error"] == "batch needs a 2-D input_ids tensor"
    assert failed["error_code"] == "bad_value"


def test_retried_final_chunk_resolves_to_the_one_execution(
    api: MockApi, live_mock: LiveMock
) -> None:
    job_id = default_job(api)
    chunks = request_chunks(published_frame(), payload_bytes=256, group="retry-final")
    first = api.post_chunks(job_id, "forward-backward", chunks)[-1]
    retried = api.http.post(f"/{job_id}/forward-backward", content=chunks[-1])
    assert first.status_code == retried.status_code == 202
    results = [api.result(job_id, r.json()["request_id"]) for r in (first, retried)]
    assert results[0]["avg_loss"] == results[1]["avg_loss"]
    store = live_mock.app.state.service.store
    assert len(store.requests.requests_in(("done",), job_id)) == 1  # one execution, one record


# ----------------------------------------------------------------- request status
def test_request_status_in_todays_shape(api: MockApi, live_mock: LiveMock) -> None:
    """No job_id; done; error "" ; next_cursor "" while nothing is queued (in flight too)."""
    job_id = default_job(api)
    backend = live_mock.app.state.service.worker.backend
    release = threading.Event()
    original = backend.step

    def held_step(*args: Any, **kwargs: Any) -> dict[str, Any]:
        release.wait(30)
        return dict(original(*args, **kwargs))

    backend.step = held_step
    try:
        request_id = api.http.post(f"/{job_id}/step", json={}).json()["request_id"]
        url = f"/{job_id}/requests/{request_id}"
        deadline = time.monotonic() + 10
        while (running := api.http.get(url).json())["status"] != "running":
            assert time.monotonic() < deadline, running
            time.sleep(0.01)
        assert running["next_cursor"] == "" and running["events"] == []
        assert running["error"] == "" and running["result"] == {}
        assert "job_id" not in running
    finally:
        release.set()
        del backend.step
    done = api.wait(job_id, request_id)
    assert set(done) == {
        "request_id",
        "status",
        "created_at",
        "started_at",  # proposed: when it began to run (not narrowing what clients read)
        "updated_at",
        "result",
        "error",
        "events",
        "next_cursor",
    }
    stamps = [datetime.fromisoformat(done[k]) for k in ("created_at", "started_at", "updated_at")]
    assert stamps == sorted(stamps) and stamps[0] < stamps[2]
    assert done["status"] == "done" and done["error"] == "" and done["next_cursor"] == ""
    assert done["result"]["global_steps"] == 1
    capped = api.http.get(url, params={"max_events": 100000})
    assert capped.status_code == 200 and capped.json()["status"] == "done"


def test_paged_result_chunks_stop_at_an_empty_cursor(
    live_mock_factory: Callable[..., LiveMock],
) -> None:
    api, job_id, request_id = paged_forward_backward(
        live_mock_factory, result_chunk_bytes=512, bsz=8, width=40
    )
    cursors, chunks, cursor = [], [], None
    while True:
        params = {"max_events": 2, **({"cursor": cursor} if cursor else {})}
        page = api.http.get(f"/{job_id}/requests/{request_id}", params=params).json()
        chunks += [base64.b64decode(e["payload_b64"]) for e in page["events"]]
        cursor = page["next_cursor"]
        cursors.append(cursor)
        if not cursor:
            break
    assert cursors[-1] == "" and all(re.fullmatch(r"ev-\d+", c) for c in cursors[:-1])
    assert len(cursors) == (len(chunks) + 1) // 2
    result = wire.loads(wire.join_chunks(chunks, kind="result_chunk"))
    assert full_width(result["post_process_outputs"]["logprobs"]) == (8, 40)
    api.close()


# ----------------------------------------------------------------- errors, cancel, capacity
def test_errors_in_todays_shapes(api: MockApi) -> None:
    missing = api.http.get("/job-nope")
    body = missing.json()
    assert missing.status_code == 404
    assert (body["message"], body["code"], body["error_code"]) == (
        "job job-nope not found",
        404,
        "job_not_found",
    )
    invalid = api.http.post("/", json={"sub_job_configs": []}).json()
    assert invalid["detail"][0]["loc"] == ["body", "sub_job_configs"]
    assert invalid["code"] == 422
    job_id = default_job(api)
    late = request_chunks(minimal_frame(), payload_bytes=128, group="late-group", operation=None)[1]
    restart = api.http.post(f"/{job_id}/forward-backward", content=late)
    assert restart.status_code == 409
    assert restart.json()["code"] == "chunk_group_restart_required"
    assert restart.json()["chunk_group_id"] == "late-group"


def test_cancel_answers_an_empty_200(api: MockApi) -> None:
    job_id = default_job(api)
    for _ in range(2):
        response = api.http.post(f"/{job_id}:cancel")
        assert (response.status_code, response.content) == (200, b"")
    assert api.http.get(f"/{job_id}").json()["status"] == "cancelled"


def test_capacity_and_jobs_follow_proto3_omission(live_mock: LiveMock) -> None:
    with httpx.Client(base_url=live_mock.base_url, headers=live_mock.headers()) as http:
        assert http.get("/capacity").json() == {"max_total_gpus": 64, "available_gpus": 64}
        assert http.get("/").json() == {"jobs": []}


def test_peak_memory_in_bytes_only_when_asked(api: MockApi) -> None:
    quiet = default_job(api)
    assert "peak_memory" not in api.run(quiet, "step", {})
    logged = default_job(api, step_peak_memory_log=True)
    peak = api.run(logged, "step", {})["peak_memory"]
    assert set(peak) == {"gpu_peak", "cpu_peak"}
    assert peak["gpu_peak"] == 0  # the canned backend has no GPU
    assert isinstance(peak["cpu_peak"], int) and peak["cpu_peak"] > 10 * 2**20
