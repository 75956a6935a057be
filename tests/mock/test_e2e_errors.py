"""End-to-end over real HTTP, continued: limits, bad input, auth, job states, checkpoints,
operations, paged large results, restarts and crashes.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from cortex_gs_contract import REQUEST_ID_HEADER, TOKEN_TYPE_HEADER

from arctic_rl import wire
from devtools.live_mock import LiveMock, MockApi

# The committed copy of the golden frames (shared/golden/dssst1), so no run depends on shared/.
from .e2e import GOLDEN, chunks_of, train_batch


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


def test_operations_inline_and_async(proposed_api: MockApi) -> None:
    job_id = proposed_api.create_job()
    reset = proposed_api.http.post(
        f"/{job_id}/operation", json={"operation_type": "reset-prefix-cache"}
    )
    assert reset.status_code == 200
    assert reset.json() == {"reset": True, "drained": True, "sub_job_ids": [f"{job_id}:sampling:0"]}
    sync = proposed_api.http.post(
        f"/{job_id}/operation",
        json={"operation_type": "weight-sync", "payload": {"weight_format": "vllm"}},
    )
    assert sync.status_code == 202
    result = proposed_api.result(job_id, sync.json()["request_id"])
    assert result == {
        "synced_sub_job_ids": [f"{job_id}:sampling:0"],
        "weight_format": "vllm",
        "version": 1,
    }
    assert proposed_api.run(job_id, "sync-weights", {})["version"] == 2


# ------------------------------------------------------------------------- large results
def test_large_result_is_paged_as_result_chunks(live_mock_factory: Callable[..., LiveMock]) -> None:
    mock = live_mock_factory(
        inline_result_bytes=16 * 1024, result_chunk_bytes=4096, service="proposed"
    )
    proposed_api = MockApi(mock)
    job_id = proposed_api.create_job(max_seq_len=300)  # the job takes the batch's 300-token width
    batch = train_batch(bsz=16, prompt=100, response=200)
    responses = proposed_api.post_chunks(
        job_id, "forward-backward", chunks_of(batch, "big", payload=64 * 1024)
    )
    request_id = responses[-1].json()["request_id"]
    status = proposed_api.wait(job_id, request_id)
    assert status["result"] == {} and status["status"] == "done"
    url = f"/{job_id}/requests/{request_id}"
    first = proposed_api.http.get(url, params={"max_events": 3}).json()
    again = proposed_api.http.get(url, params={"max_events": 3}).json()
    assert first["events"] == again["events"] and len(first["events"]) == 3
    second = proposed_api.http.get(
        url, params={"max_events": 3, "cursor": first["next_cursor"]}
    ).json()
    repeat = proposed_api.http.get(
        url, params={"max_events": 3, "cursor": first["next_cursor"]}
    ).json()
    assert second["events"] == repeat["events"]
    assert second["events"][0]["chunk_idx"] == 3
    event = first["events"][0]
    payload = base64.b64decode(event["payload_b64"])
    assert hashlib.sha256(payload).hexdigest() == event["payload_sha256"]
    descriptor = wire.read_chunk(payload).descriptor
    assert descriptor is not None and descriptor.kind == "result_chunk"
    result = proposed_api.result(job_id, request_id, max_events=5)
    assert result["post_process_outputs"]["logprobs"].shape == (16, 300)
    proposed_api.close()


def test_long_poll_returns_when_done(api: MockApi) -> None:
    job_id = api.create_job()
    request_id = api.http.post(f"/{job_id}/step", json={}).json()["request_id"]
    # A long poll answers at the next state change (pending -> running is one), so a
    # request that ends takes at most one poll per state it passes through.
    seen: list[str] = []
    while not seen or seen[-1] in ("pending", "running"):
        assert len(seen) < 3, seen
        url = f"/{job_id}/requests/{request_id}"
        status = api.http.get(url, params={"wait_s": 10}).json()
        seen.append(status["status"])
    assert seen[-1] == "done", seen
    assert json.loads(json.dumps(status["result"]))["global_steps"] == 1


def test_chunked_bad_frame_and_tampered_chunk_drop_the_group(proposed_api: MockApi) -> None:
    job_id = proposed_api.create_job()
    route = f"/{job_id}/forward-backward"
    pickle_frame = (GOLDEN / "bad_pickle.bin").read_bytes() * 8
    chunking = wire.Chunking.for_payload(
        64, kind="request_chunk", chunk_group_id="bad-inside", bare_max_bytes=0
    )
    pickle_chunks = [bytes(chunk) for chunk in wire.split_chunks(pickle_frame, chunking)]
    answers = proposed_api.post_chunks(job_id, "forward-backward", pickle_chunks)
    assert answers[-1].status_code == 400 and answers[-1].json()["error_code"] == "pickle_refused"
    late = proposed_api.http.post(route, content=pickle_chunks[1])
    assert late.json()["code"] == "chunk_group_restart_required"  # the group was dropped

    chunks = chunks_of(train_batch(), "tampered")
    bad = bytearray(chunks[1])
    bad[-1] ^= 0xFF  # payload bytes sit at the end of a chunk frame
    answers = proposed_api.post_chunks(
        job_id, "forward-backward", [chunks[0], bytes(bad), *chunks[2:]]
    )
    assert answers[-1].status_code == 400 and answers[-1].json()["error_code"] == "hash_mismatch"
    again = proposed_api.post_chunks(job_id, "forward-backward", chunks)
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

    monkeypatch.setattr(live_mock.app.state.service.store.jobs, "list_jobs", boom)
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


def test_early_rejection_still_reads_a_large_body(api: MockApi) -> None:
    job_id = api.create_job()
    api.http.post(f"/{job_id}:cancel")
    body = b"\0" * (8 * 1024 * 1024)  # larger than socket buffers: the client must finish writing
    refused = api.http.post(f"/{job_id}/forward-backward", content=body)
    assert refused.status_code == 409 and refused.json()["error_code"] == "job_not_running"
    # Without a token the body is not read (tests/reliability/test_server_guards.py).


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
