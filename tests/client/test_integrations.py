"""SkyRL's and verl's call sequences, replayed through the shim: every key they read is there."""

from __future__ import annotations

import logging

import torch
from omegaconf import OmegaConf

from .conftest import Endpoint
from .standins import skyrl_like, verl_like
from .standins.batches import OUTPUT_SHAPE


def _skyrl_cfg(endpoint: Endpoint, with_block: bool = True) -> object:
    arctic = {"cortex": endpoint.cortex_block()} if with_block else {}
    return OmegaConf.create(
        {
            "trainer": {
                "override_entrypoint": "arctic_rl.integrations.skyrl",
                "policy": {"model": {"path": "tiny-byte-lm"}},
                "arctic_rl": arctic,
            }
        }
    )


async def test_skyrl_sequence_through_the_shim(endpoint: Endpoint, caplog):
    caplog.set_level(logging.INFO, logger="arctic_rl")
    client, (training, sampling, log_prob) = skyrl_like.build_client(_skyrl_cfg(endpoint))
    try:
        job = client.job_id
        assert training == f"{job}:training:0" and sampling == f"{job}:sampling:0"
        assert log_prob is None
        seen = await skyrl_like.train_iteration(client)
        assert len(seen["generate"]) == 2
        for text, token_ids, finish_reason in seen["generate"]:
            assert isinstance(text, str) and isinstance(finish_reason, str)
            assert all(isinstance(t, int) for t in token_ids)
        assert isinstance(seen["policy_logprobs"], torch.Tensor)
        assert seen["policy_logprobs"].shape == OUTPUT_SHAPE
        assert isinstance(seen["ref_logprobs"], torch.Tensor)
        assert isinstance(seen["fwd_bwd_metrics"], dict) and "loss" in seen["fwd_bwd_metrics"]
        assert "grad_norm" in seen["fwd_bwd_metrics"] or seen["fwd_bwd_grad_norm"] is None
        assert "last_lr" in str(seen) and seen["last_lr"] is not None
        assert isinstance(seen["checkpoint"], dict) and seen["checkpoint"]
        worker = skyrl_like.worker_reconnect(client)
        assert worker.job_id == job and worker.training_job_id == training
        worker.shutdown()  # a reconnected worker never cancels the job
        assert endpoint.token not in caplog.text
    finally:
        client.shutdown()


async def test_skyrl_configure_supplies_the_block(endpoint: Endpoint):
    from arctic_rl.integrations import skyrl

    cfg = _skyrl_cfg(endpoint, with_block=False)
    skyrl.configure(_skyrl_cfg(endpoint))
    client, ids = skyrl_like.build_client(cfg)
    try:
        assert ids[0].endswith(":training:0")
    finally:
        await client.shutdown()


async def test_verl_sequence_through_the_shim(endpoint: Endpoint):
    cfg = verl_like.compose({"remote_backend": {"cortex": endpoint.cortex_block()}})
    client = verl_like.build_client(cfg)
    seen = await verl_like.update_policy(client)
    assert seen["texts"] and all(isinstance(t, str) for t in seen["texts"])
    assert seen["old_log_probs"].shape == seen["ref_log_prob"].shape == OUTPUT_SHAPE
    assert isinstance(seen["loss"], float)
    assert {"grad_norm", "last_lr"} <= set(seen["step_metrics"])
    assert "checkpoint_id" in seen["checkpoint"] or seen["checkpoint"]
