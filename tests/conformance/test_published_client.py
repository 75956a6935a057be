"""The published client, unchanged, over real HTTP against ``python -m arctic_rl_mock --no-auth``.

Every test asserts what comes back. Where the published client has a method, the test calls
it; for routes it has no method for on Cortex (load, capacity, checkpoints, tail-logs) the
test uses that client's own transport primitives (``_asend``/``_send`` and ``_apoll``), so the
requests still carry exactly its headers, its retries and its polling.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

import arctic_platform.client.transports.cortex as published_cortex
import pytest
from arctic_platform.client import AsyncArcticRLClient, Request, SamplingConfig, TrainingConfig
from arctic_rl_mock.backends.canned import CANNED_LOSS
from arctic_rl_mock.backends.common import DEFAULT_MAX_TOKENS

from .batches import ADAPTER_PROCESSING, adapter_batch, minimal_batch
from .conftest import MODEL, CountingProxy, PublishedFactory

# The published client passes tenacity an argument tenacity has deprecated; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated")

# A frame this small still has to be split: the client keeps 8 KiB per chunk for headers.
SMALL_CHUNK_BYTES = 16 * 1024


def _job_url(client: AsyncArcticRLClient, suffix: str = "") -> str:
    transport = client.transport
    return f"{transport._prefix}/{transport.job_id}{suffix}"


def _creates(proxy: CountingProxy, client: AsyncArcticRLClient) -> int:
    """Create-job requests (POST to the bare prefix) that reached the mock."""
    return proxy.count("POST", urlsplit(client.transport._prefix).path + " ")


async def _get(client: AsyncArcticRLClient, suffix: str = "") -> Any:
    return await client.transport._asend("GET", _job_url(client, suffix))


async def _sub_jobs(client: AsyncArcticRLClient) -> dict[str, dict[str, Any]]:
    job = await _get(client)
    return {sub["job_type"]: sub for sub in job["sub_jobs"]}


# -- jobs ---------------------------------------------------------------------------------


async def test_create_with_default_training_settings(
    published: PublishedFactory, proxy: CountingProxy
):
    client = await published(training=TrainingConfig())  # no ds_config: nothing optional sent
    job_id = client.transport.job_id
    assert client.jobs.training == f"{job_id}:training:0"
    assert client.jobs.sampling == f"{job_id}:sampling:0"
    assert _creates(proxy, client) == 1  # one create, no retry
    job = await _get(client)
    assert job["job_id"] == job_id and job["status"] == "running"
    subs = await _sub_jobs(client)
    assert subs["training"]["model_name"] == MODEL
    assert subs["training"]["training_config"]["max_seq_len"] == 8192
    assert subs["training"]["training_config"]["n_gpus"] == 1
    assert subs["sampling"]["inference_config"] == {"max_seq_len": 8192, "n_gpus": 1}
    assert (await client.step())["global_steps"] == 1


async def test_create_with_full_training_settings(published: PublishedFactory):
    optimizer = {"lr": 2e-5, "betas": [0.9, 0.95], "weight_decay": 0.1}
    training = TrainingConfig(
        ds_config={
            "optimizer": {"type": "AdamW", "params": optimizer},
            "train_batch_size": 16,
            "gradient_clipping": 0.5,
            "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "none"}},
        },
        ds_worker_config={"enable_gradient_checkpointing": True, "use_liger": True},
        peft={"peft_type": "LORA", "r": 8, "lora_alpha": 16, "target_modules": ["q_proj"]},
    )
    client = await published(
        training=training,
        sampling=SamplingConfig(vllm={"gpu_memory_utilization": 0.5, "enforce_eager": True}),
        seed=7,
        dtype="bfloat16",
        max_seq_len=1024,
    )
    subs = await _sub_jobs(client)
    config = subs["training"]["training_config"]
    assert config["optimizer"] == {"name": "AdamW", **optimizer}
    assert (config["train_batch_size"], config["gradient_clipping"]) == (16, 0.5)
    assert (config["max_seq_len"], config["n_gpus"]) == (1024, 1)
    assert subs["sampling"]["inference_config"]["max_seq_len"] == 1024
    step = await client.step()
    assert step["global_steps"] == 1
    assert step["last_lr"] == pytest.approx(2e-5)  # the optimizer's lr, read under `name`


async def test_list_jobs_shows_the_running_job(published: PublishedFactory):
    client = await published()
    jobs = await asyncio.to_thread(client.transport.list_jobs)
    ours = [job for job in jobs if job["job_id"] == client.transport.job_id]
    assert len(ours) == 1 and ours[0]["status"] == "running"


async def test_capacity_counts_the_jobs_gpus(published: PublishedFactory):
    client = await published(training_gpus=2, sampling_gpus=1)
    url = f"{client.transport._prefix}/capacity"
    before = await client.transport._asend("GET", url)
    assert before["max_total_gpus"] >= 3
    assert before.get("in_use_gpus", 0) >= 3
    assert before.get("available_gpus", 0) <= before["max_total_gpus"] - before["in_use_gpus"]
    await asyncio.to_thread(client.transport.cancel_job, client.transport.job_id)
    after = await client.transport._asend("GET", url)
    assert after.get("in_use_gpus", 0) == before["in_use_gpus"] - 3


async def test_cancel_answers_empty_and_is_idempotent(published: PublishedFactory):
    client = await published()
    job_id = client.transport.job_id
    await asyncio.to_thread(client.transport.cancel_job, job_id)
    assert (await _get(client))["status"] == "cancelled"  # the mock cancels at once
    # Repeating a cancel while cancelling or cancelled is a success; the answer is empty.
    again = await asyncio.to_thread(
        client.transport._send, "POST", f"{client.transport._prefix}/{job_id}:cancel"
    )
    assert again == {}


async def test_reconnect_by_job_id(published: PublishedFactory, proxy: CountingProxy):
    first = await published()
    await first.step()
    assert _creates(proxy, first) == 1
    second = await published(
        training_job_id=first.jobs.training, sampling_job_id=first.jobs.sampling
    )
    assert _creates(proxy, first) == 1  # the reconnect created nothing
    assert second.transport.job_id == first.transport.job_id
    assert (second.jobs.training, second.jobs.sampling) == (
        first.jobs.training,
        first.jobs.sampling,
    )
    assert (await second.step())["global_steps"] == 2  # the same job's optimizer state


async def test_any_database_and_schema_in_the_path(published: PublishedFactory):
    client = await published(database="ANOTHER_DB", schema="ELSEWHERE")
    assert "/databases/ANOTHER_DB/schemas/ELSEWHERE/" in client.transport._prefix
    assert (await client.step())["global_steps"] == 1


# -- training -----------------------------------------------------------------------------


async def test_forward_backward_in_one_chunk(published: PublishedFactory, proxy: CountingProxy):
    client = await published()
    result = await client.fwd_bwd(minimal_batch())
    assert result["job_id"] == client.transport.job_id
    assert result["avg_loss"] == pytest.approx(CANNED_LOSS)
    assert isinstance(result["metrics"], dict)
    assert isinstance(result["batch"], dict)  # post_process_outputs, as the client renames it
    assert proxy.count("POST", "/forward-backward") == 1


async def test_forward_backward_with_the_adapter_frame(published: PublishedFactory):
    client = await published()
    result = await client.fwd_bwd(adapter_batch(), processing=ADAPTER_PROCESSING)
    assert result["job_id"] == client.transport.job_id
    assert result["avg_loss"] == pytest.approx(CANNED_LOSS)


async def test_forward_backward_in_several_chunks(
    published: PublishedFactory, proxy: CountingProxy, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(published_cortex, "_MAX_OCTET_BYTES", SMALL_CHUNK_BYTES)
    client = await published()
    result = await client.fwd_bwd(minimal_batch(rows=8, cols=256))  # 2 x 16 KiB of int64
    assert proxy.count("POST", "/forward-backward") >= 4
    assert result["job_id"] == client.transport.job_id
    assert result["avg_loss"] == pytest.approx(CANNED_LOSS)


async def test_step_counts_and_takes_a_learning_rate(published: PublishedFactory):
    client = await published()
    first = await client.step()
    second = await client.step(learning_rate=3e-4)
    assert first["global_steps"] == 1
    assert second["global_steps"] == 2 and second["last_lr"] == pytest.approx(3e-4)


# -- sampling -----------------------------------------------------------------------------
# The canned backend echoes each prompt's bytes (or token ids) cyclically up to max_tokens.


async def test_generate_string_prompts(published: PublishedFactory):
    client = await published()
    results = await client.generate(["ab", "xyz"], {"max_tokens": 4})
    assert [r["text"] for r in results] == ["abab", "xyzx"]
    assert [r["token_ids"] for r in results] == [[97, 98, 97, 98], [120, 121, 122, 120]]
    assert all(isinstance(r["finish_reason"], str) for r in results)


async def test_generate_token_prompts(published: PublishedFactory):
    client = await published()
    results = await client.generate([[104, 105], [120]], {"max_tokens": 3})
    assert [r["token_ids"] for r in results] == [[104, 105, 104], [120, 120, 120]]
    assert [r["text"] for r in results] == ["hih", "xxx"]


async def test_generate_per_prompt_sampling_params_with_nulls(published: PublishedFactory):
    client = await published()
    params = [{"max_tokens": 2}, None, {"max_tokens": 5, "temperature": 0.0}]
    results = await client.generate(["a", "b", "c"], params)
    assert [len(r["token_ids"]) for r in results] == [2, DEFAULT_MAX_TOKENS, 5]
    assert [r["text"] for r in results] == ["aa", "b" * DEFAULT_MAX_TOKENS, "ccccc"]


async def test_generate_with_a_routing_key_list(published: PublishedFactory):
    client = await published()
    results = await client.generate(
        ["p", "q", "r"], {"max_tokens": 2}, routing_key=["conv-1", None, "conv-2"], strict=True
    )
    assert [r["text"] for r in results] == ["pp", "qq", "rr"]


async def test_sync_weights_with_cuda_ipc_and_low_memory(
    published: PublishedFactory, proxy: CountingProxy
):
    client = await published()
    first = await client.sync_weights(cuda_ipc=True, low_memory=True)
    second = await client.sync_weights(cuda_ipc=False, low_memory=False, weight_format="hf")
    assert first["synced_sub_job_ids"] == [client.jobs.sampling]
    assert second["version"] == first["version"] + 1 and second["weight_format"] == "hf"
    # Each sync is a weight-sync operation (polled) then an inline reset-prefix-cache.
    assert proxy.count("POST", "/operation") == 4


# -- checkpoints --------------------------------------------------------------------------


async def _checkpoints(client: AsyncArcticRLClient) -> dict[str, dict[str, Any]]:
    listing = await _get(client, "/checkpoints")
    return {c["checkpoint_id"]: c for c in listing["checkpoints"]}


async def _load(client: AsyncArcticRLClient, checkpoint_id: str) -> dict[str, Any]:
    accepted = await client.transport._asend(
        "POST", _job_url(client, "/load"), json={"checkpoint_id": checkpoint_id}
    )
    return await client.transport._apoll(accepted["request_id"])


async def test_save_with_defaults_then_list(published: PublishedFactory):
    client = await published()
    await client.step()
    saved = await client.save_checkpoint()
    assert {"checkpoint_id", "checkpoint_path", "checkpoint_tag"} <= saved.keys()
    listed = (await _checkpoints(client))[saved["checkpoint_id"]]
    assert listed["global_steps"] == 1 and listed["checkpoint_type"] == "resumable"


async def test_save_with_path_step_and_export_hf(published: PublishedFactory):
    client = await published()
    await client.step()
    await client.step()
    saved = await client.save_checkpoint(
        checkpoint_type="weights-only", path="/tmp/ignored-by-cortex", step=2, export_hf=True
    )
    listed = (await _checkpoints(client))[saved["checkpoint_id"]]
    assert listed["global_steps"] == 2 and listed["checkpoint_type"] == "weights-only"


async def test_load_restores_the_saved_step(published: PublishedFactory):
    client = await published()
    await client.step()
    saved = await client.save_checkpoint()
    await client.step()
    loaded = await _load(client, saved["checkpoint_id"])
    assert loaded["checkpoint_id"] == saved["checkpoint_id"]
    assert (await client.step())["global_steps"] == 2  # back to 1, then one more


async def test_delete_checkpoint(published: PublishedFactory):
    client = await published()
    saved = await client.save_checkpoint()
    url = _job_url(client, f"/checkpoints/{saved['checkpoint_id']}")
    assert await asyncio.to_thread(client.transport._send, "DELETE", url) == {}
    assert saved["checkpoint_id"] not in await _checkpoints(client)


# -- operations ---------------------------------------------------------------------------


async def test_tail_logs_pages_with_its_cursor(published: PublishedFactory):
    client = await published()
    await client.step()

    async def page(cursor: str) -> dict[str, Any]:
        body = {
            "operation_type": "tail-logs",
            "sub_job_id": client.jobs.training,
            "payload": {"cursor": cursor, "max_lines": 1},
        }
        return await client.transport.acall(Request("operation", client.jobs.training, body))

    first = await page("")
    assert len(first["entries"]) == 1 and isinstance(first["eof"], bool)
    assert first["next_cursor"] and first["eof"] is False
    second = await page(first["next_cursor"])
    assert second["entries"] and second["entries"] != first["entries"]


# -- polling ------------------------------------------------------------------------------
# The published client re-polls at once while `next_cursor` is non-empty, else sleeps 0.5 s
# (x1.25). A request in flight for REQUEST_LATENCY_S (0.2 s) is therefore a handful of polls
# when the server sends "" with nothing queued, and a busy-poll storm when it does not (each
# storm poll echoes the cursor, so the tests also check that no poll carried one).
MAX_POLLS = 5


async def test_polls_for_a_short_step(slow_published: PublishedFactory, slow_proxy: CountingProxy):
    client = await slow_published()
    before = slow_proxy.count("GET", "/requests/")
    assert (await client.step())["global_steps"] == 1
    assert slow_proxy.count("GET", "/requests/") - before <= MAX_POLLS
    assert slow_proxy.count("GET", "cursor=") == 0  # nothing was ever queued to drain


async def test_polls_for_a_short_generate(
    slow_published: PublishedFactory, slow_proxy: CountingProxy
):
    client = await slow_published()
    before = slow_proxy.count("GET", "/requests/")
    results = await client.generate(["ab"], {"max_tokens": 2})
    assert [r["text"] for r in results] == ["ab"]
    assert slow_proxy.count("GET", "/requests/") - before <= MAX_POLLS
    assert slow_proxy.count("GET", "cursor=") == 0  # nothing was ever queued to drain
