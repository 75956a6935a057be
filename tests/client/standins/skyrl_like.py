"""What SkyRL does with Arctic RL, reduced to the calls and the keys it reads.

SkyRL's launcher imports the module named by `trainer.override_entrypoint` on the driver,
builds the client config from `trainer.arctic_rl` with `backend="local"` hardcoded, and
calls `create_arctic_rl_client(config, None)`.
"""

from __future__ import annotations

import importlib
import pickle
from typing import Any

from omegaconf import DictConfig, OmegaConf

from arctic_rl import ArcticRLClientConfig, create_arctic_rl_client

from .batches import PROMPTS, train_tensors


def build_client(cfg: DictConfig) -> Any:
    if cfg.trainer.get("override_entrypoint"):
        importlib.import_module(cfg.trainer.override_entrypoint)
    knobs = OmegaConf.to_container(cfg.trainer.arctic_rl, resolve=True)
    assert isinstance(knobs, dict)
    config = ArcticRLClientConfig(
        **{
            **knobs,
            "backend": "local",
            "model_name": cfg.trainer.policy.model.path,
            "training_gpus": 1,
            "sampling_gpus": 1,
        }
    )
    client = create_arctic_rl_client(config, None)
    read_ids = (client.training_job_id, client.sampling_job_id, client.log_prob_job_id)
    return client, read_ids


async def train_iteration(client: Any) -> dict[str, Any]:
    """One GRPO iteration as SkyRL sequences it; returns every value it read."""
    seen: dict[str, Any] = {}
    await client.wake_inference(tags=["weights"])
    outputs = await client.generate(PROMPTS, {"max_tokens": 4, "temperature": 0.0})
    seen["generate"] = [(o["text"], o["token_ids"], o["finish_reason"]) for o in outputs]
    await client.sleep_inference(level=1)
    batch = {
        "batch": train_tensors(),
        "meta": {},
        "processing": {"post": ["logprobs"], "loss_fn": "verl_grpo", "config": {}},
    }
    policy = await client.fwd_no_grad(batch, reference_model=False)
    batch_out = policy["batch"]
    seen["policy_logprobs"] = batch_out.get("logprobs", batch_out.get("log_probs"))
    seen["policy_entropy"] = batch_out.get("entropy")
    seen["policy_metrics"] = policy.get("metrics")
    reference = await client.fwd_no_grad(batch, reference_model=True)
    seen["ref_logprobs"] = reference["batch"]["logprobs"]
    result = await client.fwd_bwd(batch)
    seen["fwd_bwd_metrics"] = result.get("metrics", result)
    seen["fwd_bwd_grad_norm"] = result.get("grad_norm")
    step = await client.step()
    seen["grad_norm"] = step["metrics"]["grad_norm"]
    seen["last_lr"] = step["metrics"]["last_lr"]
    await client.sync_weights(cuda_ipc=False, low_memory=False)
    await client.reset_prefix_cache()
    seen["checkpoint"] = await client.save_checkpoint()
    return seen


def worker_reconnect(client: Any) -> Any:
    """A worker process gets the pickled reconnect config and attaches to the same job."""
    payload = pickle.dumps(client.reconnect_config())
    return create_arctic_rl_client(pickle.loads(payload), client.get_server_state())
