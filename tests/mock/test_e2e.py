"""End-to-end over real HTTP: uvicorn on 127.0.0.1, plain httpx and the DSSST1 codec.

Covers the protocol promises of the contract: job lifecycle, chunked forward-backward
with polling, chunk-group rules (including a mock restart mid-group), Idempotency-Key,
body caps, bad frames, authentication and paged large results.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import torch
from cortex_gs_contract import REQUEST_ID_HEADER, TOKEN_TYPE_HEADER

from arctic_rl import wire
from mock_server.testing import LiveMock, MockApi, request_chunks

# The committed copy of the golden frames (shared/golden/dssst1), so no run depends on shared/.
GOLDEN = Path(__file__).resolve().parents[1] / "wire" / "golden"
SMALL_CHUNK = 512  # payload bytes per chunk, so small batches still span several chunks


def train_batch(bsz: int = 4, prompt: int = 6, response: int = 6, seed: int = 0) -> dict[str, Any]:
    """A verl-style ForwardBackwardBatch value."""
    gen = torch.Generator().manual_seed(seed)
    width = prompt + response
    ids = torch.randint(0, 256, (bsz, width), generator=gen)
    return {
        "args": [],
        "kwargs": {
            "input_ids": ids,
            "attention_mask": torch.ones(bsz, width, dtype=torch.int64),
            "position_ids": torch.arange(width).repeat(bsz, 1),
            "prompts": ids[:, :prompt],
            "responses": ids[:, prompt:],
            "response_mask": torch.ones(bsz, response, dtype=torch.int64),
            "advantages": torch.randn(bsz, response, generator=gen),
            "old_log_probs": torch.full((bsz, response), -5.5),
        },
        "meta": {"global_batch_size": bsz},
        "processing": {"post": ["logprobs", "entropy"], "loss_fn": "grpo", "config": {}},
    }


def chunks_of(
    value: Any, group: str, *, payload: int = SMALL_CHUNK, op: str = "fwd-bwd"
) -> list[bytes]:
    """Force a chunk envelope with small chunks and a chosen group id."""
    return request_chunks(value, payload_bytes=payload, group=group, operation=op)


@pytest.fixture
def api(live_mock: LiveMock) -> Iterator[MockApi]:
    client = MockApi(live_mock)
    yield client
    client.close()


def executions(mock: LiveMock, job_id: str, kind: str) -> int:
    """How many requests of ``kind`` the mock recorded for the job (read from its store)."""
    with sqlite3.connect(mock.state_dir / "mock.sqlite3") as db:
        query = "SELECT COUNT(*) FROM requests WHERE job_id = ? AND kind = ?"
        return int(db.execute(query, (job_id, kind)).fetchone()[0])


# ------------------------------------------------------------------------- happy path
def test_job_walks_to_running_with_delays(live_mock_factory: Callable[..., LiveMock]) -> None:
    mock = live_mock_factory(transition_delay_s=0.5)
    with httpx.Client(base_url=mock.base_url, headers=mock.headers()) as http:
        body = {
            "sub_job_configs": [
                {
                    "job_type": "sampling",
                    "model_name": "m",
                    "inference_config": {"max_seq_len": 8, "n_gpus": 2},
                },
                {
                    "job_type": "log_probability",
                    "model_name": "m",
                    "inference_config": {"max_seq_len": 8, "n_gpus": 1},
                },
            ],
            "experiment_name": "lifecycle",
        }
        job_id = http.post("/", json=body).json()["job_id"]
        seen: list[str] = []
        while not seen or seen[-1] != "running":
            job = http.get(f"/{job_id}").json()
            if not seen or seen[-1] != job["status"]:
                seen.append(job["status"])
            time.sleep(0.02)
        assert seen[0] != "running"  # 1.5 s of delays: the first poll sees an earlier state
        assert seen == [s for s in ("pending", "placing", "initializing", "running") if s in seen]
        assert [s["sub_job_id"] for s in job["sub_jobs"]] == [
            f"{job_id}:sampling:0",
            f"{job_id}:log_prob:0",
        ]
        listed = http.get("/", params={"status": "running"}).json()["jobs"]
        assert [j["job_id"] for j in listed] == [job_id]
        assert (
            http.get(f"/{job_id}/experiment-run").json()["experiment_name"].endswith(".lifecycle")
        )
        assert http.get("/capacity").json()["in_use_gpus"] == 3


def test_chunked_forward_backward_step_and_poll(api: MockApi) -> None:
    job_id = api.create_job()
    chunks = chunks_of(train_batch(), "group-a")
    assert len(chunks) >= 3
    responses = api.post_chunks(job_id, "forward-backward", chunks)
    for i, response in enumerate(responses[:-1]):
        assert response.status_code == 200
        assert response.json() == {
            "job_id": job_id,
            "chunk_group_id": "group-a",
            "chunk_idx": i,
            "received_chunks": i + 1,
            "total_chunks": len(chunks),
        }
    assert responses[-1].status_code == 202
    request_id = responses[-1].json()["request_id"]
    result = api.result(job_id, request_id)
    assert set(result["metrics"]) >= {
        "grad_norm",
        "ppo_kl",
        "pg_clipfrac_lower",
        "pg_loss",
        "kl_loss",
        "kl_coef",
    }
    assert result["post_process_outputs"]["logprobs"].shape == (4, 12)
    assert result["post_process_outputs"]["entropy"].dtype == torch.float32
    step = api.run(job_id, "step", {"learning_rate": 0.5})
    assert step["global_steps"] == 1 and step["last_lr"] == 0.5
    assert set(step["metrics"]) >= {"grad_norm", "pg_loss"}


def test_every_response_carries_request_id(live_mock: LiveMock) -> None:
    with httpx.Client(base_url=live_mock.base_url) as http:
        ok = http.get("/capacity", headers=live_mock.headers())
        denied = http.get("/capacity")
        missing = http.get("/no-such-job", headers=live_mock.headers())
    for response in (ok, denied, missing):
        assert response.headers[REQUEST_ID_HEADER]
    assert denied.json()["request_id"] == denied.headers[REQUEST_ID_HEADER]
    assert missing.status_code == 404 and missing.json()["error_code"] == "job_not_found"


# ------------------------------------------------------------------------- chunk groups
def test_duplicated_chunk_group_executes_once(api: MockApi, live_mock: LiveMock) -> None:
    job_id = api.create_job()
    chunks = chunks_of(train_batch(), "dup-group")
    first = api.post_chunks(job_id, "forward-backward", chunks)[-1].json()
    again = api.post_chunks(job_id, "forward-backward", chunks)
    assert [r.status_code for r in again] == [200] * (len(chunks) - 1) + [202]
    assert again[-1].json() == first
    assert api.http.post(f"/{job_id}/forward-backward", content=chunks[-1]).json() == first
    api.result(job_id, first["request_id"])
    assert executions(live_mock, job_id, "forward_backward") == 1


def test_chunk_group_rules(api: MockApi) -> None:
    job_id = api.create_job()
    chunks = chunks_of(train_batch(), "rules")
    route = f"/{job_id}/forward-backward"
    late = api.http.post(route, content=chunks[1])
    assert late.status_code == 409 and late.json()["code"] == "chunk_group_restart_required"
    assert api.http.post(route, content=chunks[0]).status_code == 200
    assert api.http.post(route, content=chunks[0]).status_code == 200  # same bytes: harmless
    other = chunks_of(train_batch(seed=1), "rules")
    clash = api.http.post(route, content=other[0])
    assert clash.status_code == 409 and clash.json()["code"] == "chunk_group_conflict"
    gap = api.http.post(route, content=chunks[-1])
    assert gap.status_code == 409 and gap.json()["code"] == "chunk_group_missing_chunks"
    missing = {issue["loc"][-1] for issue in gap.json()["details"]}
    assert missing == set(range(1, len(chunks) - 1))
    wrong_route = api.http.post(f"/{job_id}/forward-no-grad", content=chunks[1])
    assert wrong_route.status_code == 409
    rest = api.post_chunks(job_id, "forward-backward", chunks[1:])
    assert rest[-1].status_code == 202
    assert api.wait(job_id, rest[-1].json()["request_id"])["status"] == "done"


def test_restart_in_the_middle_of_a_chunk_group(live_mock: LiveMock) -> None:
    api = MockApi(live_mock)
    job_id = api.create_job()
    chunks = chunks_of(train_batch(), "survives-restart")
    half = len(chunks) // 2
    assert all(
        r.status_code == 200 for r in api.post_chunks(job_id, "forward-backward", chunks[:half])
    )
    api.close()
    live_mock.restart()
    api = MockApi(live_mock)
    assert api.http.get(f"/{job_id}").json()["status"] == "running"
    rest = api.post_chunks(job_id, "forward-backward", chunks[half:])
    assert rest[0].json()["received_chunks"] == half + 1
    assert rest[-1].status_code == 202
    result = api.result(job_id, rest[-1].json()["request_id"])
    assert result["post_process_outputs"]["logprobs"].shape == (4, 12)
    # The finished group still resolves to the same request after another restart.
    api.close()
    live_mock.restart()
    api = MockApi(live_mock)
    replay = api.http.post(f"/{job_id}/forward-backward", content=chunks[-1])
    assert replay.json() == rest[-1].json()
    api.close()


def test_forward_no_grad_and_bare_or_chunked_generate(api: MockApi) -> None:
    job_id = api.create_job()
    batch = train_batch()
    del batch["kwargs"]["advantages"], batch["kwargs"]["old_log_probs"]
    batch["reference_model"] = True
    out = api.run_frame(job_id, "forward-no-grad", batch, chunk_bytes=SMALL_CHUNK)
    assert out["model_outputs"]["logprobs"].shape == (4, 12)
    request = {"prompts": ["hello", [104, 105]], "sampling_params": {"max_tokens": 4}}
    bare = api.run_frame(job_id, "generate", request)
    assert [len(r["token_ids"]) for r in bare["results"]] == [4, 4]
    chunks = chunks_of(request, "gen-group", payload=64, op="generate")
    final = api.post_chunks(job_id, "generate", chunks)[-1]
    assert final.status_code == 202
    assert api.result(job_id, final.json()["request_id"]) == bare


# ------------------------------------------------------------------------- idempotency
def test_idempotency_key_replay_and_conflict(api: MockApi) -> None:
    job_id = api.create_job()
    key = {"Idempotency-Key": "step-key-1"}
    first = api.http.post(f"/{job_id}/step", json={"learning_rate": 0.1}, headers=key)
    replay = api.http.post(f"/{job_id}/step", json={"learning_rate": 0.1}, headers=key)
    assert first.status_code == replay.status_code == 202
    assert replay.json() == first.json()
    clash = api.http.post(f"/{job_id}/step", json={"learning_rate": 0.2}, headers=key)
    assert clash.status_code == 409 and clash.json()["error_code"] == "idempotency_key_conflict"
    assert api.result(job_id, first.json()["request_id"])["global_steps"] == 1
    assert api.run(job_id, "step", {})["global_steps"] == 2  # the replay did not step

    body = {
        "sub_job_configs": [
            {
                "job_type": "sampling",
                "model_name": "m",
                "inference_config": {"max_seq_len": 8, "n_gpus": 1},
            }
        ]
    }
    created = [
        api.http.post("/", json=body, headers={"Idempotency-Key": "create-1"}) for _ in range(2)
    ]
    assert created[0].json() == created[1].json()
    jobs = api.http.get("/").json()["jobs"]
    assert sum(j["job_id"] == created[0].json()["job_id"] for j in jobs) == 1


# ------------------------------------------------------------------------- limits and errors
def test_oversized_streamed_body_gets_413(live_mock_factory: Callable[..., LiveMock]) -> None:
    mock = live_mock_factory(max_body_bytes=256 * 1024)
    api = MockApi(mock)
    job_id = api.create_job()

    def stream() -> Iterator[bytes]:
        for _ in range(64):
            yield b"\0" * 16384  # 1 MiB in all, no Content-Length

    response = api.http.post(f"/{job_id}/forward-backward", content=stream())
    assert response.status_code == 413 and response.json()["error_code"] == "payload_too_large"
    declared = api.http.post(f"/{job_id}/generate", content=b"\0" * (300 * 1024))
    assert declared.status_code == 413
    too_big_json = api.http.post(
        f"/{job_id}/step", content=b" " * (300 * 1024), headers={"content-type": "application/json"}
    )
    assert too_big_json.status_code == 413
    assert api.http.get(f"/{job_id}").json()["status"] == "running"
    api.close()


BAD_FRAMES = sorted(p.name for p in GOLDEN.glob("bad_*.bin"))


@pytest.mark.parametrize("name", BAD_FRAMES)
def test_bad_frames_get_400_with_codec_code(api: MockApi, name: str) -> None:
    job_id = api.create_job()
    data = (GOLDEN / name).read_bytes()
    try:
        wire.loads(data)
    except wire.WireError as exc:
        expected = exc.code
    else:  # pragma: no cover - golden bad frames always fail
        pytest.fail(f"{name} decoded")
    for route in ("generate", "forward-backward"):
        response = api.http.post(f"/{job_id}/{route}", content=data)
        assert response.status_code == 400, response.text
        assert response.json()["code"] == 400
        assert response.json()["error_code"] == expected


def test_bad_json_and_validation_errors(api: MockApi) -> None:
    job_id = api.create_job()
    bad = api.http.post(
        f"/{job_id}/step", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert bad.status_code == 400 and bad.json()["error_code"] == "bad_json"
    invalid = api.http.post("/", json={"sub_job_configs": []})
    assert invalid.status_code == 422 and invalid.json()["error_code"] == "validation_error"
    assert invalid.json()["detail"][0]["loc"][:2] == ["body", "sub_job_configs"]
    mixed = api.http.post(
        "/",
        json={
            "sub_job_configs": [
                {
                    "job_type": "training",
                    "model_name": "m",
                    "inference_config": {"max_seq_len": 8, "n_gpus": 1},
                }
            ]
        },
    )
    assert mixed.status_code == 422
    locs = [issue["loc"][-1] for issue in mixed.json()["detail"]]
    assert locs == ["training_config", "inference_config"]
    assert api.http.get(f"/{job_id}/requests/req-none").json()["error_code"] == "request_not_found"
    assert api.http.get(f"/{job_id}/requests/r", params={"max_events": 0}).status_code == 422
    unknown = api.http.post(f"/{job_id}/operation", json={"operation_type": "explode"})
    assert unknown.status_code == 422


def test_auth_failures_are_401(live_mock: LiveMock) -> None:
    good = live_mock.headers()
    cases = {
        "no headers": {},
        "no token type": {"Authorization": good["Authorization"]},
        "wrong token": {**good, "Authorization": "Bearer nope"},
        "wrong token type": {**good, TOKEN_TYPE_HEADER: "OAUTH"},
        "basic auth": {**good, "Authorization": "Basic dXNlcjpwYXNz"},
    }
    with httpx.Client(base_url=live_mock.base_url) as http:
        for label, headers in cases.items():
            response = http.get("/", headers=headers)
            assert response.status_code == 401, label
            assert response.json()["error_code"] == "unauthorized"
            assert live_mock.token not in response.text
        assert http.get("/", headers=good).status_code == 200


def test_no_auth_switch(live_mock_factory: Callable[..., LiveMock]) -> None:
    mock = live_mock_factory(auth=False)
    assert httpx.get(mock.base_url + "/capacity").status_code == 200


def test_job_state_errors_and_cancel(api: MockApi) -> None:
    job_id = api.create_job()
    cancelled = api.http.post(f"/{job_id}:cancel")
    assert cancelled.status_code == 200 and cancelled.content == b""
    again = api.http.post(f"/{job_id}:cancel")
    assert again.status_code == 200 and again.content == b""
    assert api.http.get(f"/{job_id}").json()["status"] == "cancelled"
    refused = api.http.post(f"/{job_id}/step", json={})
    assert refused.status_code == 409 and refused.json()["error_code"] == "job_not_running"
    chunk = chunks_of(train_batch(), "after-cancel")[0]
    assert (
        api.http.post(f"/{job_id}/forward-backward", content=chunk).json()["error_code"]
        == "job_not_running"
    )
    assert api.http.post("/job-missing:cancel").status_code == 404


def test_checkpoints_save_list_load_delete(api: MockApi) -> None:
    job_id = api.create_job()
    api.run(job_id, "step", {})
    saved = api.run(job_id, "save", {"checkpoint_type": "resumable"})
    assert saved["checkpoint_id"] == "global_step1"
    listed = api.http.get(f"/{job_id}/checkpoints").json()["checkpoints"]
    assert [c["checkpoint_id"] for c in listed] == ["global_step1"]
    api.run(job_id, "step", {})
    loaded = api.run(job_id, "load", {"checkpoint_id": "global_step1"})
    assert loaded == {"checkpoint_id": "global_step1", "source_job_id": job_id, "global_steps": 1}
    assert api.http.post(f"/{job_id}/load", json={"checkpoint_id": "nope"}).status_code == 404
    assert api.http.delete(f"/{job_id}/checkpoints/global_step1").status_code == 204
    assert (
        api.http.delete(f"/{job_id}/checkpoints/global_step1").json()["error_code"]
        == "checkpoint_not_found"
    )


def test_operations_inline_and_async(api: MockApi) -> None:
    job_id = api.create_job()
    reset = api.http.post(f"/{job_id}/operation", json={"operation_type": "reset-prefix-cache"})
    assert reset.status_code == 200
    assert reset.json() == {"reset": True, "drained": True, "sub_job_ids": [f"{job_id}:sampling:0"]}
    sync = api.http.post(
        f"/{job_id}/operation",
        json={"operation_type": "weight-sync", "payload": {"weight_format": "vllm"}},
    )
    assert sync.status_code == 202
    result = api.result(job_id, sync.json()["request_id"])
    assert result == {
        "synced_sub_job_ids": [f"{job_id}:sampling:0"],
        "weight_format": "vllm",
        "version": 1,
    }
    assert api.run(job_id, "sync-weights", {})["version"] == 2


# ------------------------------------------------------------------------- large results
def test_large_result_is_paged_as_result_chunks(live_mock_factory: Callable[..., LiveMock]) -> None:
    mock = live_mock_factory(inline_result_bytes=16 * 1024, result_chunk_bytes=4096)
    api = MockApi(mock)
    job_id = api.create_job()
    batch = train_batch(bsz=16, prompt=100, response=200)
    responses = api.post_chunks(
        job_id, "forward-backward", chunks_of(batch, "big", payload=64 * 1024)
    )
    request_id = responses[-1].json()["request_id"]
    status = api.wait(job_id, request_id)
    assert status["result"] == {} and status["status"] == "done"
    url = f"/{job_id}/requests/{request_id}"
    first = api.http.get(url, params={"max_events": 3}).json()
    again = api.http.get(url, params={"max_events": 3}).json()
    assert first["events"] == again["events"] and len(first["events"]) == 3
    second = api.http.get(url, params={"max_events": 3, "cursor": first["next_cursor"]}).json()
    repeat = api.http.get(url, params={"max_events": 3, "cursor": first["next_cursor"]}).json()
    assert second["events"] == repeat["events"]
    assert second["events"][0]["chunk_idx"] == 3
    event = first["events"][0]
    payload = base64.b64decode(event["payload_b64"])
    assert hashlib.sha256(payload).hexdigest() == event["payload_sha256"]
    descriptor = wire.read_chunk(payload).descriptor
    assert descriptor is not None and descriptor.kind == "result_chunk"
    result = api.result(job_id, request_id, max_events=5)
    assert result["post_process_outputs"]["logprobs"].shape == (16, 300)
    api.close()


def test_long_poll_returns_when_done(api: MockApi) -> None:
    job_id = api.create_job()
    request_id = api.http.post(f"/{job_id}/step", json={}).json()["request_id"]
    status = api.http.get(f"/{job_id}/requests/{request_id}", params={"wait_s": 10}).json()
    assert status["status"] == "done"
    assert json.loads(json.dumps(status["result"]))["global_steps"] == 1


def test_chunked_bad_frame_and_tampered_chunk_drop_the_group(api: MockApi) -> None:
    job_id = api.create_job()
    route = f"/{job_id}/forward-backward"
    pickle_frame = (GOLDEN / "bad_pickle.bin").read_bytes() * 8
    chunking = wire.Chunking.for_payload(
        64, kind="request_chunk", chunk_group_id="bad-inside", bare_max_bytes=0
    )
    pickle_chunks = [bytes(chunk) for chunk in wire.split_chunks(pickle_frame, chunking)]
    answers = api.post_chunks(job_id, "forward-backward", pickle_chunks)
    assert answers[-1].status_code == 400 and answers[-1].json()["error_code"] == "pickle_refused"
    late = api.http.post(route, content=pickle_chunks[1])
    assert late.json()["code"] == "chunk_group_restart_required"  # the group was dropped

    chunks = chunks_of(train_batch(), "tampered")
    bad = bytearray(chunks[1])
    bad[-1] ^= 0xFF  # payload bytes sit at the end of a chunk frame
    answers = api.post_chunks(job_id, "forward-backward", [chunks[0], bytes(bad), *chunks[2:]])
    assert answers[-1].status_code == 400 and answers[-1].json()["error_code"] == "hash_mismatch"
    again = api.post_chunks(job_id, "forward-backward", chunks)
    assert again[-1].status_code == 202


def test_failed_request_reports_error_and_state_survives_restart(live_mock: LiveMock) -> None:
    api = MockApi(live_mock)
    job_id = api.create_job()
    bad = api.http.post(f"/{job_id}/generate", content=wire.dumps({"prompts": "not a list"}))
    failed = api.wait(job_id, bad.json()["request_id"])
    assert failed["status"] == "failed" and failed["error_code"] == "bad_value"
    assert failed["error"] == "prompts must be a non-empty list"
    step = api.http.post(f"/{job_id}/step", json={}).json()
    done = api.wait(job_id, step["request_id"])
    api.close()
    live_mock.restart()
    api = MockApi(live_mock)
    assert api.wait(job_id, step["request_id"]) == done
    assert api.wait(job_id, bad.json()["request_id"]) == failed
    api.close()


def test_crash_is_a_500_error_body_with_request_id(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*_: Any, **__: Any) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(live_mock.app.state.service.store, "list_jobs", boom)
    response = httpx.get(live_mock.base_url + "/", headers=live_mock.headers())
    assert response.status_code == 500
    assert response.json()["error_code"] == "internal_error"
    assert response.json()["request_id"] == response.headers[REQUEST_ID_HEADER]
    assert "secret" not in response.text


def test_default_cap_rejects_a_61_mib_stream(live_mock: LiveMock) -> None:
    api = MockApi(live_mock)
    job_id = api.create_job()
    block = b"\0" * (1024 * 1024)

    def stream() -> Iterator[bytes]:
        for _ in range(61):
            yield block

    response = api.http.post(f"/{job_id}/forward-backward", content=stream())
    assert response.status_code == 413 and response.json()["error_code"] == "payload_too_large"
    api.close()


def test_job_starts_from_a_source_checkpoint_or_fails(api: MockApi) -> None:
    source = api.create_job()
    for _ in range(3):
        api.run(source, "step", {})
    warm_id = api.run(source, "save", {"checkpoint_id": "ignored"})["checkpoint_id"]
    assert warm_id == "global_step3"  # the server's id, not the caller's

    def sub_jobs(checkpoint_id: str) -> dict[str, Any]:
        return {
            "sub_job_configs": [
                {
                    "job_type": "training",
                    "model_name": "m",
                    "training_config": {
                        "optimizer": {"lr": 0.1},
                        "max_seq_len": 8,
                        "train_batch_size": 1,
                        "n_gpus": 1,
                    },
                    "source_checkpoint_info": {
                        "checkpoint_id": checkpoint_id,
                        "source_job_id": source,
                    },
                }
            ]
        }

    warm = api.http.post("/", json=sub_jobs(warm_id)).json()["job_id"]
    api.wait_running(warm)
    assert api.run(warm, "step", {})["global_steps"] == 4
    broken = api.http.post("/", json=sub_jobs("missing")).json()["job_id"]
    with pytest.raises(AssertionError):
        api.wait_running(broken, timeout=10)
    job = api.http.get(f"/{broken}").json()
    assert job["status"] == "failed" and "missing" in job["reason"]
    assert api.http.post(f"/{broken}:cancel").json()["error_code"] == "invalid_state"


def test_early_rejection_still_reads_a_large_body(api: MockApi, live_mock: LiveMock) -> None:
    job_id = api.create_job()
    api.http.post(f"/{job_id}:cancel")
    body = b"\0" * (8 * 1024 * 1024)  # larger than socket buffers: the client must finish writing
    refused = api.http.post(f"/{job_id}/forward-backward", content=body)
    assert refused.status_code == 409 and refused.json()["error_code"] == "job_not_running"
    with httpx.Client(base_url=live_mock.base_url) as anonymous:
        denied = anonymous.post(f"/{job_id}/forward-backward", content=body)
    assert denied.status_code == 401


def test_405_lists_the_allowed_methods(live_mock: LiveMock) -> None:
    with httpx.Client(base_url=live_mock.base_url, headers=live_mock.headers()) as http:
        root = http.request("OPTIONS", "/")
        cancel = http.request("OPTIONS", "/job-1:cancel")
        job = http.delete("/job-1")
    assert root.status_code == 405 and root.headers["allow"] == "GET, POST"
    assert cancel.headers["allow"] == "POST"
    assert job.headers["allow"] == "GET"
    assert root.json()["error_code"] == "method_not_allowed"
    with httpx.Client(base_url=live_mock.base_url, headers=live_mock.headers()) as http:
        assert http.get("/job-1:cancel").headers["allow"] == "POST"
