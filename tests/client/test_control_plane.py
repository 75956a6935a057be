"""Control-plane calls of CortexService against the live mock over HTTP."""

from __future__ import annotations

from cortex_gs_client.models import CreateJobRequest

from arctic_rl._cortex import CortexService
from arctic_rl._options import ServiceOptions

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
    service = CortexService(endpoint.base_url, endpoint.token, ServiceOptions(long_poll_s=1.0))
    try:
        job_id = await service.create_job(
            CreateJobRequest.from_dict({"sub_job_configs": [SUB_JOB]})
        )
        await service.wait_job_running(job_id, timeout=30)
        running = await service.list_jobs("JOB_STATE_RUNNING")  # legacy spelling accepted
        assert job_id in {job.job_id for job in running}
        assert await service.list_jobs("cancelled") == []
        assert job_id in {job.job_id for job in await service.list_jobs()}
        capacity = await service.get_capacity()
        assert capacity.available_gpus <= capacity.max_total_gpus
    finally:
        await service.aclose()
