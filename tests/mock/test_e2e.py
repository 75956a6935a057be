"""End-to-end over real HTTP: uvicorn on 127.0.0.1, plain httpx and the DSSST1 codec.

Covers the protocol promises of the contract: job lifecycle, chunked forward-backward
with polling, chunk-group rules (including a mock restart mid-group) and Idempotency-Key;
body caps, bad frames, authentication and paged large results are in test_e2e_errors.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import torch
from cortex_gs_contract import REQUEST_ID_HEADER

from devtools.live_mock import LiveMock, MockApi

# The committed copy of the golden frames (shared/golden/dssst1), so no run depends on shared/.
from .e2e import SMALL_CHUNK, chunks_of, executions, train_batch


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


def test_chunked_forward_backward_step_and_poll(proposed_api: MockApi) -> None:
    job_id = proposed_api.create_job()
    chunks = chunks_of(train_batch(), "group-a")
    assert len(chunks) >= 3
    responses = proposed_api.post_chunks(job_id, "forward-backward", chunks)
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
    result = proposed_api.result(job_id, request_id)
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
    step = proposed_api.run(job_id, "step", {"learning_rate": 0.5})
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
def test_duplicated_chunk_group_executes_once(
    proposed_api: MockApi, proposed_mock: LiveMock
) -> None:
    job_id = proposed_api.create_job()
    chunks = chunks_of(train_batch(), "dup-group")
    first = proposed_api.post_chunks(job_id, "forward-backward", chunks)[-1].json()
    again = proposed_api.post_chunks(job_id, "forward-backward", chunks)
    assert [r.status_code for r in again] == [200] * (len(chunks) - 1) + [202]
    assert again[-1].json() == first
    assert proposed_api.http.post(f"/{job_id}/forward-backward", content=chunks[-1]).json() == first
    proposed_api.result(job_id, first["request_id"])
    assert executions(proposed_mock, job_id, "forward_backward") == 1


def test_chunk_group_rules(proposed_api: MockApi) -> None:
    job_id = proposed_api.create_job()
    chunks = chunks_of(train_batch(), "rules")
    route = f"/{job_id}/forward-backward"
    late = proposed_api.http.post(route, content=chunks[1])
    assert late.status_code == 409 and late.json()["code"] == "chunk_group_restart_required"
    assert proposed_api.http.post(route, content=chunks[0]).status_code == 200
    assert (
        proposed_api.http.post(route, content=chunks[0]).status_code == 200
    )  # same bytes: harmless
    other = chunks_of(train_batch(seed=1), "rules")
    clash = proposed_api.http.post(route, content=other[0])
    assert clash.status_code == 409 and clash.json()["code"] == "chunk_group_conflict"
    gap = proposed_api.http.post(route, content=chunks[-1])
    assert gap.status_code == 409 and gap.json()["code"] == "chunk_group_missing_chunks"
    missing = {issue["loc"][-1] for issue in gap.json()["details"]}
    assert missing == set(range(1, len(chunks) - 1))
    wrong_route = proposed_api.http.post(f"/{job_id}/forward-no-grad", content=chunks[1])
    assert wrong_route.status_code == 409
    rest = proposed_api.post_chunks(job_id, "forward-backward", chunks[1:])
    assert rest[-1].status_code == 202
    assert proposed_api.wait(job_id, rest[-1].json()["request_id"])["status"] == "done"


def test_restart_in_the_middle_of_a_chunk_group(proposed_mock: LiveMock) -> None:
    proposed_api = MockApi(proposed_mock)
    job_id = proposed_api.create_job()
    chunks = chunks_of(train_batch(), "survives-restart")
    half = len(chunks) // 2
    assert all(
        r.status_code == 200
        for r in proposed_api.post_chunks(job_id, "forward-backward", chunks[:half])
    )
    proposed_api.close()
    proposed_mock.restart()
    proposed_api = MockApi(proposed_mock)
    assert proposed_api.http.get(f"/{job_id}").json()["status"] == "running"
    rest = proposed_api.post_chunks(job_id, "forward-backward", chunks[half:])
    assert rest[0].json()["received_chunks"] == half + 1
    assert rest[-1].status_code == 202
    result = proposed_api.result(job_id, rest[-1].json()["request_id"])
    assert result["post_process_outputs"]["logprobs"].shape == (4, 12)
    # The finished group still resolves to the same request after another restart.
    proposed_api.close()
    proposed_mock.restart()
    proposed_api = MockApi(proposed_mock)
    replay = proposed_api.http.post(f"/{job_id}/forward-backward", content=chunks[-1])
    assert replay.json() == rest[-1].json()
    proposed_api.close()


def test_forward_no_grad_and_bare_or_chunked_generate(proposed_api: MockApi) -> None:
    job_id = proposed_api.create_job()
    batch = train_batch()
    del batch["kwargs"]["advantages"], batch["kwargs"]["old_log_probs"]
    batch["reference_model"] = True
    out = proposed_api.run_frame(job_id, "forward-no-grad", batch, chunk_bytes=SMALL_CHUNK)
    assert out["model_outputs"]["logprobs"].shape == (4, 12)
    request = {"prompts": ["hello", [104, 105]], "sampling_params": {"max_tokens": 4}}
    bare = proposed_api.run_frame(job_id, "generate", request)
    assert [len(r["token_ids"]) for r in bare["results"]] == [4, 4]
    chunks = chunks_of(request, "gen-group", payload=64, op="generate")
    final = proposed_api.post_chunks(job_id, "generate", chunks)[-1]
    assert final.status_code == 202
    assert proposed_api.result(job_id, final.json()["request_id"]) == bare


# ------------------------------------------------------------------------- idempotency
def test_idempotency_key_replay_and_conflict(proposed_api: MockApi) -> None:
    job_id = proposed_api.create_job()
    key = {"Idempotency-Key": "step-key-1"}
    first = proposed_api.http.post(f"/{job_id}/step", json={"learning_rate": 0.1}, headers=key)
    replay = proposed_api.http.post(f"/{job_id}/step", json={"learning_rate": 0.1}, headers=key)
    assert first.status_code == replay.status_code == 202
    assert replay.json() == first.json()
    clash = proposed_api.http.post(f"/{job_id}/step", json={"learning_rate": 0.2}, headers=key)
    assert clash.status_code == 409 and clash.json()["error_code"] == "idempotency_key_conflict"
    assert proposed_api.result(job_id, first.json()["request_id"])["global_steps"] == 1
    assert proposed_api.run(job_id, "step", {})["global_steps"] == 2  # the replay did not step

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
        proposed_api.http.post("/", json=body, headers={"Idempotency-Key": "create-1"})
        for _ in range(2)
    ]
    assert created[0].json() == created[1].json()
    jobs = proposed_api.http.get("/").json()["jobs"]
    assert sum(j["job_id"] == created[0].json()["job_id"] for j in jobs) == 1
