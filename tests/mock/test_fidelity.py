"""The mock answers like today's service (issue #10): what the published client and older
clients send is accepted, and answers come back in today's shapes.

Plain httpx over 127.0.0.1 plus the DSSST1 codec; every expectation is written out from
the service's published description (cited as spec:LINE in ../shared/reference/fidelity.md).
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import torch

from arctic_rl import wire
from mock_server.testing import LiveMock, MockApi, request_chunks

SUB_JOB_DEFAULTS = {
    # What the published client's config.to_cortex() sends with default training settings:
    # no optimizer, no train_batch_size (client/config.py:319-325).
    "sampling": {
        "job_type": "sampling",
        "model_name": "tiny-byte-lm",
        "inference_config": {"max_seq_len": 64, "n_gpus": 1},
    },
    "training": {
        "job_type": "training",
        "model_name": "tiny-byte-lm",
        "training_config": {"max_seq_len": 64, "n_gpus": 1},
    },
}


@pytest.fixture
def api(live_mock: LiveMock) -> Iterator[MockApi]:
    client = MockApi(live_mock)
    yield client
    client.close()


def create(api: MockApi, *sub_jobs: dict[str, Any], **extra: Any) -> str:
    response = api.http.post("/", json={"sub_job_configs": list(sub_jobs), **extra})
    assert response.status_code == 200, response.text
    job_id = str(response.json()["job_id"])
    api.wait_running(job_id)
    return job_id


def default_job(api: MockApi, **training: Any) -> str:
    tcfg = {**SUB_JOB_DEFAULTS["training"]["training_config"], **training}
    return create(
        api, SUB_JOB_DEFAULTS["sampling"], {**SUB_JOB_DEFAULTS["training"], "training_config": tcfg}
    )


def minimal_frame(seed: int = 0, bsz: int = 2, width: int = 10) -> dict[str, Any]:
    """The service's minimal forward-backward object (spec:519-523): input_ids + labels."""
    ids = torch.randint(0, 256, (bsz, width), generator=torch.Generator().manual_seed(seed))
    labels = torch.roll(ids, -1, dims=-1)
    labels[:, -1] = -100
    return {"args": [], "kwargs": {"input_ids": ids, "labels": labels}}


def published_frame(bsz: int = 2, width: int = 10) -> dict[str, Any]:
    """The shape the published client's integrations send (_cortex_shared.py:154-181)."""
    gen = torch.Generator().manual_seed(7)
    ids = torch.randint(0, 256, (bsz, width), generator=gen)
    loss_mask = torch.zeros(bsz, width, dtype=torch.bool)
    loss_mask[:, width // 2 :] = True
    return {
        "args": (),
        "kwargs": {
            "input_ids": ids,
            "attention_mask": torch.ones(bsz, width, dtype=torch.int64),
            "position_ids": torch.arange(width).repeat(bsz, 1),
        },
        "context": {
            "input_ids": ids,
            "advantages": torch.randn(bsz, width, generator=gen),
            "loss_mask": loss_mask,
        },
        "processing": {
            "post": ["compute_logprobs"],
            "loss_fn": "grpo",
            "config": {"global_batch_size": bsz},
        },
    }


def bare(api: MockApi, job_id: str, route: str, value: Any) -> dict[str, Any]:
    """POST ``value`` as one bare DSSST1 frame and return the completed result."""
    response = api.http.post(f"/{job_id}/{route}", content=wire.dumps(value))
    assert response.status_code == 202, response.text
    return dict(api.result(job_id, response.json()["request_id"]))


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
    with caplog.at_level(logging.DEBUG, logger="mock_server"):
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
        assert result["post_process_outputs"]["logprobs"].shape == (2, 10)
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
    assert result["post_process_outputs"]["logprobs"].shape == (2, 10)
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
    assert len(store.requests_in(("done",), job_id)) == 1  # one execution, one record


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
        "updated_at",
        "result",
        "error",
        "events",
        "next_cursor",
    }
    assert done["status"] == "done" and done["error"] == "" and done["next_cursor"] == ""
    assert done["result"]["global_steps"] == 1
    capped = api.http.get(url, params={"max_events": 100000})
    assert capped.status_code == 200 and capped.json()["status"] == "done"


def paged_forward_backward(
    live_mock_factory: Callable[..., LiveMock], *, result_chunk_bytes: int, bsz: int, width: int
) -> tuple[MockApi, str, str]:
    """A finished bare forward-backward on a mock that pages results above 1 KiB."""
    api = MockApi(
        live_mock_factory(inline_result_bytes=1024, result_chunk_bytes=result_chunk_bytes)
    )
    job_id = default_job(api)
    frame = wire.dumps(published_frame(bsz=bsz, width=width))
    request_id = api.http.post(f"/{job_id}/forward-backward", content=frame).json()["request_id"]
    api.wait(job_id, request_id)
    return api, job_id, request_id


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
    assert result["post_process_outputs"]["logprobs"].shape == (8, 40)
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


# ----------------------------------------------------------------- operations
def op(api: MockApi, job_id: str, operation_type: str, **fields: Any) -> httpx.Response:
    return api.http.post(f"/{job_id}/operation", json={"operation_type": operation_type, **fields})


def test_forward_operation_takes_a_base64_frame(api: MockApi) -> None:
    job_id = default_job(api)
    frame = wire.dumps(published_frame())
    payload = {
        "payload_b64": base64.b64encode(frame).decode(),
        "content_type": "application/octet-stream",
    }
    response = op(api, job_id, "forward", sub_job_id=f"{job_id}:training:0", payload=payload)
    assert response.status_code == 202
    result = api.result(job_id, response.json()["request_id"])
    assert result["model_outputs"]["logprobs"].shape == (2, 10)
    broken = op(api, job_id, "forward", payload={"payload_b64": "not base64!"})
    assert broken.status_code == 422
    assert broken.json()["detail"][0]["loc"] == ["body", "payload", "payload_b64"]
    assert op(api, job_id, "forward", payload={}).status_code == 422


def test_weight_sync_takes_cuda_ipc_and_low_memory(api: MockApi) -> None:
    job_id = default_job(api)
    tid, sid = f"{job_id}:training:0", f"{job_id}:sampling:0"
    payload = {
        "source_sub_job_id": tid,
        "target_sub_job_ids": [sid],
        "cuda_ipc": True,
        "low_memory": False,
    }
    response = op(
        api, job_id, "weight-sync", sub_job_id=tid, sub_job_type="training", payload=payload
    )
    assert response.status_code == 202
    result = api.result(job_id, response.json()["request_id"])
    assert result == {"synced_sub_job_ids": [sid], "weight_format": "vllm", "version": 1}
    mismatch = op(api, job_id, "weight-sync", sub_job_id=tid, sub_job_type="sampling")
    assert mismatch.status_code == 400
    foreign = op(api, job_id, "weight-sync", payload={"target_sub_job_ids": ["job-x:sampling:0"]})
    assert foreign.status_code == 400


def test_router_replay_operations_answer_inline(api: MockApi) -> None:
    job_id = default_job(api)
    tid, sid = f"{job_id}:training:0", f"{job_id}:sampling:0"
    boot = op(
        api,
        job_id,
        "bootstrap-router-replay",
        sub_job_id=tid,
        payload={"source_sub_job_id": sid, "target_sub_job_id": tid, "max_cache_bytes": 4096},
    )
    assert boot.status_code == 200
    assert boot.json() == {
        "bootstrapped": True,
        "source_sub_job_id": sid,
        "target_sub_job_id": tid,
        "max_cache_bytes": 4096,
    }
    discard = op(
        api,
        job_id,
        "router-replay-discard",
        sub_job_id=sid,
        payload={"sample_ids": ["s-1", "s-2", "s-1"], "extra_field": 1},
    )
    assert (discard.status_code, discard.json()) == (200, {"discarded": 2})
    nothing = op(api, job_id, "router-replay-discard", payload={})
    assert (nothing.status_code, nothing.json()) == (200, {"discarded": 0})
    half = op(api, job_id, "bootstrap-router-replay", payload={"source_sub_job_id": sid})
    assert half.status_code == 422
    assert half.json()["detail"][0]["loc"] == ["body", "payload", "target_sub_job_id"]
    assert op(api, job_id, "sleep").status_code == 422  # not on the wire today


def test_tail_logs_pages_and_serves_while_placing(
    live_mock_factory: Callable[..., LiveMock],
) -> None:
    mock = live_mock_factory(transition_delay_s=0.3)
    api = MockApi(mock)
    job_id = api.http.post("/", json={"sub_job_configs": [SUB_JOB_DEFAULTS["sampling"]]}).json()[
        "job_id"
    ]
    deadline = time.monotonic() + 10
    while api.http.get(f"/{job_id}").json()["status"] != "placing":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    placing = op(api, job_id, "tail-logs", payload={"cursor": "cursor-0", "max_lines": 50})
    assert placing.status_code == 200
    assert placing.json()["eof"] is False
    refused = op(api, job_id, "reset-prefix-cache")
    assert refused.status_code == 409 and refused.json()["error_code"] == "job_not_running"
    api.wait_running(job_id)
    lines: list[str] = []
    cursor = "cursor-0"
    while True:
        page = op(api, job_id, "tail-logs", payload={"cursor": cursor, "max_lines": 1}).json()
        lines += page["entries"]
        cursor = page["next_cursor"]
        if page["eof"]:
            break
    assert [line.split(" ", 1)[1] for line in lines] == [
        f"job {job_id} created with 1 sub-job(s)",
        "job is placing",
        "job is initializing",
        "job is running",
    ]
    again = op(api, job_id, "tail-logs", payload={"cursor": cursor}).json()
    assert again == {"entries": [], "next_cursor": cursor, "eof": True}
    api.close()


# ----------------------------------------------------------------- generate
def test_generate_with_routing_key_list_and_per_prompt_params_with_nulls(api: MockApi) -> None:
    job_id = default_job(api)
    request = {
        "prompts": ["ab", [104, 105], "c"],
        "sampling_params": [{"max_tokens": 3}, None, {"max_tokens": None, "seed": None}],
        "routing_key": ["conv-1", None, "conv-1"],
        "strict": True,
    }
    result = bare(api, job_id, "generate", request)
    assert [len(r["token_ids"]) for r in result["results"]] == [3, 16, 16]  # null: defaults
    assert result["results"][0]["text"] == "aba"
    misaligned = api.http.post(
        f"/{job_id}/generate", content=wire.dumps({**request, "routing_key": ["only-one"]})
    )
    failed = api.wait(job_id, misaligned.json()["request_id"])
    assert failed["status"] == "failed"
    assert failed["error"] == "a routing_key list must have one entry per prompt"


def test_generate_stream_events_are_consumed_as_read(api: MockApi) -> None:
    job_id = default_job(api)
    body = {
        "prompts": ["hi", [5000], "yo"],
        "sampling_params": [{"max_tokens": 2}, None, {"max_tokens": 1}],
    }
    response = api.http.post(
        f"/{job_id}/generate-stream",
        content=json.dumps(body).encode(),
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 202
    accepted = response.json()
    assert accepted["count"] == 3 and accepted["job_id"] == job_id
    url = f"/{job_id}/requests/{accepted['request_id']}"
    events: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    while not events or events[-1]["type"] != "done":
        page = api.http.get(url, params={"max_events": 1}).json()
        assert page["next_cursor"] == "" and len(page["events"]) <= 1
        events += page["events"]
        assert time.monotonic() < deadline, events
    assert [(e["type"], e["index"]) for e in events[:-1]] == [
        ("result", 0),
        ("error", 1),
        ("result", 2),
    ]
    assert events[0]["result"]["text"] == "hi" and events[2]["result"]["text"] == "y"
    assert events[1]["error"] == "token ids must lie in [0, 1024)"
    assert events[-1] == {"type": "done", "completed": 2, "failed": 1}
    final = api.http.get(url).json()
    assert final["status"] == "done" and final["events"] == []
    not_json = api.http.post(f"/{job_id}/generate-stream", content=b"\xff")
    assert not_json.status_code == 400


# ----------------------------------------------------------------- load, experiment, export
def test_load_targets_only_training_sub_jobs(api: MockApi) -> None:
    job_id = default_job(api)
    checkpoint = api.run(job_id, "save", {})["checkpoint_id"]
    sampling = api.http.post(
        f"/{job_id}/load",
        json={"checkpoint_id": checkpoint, "target_sub_job_id": f"{job_id}:sampling:0"},
    )
    assert sampling.status_code == 501 and sampling.json()["code"] == 501
    foreign = api.http.post(
        f"/{job_id}/load", json={"checkpoint_id": checkpoint, "target_sub_job_id": "x:training:0"}
    )
    assert foreign.status_code == 400
    loaded = api.run(
        job_id, "load", {"checkpoint_id": checkpoint, "target_sub_job_id": f"{job_id}:training:0"}
    )
    assert loaded == {
        "checkpoint_id": checkpoint,
        "source_job_id": job_id,
        "global_steps": 0,
        "target_sub_job_id": f"{job_id}:training:0",
    }


def test_any_database_and_schema_is_served(live_mock: LiveMock) -> None:
    root = f"{live_mock.root_url}/api/v2/databases/OTHER_DB/schemas/S2/cortex-training"
    with httpx.Client(base_url=root, headers=live_mock.headers()) as http:
        created = http.post("/", json={"sub_job_configs": [SUB_JOB_DEFAULTS["sampling"]]})
        job_id = created.json()["job_id"]
        run = http.get(f"/{job_id}/experiment-run").json()
        assert run == {
            "experiment_name": "OTHER_DB.S2.ARCTIC_RL_MOCK",
            "experiment_run_name": job_id.upper().replace("-", "_"),
        }
        wrong_endpoint = http.get(root.replace("cortex-training", "elsewhere") + "/capacity")
        assert wrong_endpoint.status_code == 404


def test_export_links_download_the_checkpoints_files(api: MockApi) -> None:
    job_id = default_job(api)
    checkpoint = api.run(job_id, "save", {})["checkpoint_id"]
    exported = api.http.post(f"/{job_id}/checkpoints/{checkpoint}:export")
    assert exported.status_code == 200
    body = exported.json()
    assert body["checkpoint_id"] == checkpoint and body["expires_at"].endswith("Z")
    assert [f["filename"] for f in body["files"]] == ["canned_state.json"]
    link = body["files"][0]
    downloaded = httpx.get(link["url"])  # no auth headers: the link is the credential
    assert downloaded.status_code == 200
    assert len(downloaded.content) == link["size_bytes"]
    assert downloaded.json() == {"steps": 0}
    forged = link["url"][:-1] + ("1" if link["url"].endswith("0") else "0")
    assert httpx.get(forged).status_code == 404
    missing = api.http.post(f"/{job_id}/checkpoints/none:export")
    assert missing.status_code == 404 and missing.json()["error_code"] == "checkpoint_not_found"


def test_max_events_above_512_is_capped_not_refused(
    live_mock_factory: Callable[..., LiveMock],
) -> None:
    api, job_id, request_id = paged_forward_backward(
        live_mock_factory, result_chunk_bytes=8, bsz=4, width=400
    )
    url = f"/{job_id}/requests/{request_id}"
    page = api.http.get(url, params={"max_events": 5000}).json()
    assert len(page["events"]) == 512 and page["next_cursor"] == "ev-512"
    rest = api.http.get(url, params={"max_events": 5000, "cursor": "ev-512"}).json()
    assert rest["next_cursor"] == "" and 0 < len(rest["events"]) <= 512
    chunks = [base64.b64decode(e["payload_b64"]) for e in page["events"] + rest["events"]]
    result = wire.loads(wire.join_chunks(chunks, kind="result_chunk"))
    assert result["post_process_outputs"]["logprobs"].shape == (4, 400)
    api.close()
