"""Fidelity (issue #10), continued: the operation envelope, sampling, loads, accounts,
exports and paging, each as today's service answers them (see test_fidelity.py)."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from typing import Any

import httpx

from arctic_rl import wire
from devtools.live_mock import LiveMock, MockApi

from .fidelity import (
    SUB_JOB_DEFAULTS,
    bare,
    default_job,
    op,
    paged_forward_backward,
    published_frame,
)


# ----------------------------------------------------------------- operations
def test_forward_operation_takes_a_base64_frame(proposed_api: MockApi) -> None:
    job_id = default_job(proposed_api)
    frame = wire.dumps(published_frame())
    payload = {
        "payload_b64": base64.b64encode(frame).decode(),
        "content_type": "application/octet-stream",
    }
    response = op(
        proposed_api, job_id, "forward", sub_job_id=f"{job_id}:training:0", payload=payload
    )
    assert response.status_code == 202
    result = proposed_api.result(job_id, response.json()["request_id"])
    assert result["model_outputs"]["logprobs"].shape == (2, 10)
    broken = op(proposed_api, job_id, "forward", payload={"payload_b64": "not base64!"})
    assert broken.status_code == 422
    assert broken.json()["detail"][0]["loc"] == ["body", "payload", "payload_b64"]
    assert op(proposed_api, job_id, "forward", payload={}).status_code == 422


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
        "prompts": ["hi", [1_000_000], "yo"],
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
    assert events[1]["error"] == "token ids must lie in [0, 524288)"
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
    proposed_api, job_id, request_id = paged_forward_backward(
        live_mock_factory, result_chunk_bytes=8, bsz=4, width=400, service="proposed"
    )
    url = f"/{job_id}/requests/{request_id}"
    page = proposed_api.http.get(url, params={"max_events": 5000}).json()
    assert len(page["events"]) == 512 and page["next_cursor"] == "ev-512"
    rest = proposed_api.http.get(url, params={"max_events": 5000, "cursor": "ev-512"}).json()
    assert rest["next_cursor"] == "" and 0 < len(rest["events"]) <= 512
    chunks = [base64.b64decode(e["payload_b64"]) for e in page["events"] + rest["events"]]
    result = wire.loads(wire.join_chunks(chunks, kind="result_chunk"))
    assert result["post_process_outputs"]["logprobs"].shape == (4, 400)
    proposed_api.close()
