"""Control-plane calls of CortexTransport against the live mock over HTTP."""

from __future__ import annotations

import uuid

from arctic_rl._transport import CortexTransport

from .conftest import Endpoint

SUB_JOB = {
    "job_type": "training",
    "model_name": "tiny",
    "training_config": {
        "optimizer": {"type": "adamw", "lr": 1e-3},
        "max_seq_len": 64,
        "train_batch_size": 2,
        "n_gpus": 1,
    },
}


async def test_list_jobs_filters_by_state_and_capacity_answers(endpoint: Endpoint):
    transport = CortexTransport(endpoint.base_url, endpoint.token, long_poll_s=1.0)
    try:
        job_id = await transport.create_job(
            {"sub_job_configs": [SUB_JOB]}, idempotency_key=uuid.uuid4().hex
        )
        await transport.wait_job_running(job_id, timeout=30)
        running = await transport.list_jobs("JOB_STATE_RUNNING")  # legacy spelling accepted
        assert job_id in {job["job_id"] for job in running}
        assert await transport.list_jobs("cancelled") == []
        assert job_id in {job["job_id"] for job in await transport.list_jobs()}
        capacity = await transport.get_capacity()
        assert capacity["available_gpus"] <= capacity["max_total_gpus"]
    finally:
        await transport.aclose()
