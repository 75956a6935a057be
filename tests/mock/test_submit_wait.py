"""The proposed ``wait_s`` on a submit: the answer is held until the request ends.

A request that ends within ``wait_s`` answers ``200`` with the ``RequestStatus`` a poll
would give; one that does not answers the usual ``202``. Retries under the same identity
(Idempotency-Key, chunk group) still name the one request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cortex_gs_contract import RequestState

from devtools.live_mock import LiveMock, MockApi

from .e2e import chunks_of, train_batch

HOLD = {"wait_s": 10}


def _polled(api: MockApi, job_id: str, request_id: str) -> dict[str, Any]:
    response = api.http.get(f"/{job_id}/requests/{request_id}")
    assert response.status_code == 200, response.text
    return response.json()


def test_step_with_wait_s_answers_its_finished_status(proposed_api: MockApi) -> None:
    job_id = proposed_api.create_job()
    proposed_api.post_chunks(job_id, "forward-backward", chunks_of(train_batch(), "group-w"))
    response = proposed_api.http.post(f"/{job_id}/step", json={}, params=HOLD)
    assert response.status_code == 200, response.text
    status = response.json()
    assert status["status"] == RequestState.done
    assert status["result"]["global_steps"] == 1
    assert status == _polled(proposed_api, job_id, status["request_id"])


def test_final_chunk_with_wait_s_answers_the_result_and_a_resend_the_same_request(
    proposed_api: MockApi,
) -> None:
    job_id = proposed_api.create_job()
    chunks = chunks_of(train_batch(), "group-x")
    route = f"/{job_id}/forward-backward"
    for chunk in chunks[:-1]:
        stored = proposed_api.http.post(route, content=chunk, params=HOLD)
        assert stored.status_code == 200, stored.text
        assert "request_id" not in stored.json()
    final = proposed_api.http.post(route, content=chunks[-1], params=HOLD)
    assert final.status_code == 200, final.text
    status = final.json()
    assert status["status"] == RequestState.done
    assert status == _polled(proposed_api, job_id, status["request_id"])
    resent = proposed_api.http.post(route, content=chunks[-1], params=HOLD)
    assert resent.status_code == 200, resent.text
    assert resent.json()["request_id"] == status["request_id"]
    assert resent.json()["result"] == status["result"]


def test_idempotent_step_retry_with_wait_s_names_the_first_request(proposed_api: MockApi) -> None:
    job_id = proposed_api.create_job()
    proposed_api.post_chunks(job_id, "forward-backward", chunks_of(train_batch(), "group-y"))
    key = {"Idempotency-Key": "step-wait-1"}
    first = proposed_api.http.post(f"/{job_id}/step", json={}, params=HOLD, headers=key)
    again = proposed_api.http.post(f"/{job_id}/step", json={}, params=HOLD, headers=key)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    without_hold = proposed_api.http.post(f"/{job_id}/step", json={}, headers=key)
    assert without_hold.status_code == 202
    assert without_hold.json()["request_id"] == first.json()["request_id"]


def test_log_probs_with_wait_s_carries_its_result(proposed_api: MockApi) -> None:
    job_id = proposed_api.create_job()
    body = {"prompts": ["2 + 2 ="], "completions": [" 4"], "top_k": 1}
    response = proposed_api.http.post(f"/{job_id}/log-probs", json=body, params=HOLD)
    assert response.status_code == 200, response.text
    status = response.json()
    assert status["status"] == RequestState.done
    assert status["result"]["wire_format"] == "DSSST1"  # small: inline, no result chunks
    assert status["events"] == []
    assert status == _polled(proposed_api, job_id, status["request_id"])


def test_a_slow_request_answers_202_once_wait_s_is_over(
    live_mock_factory: Callable[..., LiveMock],
) -> None:
    mock = live_mock_factory(request_latency_s=3.0)
    api = MockApi(mock)
    try:
        job_id = api.create_job()
        response = api.http.post(f"/{job_id}/step", json={}, params={"wait_s": 0.2})
        assert response.status_code == 202, response.text
        accepted = response.json()
        assert accepted["job_id"] == job_id
        assert api.wait(job_id, accepted["request_id"])["status"] == RequestState.done
    finally:
        api.close()


def test_wait_s_outside_its_bounds_is_refused(api: MockApi) -> None:
    job_id = api.create_job()
    for bad in (-1, 21, "soon"):
        response = api.http.post(f"/{job_id}/step", json={}, params={"wait_s": bad})
        assert response.status_code == 422, (bad, response.text)
