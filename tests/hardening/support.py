"""Shared by the hardening, fault and load tests: the contract's operations, a job to
abuse, and the mock's own record of what it executed (its SQLite store)."""

from __future__ import annotations

import functools
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml

from devtools.live_mock import LiveMock
from devtools.mock_process import TRAINING_JOB as MOCK_PROCESS_JOB

ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "openapi" / "cortex_gs.yaml"
HTTP_METHODS = ("get", "put", "post", "delete", "patch")
TERMINAL = ("done", "failed", "cancelled")
TRAINING_JOB: dict[str, Any] = {
    "sub_job_configs": [
        *MOCK_PROCESS_JOB["sub_job_configs"],
        {
            "job_type": "sampling",
            "model_name": "tiny-byte-lm",
            "inference_config": {"max_seq_len": 64, "n_gpus": 1},
        },
    ]
}
"""The mock processes' training job, with a sampling sub-job to abuse as well."""


@functools.cache
def contract() -> dict[str, Any]:
    """The contract as plain data (parsed once: PyYAML takes a while on 2k lines)."""
    return dict(yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8")))


def contract_operations() -> list[tuple[str, str, str]]:
    """(operationId, METHOD, path) of every operation in the contract, in document order."""
    spec = contract()
    return [
        (item[method]["operationId"], method.upper(), path)
        for path, item in spec["paths"].items()
        for method in HTTP_METHODS
        if method in item
    ]


def store_rows(state_dir: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Read the mock's store directly (read-only): what it really recorded and ran."""
    db = sqlite3.connect(f"file:{state_dir / 'mock.sqlite3'}?mode=ro", uri=True, timeout=10)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def executed(state_dir: Path, job_id: str, kind: str) -> int:
    """How many requests of ``kind`` the mock recorded for the job (each runs at most once)."""
    rows = store_rows(
        state_dir, "SELECT COUNT(*) FROM requests WHERE job_id = ? AND kind = ?", job_id, kind
    )
    return int(rows[0][0])


def wait_running(http: httpx.Client, job_id: str, timeout: float = 20.0) -> None:
    """Poll the job until it runs (the mock walks its states in milliseconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if http.get(f"/{job_id}").json()["status"] == "running":
            return
        time.sleep(0.01)
    raise AssertionError(f"job {job_id} never reached running")


def wait_request(http: httpx.Client, job_id: str, request_id: str) -> dict[str, Any]:
    """Long-poll a request to a terminal state (bounded: 60 polls of at most 2 s)."""
    for _ in range(60):
        page = http.get(f"/{job_id}/requests/{request_id}", params={"wait_s": 2})
        assert page.status_code == 200, page.text
        if page.json()["status"] in TERMINAL:
            return dict(page.json())
    raise AssertionError(f"request {request_id} did not finish")


@dataclass
class RunningJob:
    """A job that reached ``running`` on a live mock, plus an authenticated client."""

    mock: LiveMock
    http: httpx.Client
    job_id: str

    def url(self, suffix: str = "") -> str:
        """The job's URL, or one of its sub-routes (``suffix`` starts with ``/`` or ``:``)."""
        return f"/{self.job_id}{suffix}"

    def snapshot(self) -> dict[str, Any]:
        """All a rejected request must leave alone: the job as served, its checkpoints,
        and the store's requests, chunk groups, stored chunks and idempotency records."""
        job = self.http.get(self.url())
        assert job.status_code == 200, job.text
        state = self.mock.state_dir
        return {
            "job": job.json(),
            "checkpoints": self.http.get(self.url("/checkpoints")).json(),
            "requests": store_rows(
                state, "SELECT request_id, kind FROM requests WHERE job_id = ?", self.job_id
            ),
            "groups": store_rows(
                state, "SELECT group_id, request_id FROM chunk_groups WHERE job_id = ?", self.job_id
            ),
            "chunks": store_rows(
                state, "SELECT group_id, chunk_idx FROM chunks WHERE job_id = ?", self.job_id
            ),
            "idempotency": store_rows(state, "SELECT scope, key FROM idempotency"),
        }


def start_job(http: httpx.Client, body: dict[str, Any] | None = None) -> str:
    """Create a job and wait until it runs; returns its id."""
    created = http.post("/", json=body or TRAINING_JOB)
    assert created.status_code == 200, created.text
    job_id = str(created.json()["job_id"])
    wait_running(http, job_id)
    return job_id
