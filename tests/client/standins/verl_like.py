"""What verl's Arctic RL adapter does: Hydra group `remote_backend`, actor + reference log-probs.

verl composes its config with `remote_backend=cortex` (the group file shipped in
`arctic_rl/integrations/verl/remote_backend/`), builds the client config from that section,
and awaits every data-plane call, `shutdown()` included.
"""

from __future__ import annotations

from typing import Any

import torch
from omegaconf import DictConfig, OmegaConf

from arctic_rl import ArcticRLClientConfig, create_arctic_rl_client
from arctic_rl.integrations.verl import GROUP_FILE

from .batches import PROMPTS, train_tensors


def compose(overrides: dict[str, Any]) -> DictConfig:
    """`remote_backend=cortex` plus command-line style overrides, as Hydra would merge them."""
    base = OmegaConf.create(
        {
            "actor_rollout_ref": {"model": {"path": "tiny-byte-lm"}},
            "remote_backend": OmegaConf.load(GROUP_FILE),
        }
    )
    merged = OmegaConf.merge(base, OmegaConf.create(overrides))
    assert isinstance(merged, DictConfig)
    return merged


def build_client(cfg: DictConfig) -> Any:
    section = OmegaConf.to_container(cfg.remote_backend, resolve=True)
    assert isinstance(section, dict)
    config = ArcticRLClientConfig(
        **section, model_name=cfg.actor_rollout_ref.model.path, training_gpus=1, sampling_gpus=1
    )
    return create_arctic_rl_client(config, None)


async def update_policy(client: Any) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    outputs = await client.generate(PROMPTS, {"max_tokens": 4})
    seen["texts"] = [o["text"] for o in outputs]
    tensors = train_tensors()
    data = {
        "batch": tensors,
        "meta": {},
        "processing": {"post": ["logprobs", "entropy"], "loss_fn": "verl_grpo", "config": {}},
    }
    actor = await client.fwd_no_grad(data, reference_model=False)
    seen["old_log_probs"] = actor["batch"]["logprobs"]
    seen["entropy"] = actor["batch"].get("entropy")
    ref = await client.fwd_no_grad(data, reference_model=True)
    seen["ref_log_prob"] = ref["batch"]["logprobs"]
    tensors = {
        **tensors,
        "ref_log_prob": seen["ref_log_prob"],
        "rollout_is_weights": torch.ones_like(tensors["advantages"]),
    }
    meta = {
        "actor_config": {"ppo_epochs": 1, "clip_ratio": 0.2},
        "policy_loss_config": {"loss_mode": "vanilla"},
        "global_batch_size": len(PROMPTS),
        "batch_num_tokens": torch.tensor(int(tensors["response_mask"].sum())),
    }
    result = await client.fwd_bwd(
        {"batch": tensors, "meta": meta, "processing": data["processing"]}
    )
    metrics = dict(result["metrics"])
    seen["loss"] = metrics.pop("loss")
    step = await client.step()
    step_metrics = {**step["metrics"], **metrics}
    seen["step_metrics"] = step_metrics
    await client.sync_weights()
    seen["checkpoint"] = await client.save_checkpoint()
    await client.shutdown()
    return seen
