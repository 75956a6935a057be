"""Pinning tests: every method, property and response key of integrations.md, over the wire."""

from __future__ import annotations

import inspect
import json
import pickle
import sqlite3
import warnings

import pytest
import torch

from arctic_rl import ArcticRLClient, ArcticRLClientConfig, create_arctic_rl_client
from devtools.batches import OUTPUT_SHAPE, PROMPTS, train_tensors

from .conftest import Endpoint

PROCESSING = {"post": ["logprobs", "entropy"], "loss_fn": "verl_grpo", "config": {}}
COLOCATION = {
    "sleep_inference": {"level": 1},
    "wake_inference": {"tags": None},
    "reset_prefix_cache": {},
    "sleep_training": {"mode": "all"},
    "wake_training": {},
    "sleep_log_prob": {},
    "wake_log_prob": {},
    "empty_training_cache": {},
}
ASYNC_METHODS = (
    "fwd_bwd",
    "fwd_no_grad",
    "step",
    "generate",
    "sync_weights",
    "save_checkpoint",
    "log_probs",
)


def _config(endpoint: Endpoint, **fields: object) -> ArcticRLClientConfig:
    fields = {"training_gpus": 1, "sampling_gpus": 1, **fields}
    return ArcticRLClientConfig(
        backend="cortex", model_name="tiny-byte-lm", cortex=endpoint.cortex_block(), **fields
    )


@pytest.fixture
def legacy(endpoint: Endpoint):
    client = create_arctic_rl_client(_config(endpoint), None)
    yield client
    client.shutdown()


def test_factory_signature_is_legacy():
    params = list(inspect.signature(create_arctic_rl_client).parameters.values())
    assert [p.name for p in params] == ["config", "server_state"]
    assert params[1].default is None and params[1].kind is params[1].POSITIONAL_OR_KEYWORD


async def test_identity_surface(legacy, endpoint: Endpoint):
    job = legacy.job_id
    assert legacy.config.model_name == "tiny-byte-lm" and legacy.config.backend == "cortex"
    assert legacy.training_job_id == f"{job}:training:0"
    assert legacy.sampling_job_id == f"{job}:sampling:0"
    assert legacy.log_prob_job_id is None
    assert legacy.get_server_state() is None
    again = pickle.loads(pickle.dumps(legacy.reconnect_config()))
    assert again.cortex.job_id == job and again.training_job_id == legacy.training_job_id
    for name in ASYNC_METHODS:
        assert inspect.iscoroutinefunction(getattr(legacy, name)), name
    assert endpoint.token not in repr(legacy) + repr(legacy.reconnect_config())


def test_unset_sub_jobs_raise_value_error(endpoint: Endpoint):
    legacy = create_arctic_rl_client(_config(endpoint, sampling_gpus=0), None)
    try:
        assert legacy.training_job_id.endswith(":training:0")
        with pytest.raises(ValueError):
            legacy.sampling_job_id  # noqa: B018
    finally:
        legacy.shutdown()


async def test_colocation_calls_are_noops_plain_and_awaited(legacy):
    for name, kwargs in COLOCATION.items():
        getattr(legacy, name)(**kwargs)
        assert await getattr(legacy, name)(**kwargs) is None
    assert await legacy.weight_norm() is None  # no Cortex route reports it
    assert legacy.weight_norm().value is None


async def test_fwd_bwd_keys_and_legacy_kwargs(legacy):
    result = await legacy.fwd_bwd({"batch": train_tensors(), "meta": {}, "processing": PROCESSING})
    assert isinstance(result["metrics"], dict)
    assert result["loss"] == result["avg_loss"] == result["metrics"]["loss"]
    assert isinstance(result["batch"], dict)  # callers read metrics; outputs when asked for
    for value in result["batch"].values():
        assert isinstance(value, torch.Tensor) and value.shape == OUTPUT_SHAPE
    assert result["grad_norm"] == result["metrics"]["grad_norm"] == 1.0  # the canned mock's
    # Old callers: bare tensors, processing positional, meta and loss_fn as keywords.
    folded = await legacy.fwd_bwd(
        train_tensors(), PROCESSING, meta={"global_batch_size": 2}, loss_fn="verl_grpo"
    )
    assert folded["metrics"]["loss"] == folded["avg_loss"] == 0.5


async def test_fwd_no_grad_keys(legacy):
    data = {"batch": train_tensors(), "meta": {}, "processing": PROCESSING}
    for reference in (False, True):
        result = await legacy.fwd_no_grad(data, reference_model=reference)
        assert result["batch"]["logprobs"].shape == OUTPUT_SHAPE
        assert torch.equal(result["batch"]["log_probs"], result["batch"]["logprobs"])
        assert result["batch"]["entropy"].shape == OUTPUT_SHAPE
        assert isinstance(result["metrics"], dict)
    legacy_kw = await legacy.fwd_no_grad(
        train_tensors(), reference_model=False, meta={}, processing=PROCESSING
    )
    assert legacy_kw["batch"]["logprobs"].shape == OUTPUT_SHAPE


async def test_entropy_with_compute_entropy_and_logprobs(legacy):
    """The real post name yields entropy only when meta.calculate_entropy is set."""
    post = {"post": ["compute_entropy_and_logprobs"], "loss_fn": None}
    for asked in (True, False):
        data = {"batch": train_tensors(), "meta": {"calculate_entropy": asked}, "processing": post}
        result = await legacy.fwd_no_grad(data, reference_model=False)
        assert result["batch"]["logprobs"].shape == OUTPUT_SHAPE
        assert ("entropy" in result["batch"]) is asked


async def test_step_metrics_dict_without_none(legacy):
    await legacy.fwd_bwd({"batch": train_tensors(), "meta": {}, "processing": PROCESSING})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the canned mock reports both: no warning
        result = await legacy.step()
    assert result["metrics"]["grad_norm"] == 1.0 and result["metrics"]["last_lr"] > 0
    assert None not in result["metrics"].values()
    assert (await legacy.step(learning_rate=1e-5))["last_lr"] == 1e-5


async def test_generate_returns_list_of_dicts(legacy):
    outputs = await legacy.generate(PROMPTS, {"max_tokens": 3, "temperature": 0.0})
    assert isinstance(outputs, list) and len(outputs) == len(PROMPTS)
    for out in outputs:
        assert {"text", "token_ids", "finish_reason"} <= set(out)
        assert isinstance(out["text"], str) and all(isinstance(t, int) for t in out["token_ids"])
    assert len(await legacy.generate(PROMPTS)) == len(PROMPTS)


async def test_sync_weights_save_and_log_probs(legacy):
    sampling = [legacy.sampling_job_id]
    assert (await legacy.sync_weights())["synced_sub_job_ids"] == sampling
    synced = await legacy.sync_weights(cuda_ipc=True, low_memory=True)
    assert synced["synced_sub_job_ids"] == sampling and synced["version"] == 2
    saved = await legacy.save_checkpoint()
    assert isinstance(saved, dict) and saved.get("checkpoint_id")
    # On-prem-only keywords are ignored, not fatal.
    assert (await legacy.save_checkpoint(checkpoint_path="/tmp/ckpt", tag="x"))["checkpoint_id"]
    assert (await legacy.sync_weights(cuda_ipc=False, group_name="actor"))["version"] == 3
    scored = await legacy.log_probs(PROMPTS, [" 4", " blue"], top_k=1)
    assert len(scored["logprobs"]) == len(PROMPTS) == len(scored["top_k_token_ids"])


async def test_shutdown_plain_and_awaited_cancels_the_job(endpoint: Endpoint):
    first = create_arctic_rl_client(_config(endpoint), None)
    first.shutdown()
    second = create_arctic_rl_client(_config(endpoint), None)
    await second.shutdown()
    db = sqlite3.connect(f"file:{endpoint.live.state_dir / 'mock.sqlite3'}?mode=ro", uri=True)
    try:
        for job_id in (first.job_id, second.job_id):
            row = db.execute("SELECT status FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
            assert row == ("cancelled",), job_id
    finally:
        db.close()


def test_blocking_client_full_surface(endpoint: Endpoint):
    with ArcticRLClient(_config(endpoint)) as client:
        assert client.get_job()["job_id"] == client.job_id
        assert client.fwd_bwd(train_tensors(), processing=PROCESSING)["avg_loss"] == 0.5
        scored = client.fwd_no_grad(train_tensors(), reference_model=True, processing=PROCESSING)
        assert scored["model_outputs"]["logprobs"].shape == OUTPUT_SHAPE
        assert client.step()["global_steps"] == 1
        assert len(client.generate(PROMPTS, {"max_tokens": 2})["results"]) == len(PROMPTS)
        assert client.sync_weights()["synced_sub_job_ids"] == [client.sub_jobs["sampling"]]
        saved = client.save_checkpoint()
        ids = [c["checkpoint_id"] for c in client.list_checkpoints()]
        assert saved["checkpoint_id"] in ids
        assert (
            client.load_checkpoint(saved["checkpoint_id"])["checkpoint_id"]
            == saved["checkpoint_id"]
        )
        client.delete_checkpoint(saved["checkpoint_id"])
        assert saved["checkpoint_id"] not in [c["checkpoint_id"] for c in client.list_checkpoints()]
        assert client.cancel()["status"] == "cancelled"


def test_create_job_translation_reaches_the_mock(endpoint: Endpoint):
    """SkyRL's and verl's training_config and ds_config, as the mock stored the request."""
    config = _config(
        endpoint,
        ds_config={
            "train_batch_size": 16,
            "gradient_clipping": 0.5,
            "optimizer": {"type": "AdamW", "params": {"lr": 9.0, "eps": 1e-8}},
        },
        training_config={
            "training_horizon": 100,
            "optimizer": {"lr": 2e-6, "weight_decay": 0.01, "betas": [0.9, 0.95]},
            "lr_scheduler": {"type": "constant", "warmup_ratio": 0.0},
            "max_length": 24,
            "model_config": None,
        },
    )
    legacy = create_arctic_rl_client(config, None)
    try:
        db = sqlite3.connect(f"file:{endpoint.live.state_dir / 'mock.sqlite3'}?mode=ro", uri=True)
        row = db.execute("SELECT sub_jobs FROM jobs WHERE job_id = ?", (legacy.job_id,))
        training = json.loads(row.fetchone()[0])[0]["training_config"]
        db.close()
    finally:
        legacy.shutdown()
    assert training == {
        "optimizer": {"name": "AdamW", "lr": 2e-6, "weight_decay": 0.01, "betas": [0.9, 0.95]},
        "max_seq_len": 24,
        "train_batch_size": 16,
        "n_gpus": 1,
        "gradient_clipping": 0.5,
        "training_horizon": 100,
        "lr_scheduler": {"type": "constant", "warmup_ratio": 0.0},
    }
