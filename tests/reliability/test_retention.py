"""Retention: what finished requests leave behind is pruned within bounds, and says so.

A long loop through the real mock on loopback with small bounds must leave the store
within them, counted in the SQLite file and on disk after the mock stopped (stopping waits
for the cleanup thread that prunes, so nothing is timed). A poll of a pruned request
reaches the SDK as ``RequestExpiredError`` (410), never retried, while an id never issued
is still ``NotFoundError`` (404). Retries under the same ``Idempotency-Key`` or chunk group
resolve to the pruned request instead of running again, and a restart after the request
that last saved the backend state was pruned keeps that state.

The mocks serve the proposals (``service="proposed"``): the retries ride on the
proposed ``Idempotency-Key``, the steps on the ``logprobs`` post-processor.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import torch

from arctic_rl import NotFoundError, RequestExpiredError
from arctic_rl._cortex import CortexService
from devtools.live_mock import LiveMock, MockApi, request_chunks

# Each forward-backward answers 16 x 128 float32 logprobs (8 KiB): over the 4 KiB inline
# limit, so its result travels as result_chunk events of 4 KiB, at most 4 per request.
RESULT_BYTES = 4096
EVENTS_PER_RESULT = 4
SMALL_BOUNDS = {
    "max_finished_requests": 50,
    "max_pruned_ids": 200,
    "max_log_lines": 100,
    "prune_every": 1,
    "inline_result_bytes": RESULT_BYTES,
    "result_chunk_bytes": RESULT_BYTES,
}
TABLES = ("requests", "events", "chunk_groups", "chunks", "pruned_requests", "logs")
LOOP_REQUESTS = 1000
NEVER_ISSUED = "req-0000000000000000"


def batch(seed: int) -> dict[str, Any]:
    """A forward-backward batch asking for per-token logprobs."""
    ids = torch.randint(0, 256, (16, 128), generator=torch.Generator().manual_seed(seed))
    return {
        "args": [],
        "kwargs": {
            "input_ids": ids,
            "attention_mask": torch.ones_like(ids),
            "responses": ids[:, 64:],
            "response_mask": torch.ones(16, 64, dtype=torch.int64),
            "advantages": torch.zeros(16, 64),
            "old_log_probs": torch.full((16, 64), -5.0),
        },
        "meta": {},
        "processing": {"loss_fn": "grpo", "config": {}, "post": ["logprobs"]},
    }


def row_counts(state_dir: Path) -> dict[str, int]:
    """Rows per table of a stopped mock's store."""
    with contextlib.closing(sqlite3.connect(state_dir / "mock.sqlite3")) as db:
        return {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def bytes_under(path: Path) -> int:
    """Bytes of every file below ``path`` (0 when it does not exist)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def submit_step(api: MockApi, job_id: str, headers: dict[str, str] | None = None) -> str:
    """POST a step; its request id, once it is done."""
    answer = api.http.post(f"/{job_id}/step", json={}, headers=headers)
    assert answer.status_code == 202, answer.text
    request_id = str(answer.json()["request_id"])
    assert api.wait(job_id, request_id)["status"] == "done"
    return request_id


def test_a_long_loop_leaves_the_store_within_its_bounds(live_mock_factory: Any) -> None:
    """1,000 requests (forward-backward with chunked results, and steps) with at most 50
    finished requests kept: rows, chunk files and the database's size stay bounded."""
    mock: LiveMock = live_mock_factory("canned", service="proposed", **SMALL_BOUNDS)
    api = MockApi(mock)
    job_id = api.create_job()
    for i in range(LOOP_REQUESTS // 2):
        out = api.run_frame(job_id, "forward-backward", batch(i))
        assert out["post_process_outputs"]["logprobs"].shape == (16, 128)
        api.run(job_id, "step", {})
    api.close()
    mock.stop()

    rows = row_counts(mock.state_dir)
    assert rows["requests"] <= SMALL_BOUNDS["max_finished_requests"], rows
    assert rows["chunk_groups"] <= SMALL_BOUNDS["max_finished_requests"], rows
    assert rows["chunks"] <= SMALL_BOUNDS["max_finished_requests"], rows
    assert rows["events"] <= SMALL_BOUNDS["max_finished_requests"] * EVENTS_PER_RESULT, rows
    assert rows["pruned_requests"] == SMALL_BOUNDS["max_pruned_ids"], rows
    assert rows["logs"] <= SMALL_BOUNDS["max_log_lines"], rows
    assert bytes_under(mock.state_dir / "chunks") == 0
    assert bytes_under(mock.state_dir / "inputs") == 0
    # Unpruned, 500 results of ~11 KiB (base64) alone would take over 5 MiB.
    assert bytes_under(mock.state_dir) < 2 * 1024 * 1024


class CountingTransport(httpx.AsyncBaseTransport):
    """Real HTTP, counting the polls sent (retries included)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.polls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.polls += "/requests/" in request.url.path
        return await self.inner.handle_async_request(request)


async def test_a_pruned_request_is_410_through_the_sdk_and_an_unknown_id_404(
    live_mock_factory: Any,
) -> None:
    """Of 8 steps with 3 kept, polling the first raises ``RequestExpiredError`` (once, not
    retried); the last still answers its result; an id never issued is a 404."""
    mock: LiveMock = live_mock_factory(
        "canned", service="proposed", max_finished_requests=3, prune_every=1
    )
    api = MockApi(mock)
    job_id = api.create_job()
    ids = [submit_step(api, job_id) for _ in range(8)]
    api.close()
    mock.restart()  # stopping waits for the pruning thread: every pass is over

    transport = CountingTransport()
    service = CortexService(mock.base_url, mock.token, httpx_transport=transport)
    try:
        with pytest.raises(RequestExpiredError) as expired:
            await service.wait_request(job_id, ids[0])
        assert transport.polls == 1
        assert expired.value.status == 410
        assert expired.value.code == "request_expired"
        assert expired.value.expired_request_id == ids[0]
        assert (await service.wait_request(job_id, ids[-1]))["global_steps"] == 8
        with pytest.raises(NotFoundError) as unknown:
            await service.wait_request(job_id, NEVER_ISSUED)
        assert not isinstance(unknown.value, RequestExpiredError)
        assert unknown.value.code == "request_not_found"
    finally:
        await service.aclose()


def test_retries_after_pruning_answer_the_pruned_request_and_never_run_again(
    live_mock_factory: Any,
) -> None:
    """A step retried under its Idempotency-Key, and a forward-backward chunk group resent,
    after both requests were pruned: each answers its first request again (whose poll is
    410), and neither runs a second time (the step counter says so)."""
    mock: LiveMock = live_mock_factory(
        "canned", service="proposed", max_finished_requests=2, prune_every=1
    )
    api = MockApi(mock)
    job_id = api.create_job()
    key = {"Idempotency-Key": "retention-step-1"}
    first_step = submit_step(api, job_id, key)
    (chunk,) = request_chunks(batch(0), payload_bytes=1 << 20, group="retention-group-1")
    sent = api.http.post(f"/{job_id}/forward-backward", content=chunk)
    assert sent.status_code == 202, sent.text
    first_fwd = sent.json()["request_id"]
    api.wait(job_id, first_fwd)
    for _ in range(3):
        submit_step(api, job_id)
    api.close()
    mock.restart()

    api = MockApi(mock)
    retried = api.http.post(f"/{job_id}/step", json={}, headers=key)
    assert (retried.status_code, retried.json()["request_id"]) == (202, first_step)
    resent = api.http.post(f"/{job_id}/forward-backward", content=chunk)
    assert (resent.status_code, resent.json()["request_id"]) == (202, first_fwd)
    for request_id in (first_step, first_fwd):
        gone = api.http.get(f"/{job_id}/requests/{request_id}")
        assert gone.status_code == 410, gone.text
        assert gone.json()["error_code"] == "request_expired"
        assert gone.json()["expired_request_id"] == request_id
    cancel = {"operation_type": "cancel-request", "payload": {"request_id": first_step}}
    cancelled = api.http.post(f"/{job_id}/operation", json=cancel)
    assert cancelled.json() == {"request_id": first_step, "cancelled": False}  # it had ended
    assert api.run(job_id, "step", {})["global_steps"] == 5  # 1 + 3 + this one
    api.close()


def test_results_older_than_the_retention_time_are_pruned(live_mock_factory: Any) -> None:
    """With no pass due during the loop, the start-up pass prunes every result older than
    ``result_retention_s`` though far fewer than ``max_finished_requests`` finished."""
    mock: LiveMock = live_mock_factory("canned", service="proposed", prune_every=1_000_000)
    api = MockApi(mock)
    job_id = api.create_job()
    ids = [submit_step(api, job_id) for _ in range(5)]
    api.close()
    mock.stop()
    assert row_counts(mock.state_dir)["requests"] == 5
    mock.settings = replace(mock.settings, result_retention_s=0.0)
    mock.start()

    api = MockApi(mock)
    for request_id in ids:
        assert api.http.get(f"/{job_id}/requests/{request_id}").status_code == 410
    assert api.run(job_id, "step", {})["global_steps"] == 6
    api.close()


def test_a_restart_keeps_the_state_saved_by_a_pruned_request(live_mock_factory: Any) -> None:
    """The step that last saved the job's state is pruned before a restart: the job comes
    back running from that state, not failed for a state no request vouches for."""
    mock: LiveMock = live_mock_factory(
        "canned", service="proposed", max_finished_requests=1, prune_every=1
    )
    api = MockApi(mock)
    job_id = api.create_job()
    for _ in range(3):
        submit_step(api, job_id)
    api.run(job_id, "log-probs", {"prompts": ["abc"], "completions": ["d"]})
    api.close()
    mock.restart()

    api = MockApi(mock)
    assert api.run(job_id, "step", {})["global_steps"] == 4  # runs after the restore
    assert api.http.get(f"/{job_id}").json()["status"] == "running"
    api.close()
