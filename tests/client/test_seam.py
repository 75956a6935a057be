"""The Transport seam: the client runs on any object with the Transport methods."""

from __future__ import annotations

from typing import Any

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient, Transport


class RecordingTransport:
    """A Transport that records calls and answers like a healthy service."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    async def create_job(self, body: Any, *, idempotency_key: str) -> str:
        self.calls.append(("create_job", (body, idempotency_key)))
        return "job-9"

    async def get_job(self, job_id: str) -> dict[str, Any]:
        return {"job_id": job_id, "status": "running", "sub_jobs": []}

    async def list_jobs(self, status: str | None = None) -> list[dict[str, Any]]:
        return []

    async def cancel_job(self, job_id: str) -> dict[str, Any]:
        self.calls.append(("cancel_job", job_id))
        return {"job_id": job_id, "status": "cancelled"}

    async def wait_job_running(self, job_id: str, timeout: float) -> dict[str, Any]:
        sub_jobs = [{"sub_job_id": f"{job_id}:training:0", "job_type": "training"}]
        return {"job_id": job_id, "status": "running", "sub_jobs": sub_jobs}

    async def list_checkpoints(self, job_id: str) -> list[dict[str, Any]]:
        return []

    async def delete_checkpoint(self, job_id: str, checkpoint_id: str) -> None:
        return None

    async def call_binary(self, job_id: str, route: str, value: Any) -> Any:
        self.calls.append((route, value))
        return {"ok": True}

    async def call_json(self, job_id: str, route: str, body: Any) -> Any:
        self.calls.append((route, body))
        return {"ok": True}

    async def aclose(self) -> None:
        self.calls.append(("aclose", None))


async def test_client_over_a_custom_transport():
    transport = RecordingTransport()
    assert isinstance(transport, Transport)
    cfg = ArcticRLClientConfig(
        backend="cortex",
        model_name="m",
        training_gpus=2,
        sampling_gpus=1,
        ds_config={"train_batch_size": 8, "gradient_clipping": 1.0},
        vllm_config={"max_model_len": 1024, "gpu_memory_utilization": 0.5},
    )
    client = await AsyncArcticRLClient.connect(cfg, transport=transport, environ={})
    body, key = transport.calls[0][1]
    training, sampling = body["sub_job_configs"]
    assert training["training_config"]["n_gpus"] == 2
    assert training["training_config"]["train_batch_size"] == 8
    assert training["training_config"]["gradient_clipping"] == 1.0
    assert sampling["inference_config"] == {
        "max_seq_len": 1024,
        "n_gpus": 1,
        "gpu_memory_utilization": 0.5,
    }
    assert key and client.sub_jobs == {"training": "job-9:training:0"}

    await client.fwd_no_grad({"input_ids": 1}, reference_model=True, meta={"m": 1})
    route, value = transport.calls[-1]
    assert route == "forward-no-grad"
    assert value == {
        "args": [],
        "kwargs": {"input_ids": 1},
        "meta": {"m": 1},
        "processing": {},
        "reference_model": True,
    }
    await client.step(learning_rate=1e-5)
    assert transport.calls[-1] == ("step", {"learning_rate": 1e-5})
    await client.shutdown()
    assert [c[0] for c in transport.calls[-2:]] == ["cancel_job", "aclose"]
