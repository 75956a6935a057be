"""The Cortex job a verl run asks for, read from the composed verl config.

verl keeps the run's settings in its own tree (`actor_rollout_ref`, `data`, `trainer`)
and the backend's in `remote_backend` (the `cortex` group file). This builds the client
config the `cortex` backend creates its job from: the model, the optimizer, the batch
an optimizer step consumes, the sequence length, the seed, the sub-jobs' GPUs and the
Cortex settings; the token-layout convention is verl's.
"""

from __future__ import annotations

from typing import Any

from arctic_rl._config import ArcticRLClientConfig, _to_plain
from arctic_rl._layout import VERL
from arctic_rl.integrations.verl import cortex_settings

__all__ = ["job_config", "optimizer_steps_per_trainer_step"]


def optimizer_steps_per_trainer_step(cfg: Any) -> int:
    """How many optimizer steps one verl trainer step takes: one per PPO mini-batch, per
    PPO epoch (verl's actor updates the same way)."""
    actor, data = cfg.actor_rollout_ref.actor, cfg.data
    minibatches = int(data.train_batch_size) // int(actor.ppo_mini_batch_size)
    if minibatches < 1:
        raise ValueError(
            f"data.train_batch_size ({data.train_batch_size}) must be at least "
            f"actor_rollout_ref.actor.ppo_mini_batch_size ({actor.ppo_mini_batch_size})"
        )
    return int(actor.ppo_epochs) * minibatches


def job_config(cfg: Any) -> ArcticRLClientConfig:
    """The client config for a fresh job of this verl run (see the module doc)."""
    backend = cfg.remote_backend
    actor, data, rollout = cfg.actor_rollout_ref.actor, cfg.data, cfg.actor_rollout_ref.rollout
    optim = actor.optim
    max_length = int(data.max_prompt_length) + int(data.max_response_length)
    optimizer: dict[str, Any] = {
        "lr": float(optim.lr),
        "weight_decay": float(optim.weight_decay),
        "betas": [float(b) for b in optim.betas],
    }
    clip = optim.get("clip_grad", None)
    if clip is None:
        clip = actor.get("grad_clip", None)
    if clip is not None and float(clip) > 0:
        optimizer["gradient_clipping"] = float(clip)
    steps = optim.get("total_training_steps", None) or cfg.trainer.get("total_training_steps")
    training: dict[str, Any] = {"optimizer": optimizer, "max_length": max_length}
    if steps and int(steps) > 0:
        training["training_horizon"] = int(steps) * optimizer_steps_per_trainer_step(cfg)
    determinism = _to_plain(backend.train.get("determinism", None)) or {}
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name=str(cfg.actor_rollout_ref.model.path),
        seed=int(determinism.get("seed", 42)),
        full_determinism=bool(determinism.get("full", False)),
        training_gpus=int(backend.get("training_gpus", 1)),
        sampling_gpus=int(backend.get("sampling_gpus", 1)),
        log_prob_gpus=int(backend.get("log_prob_gpus", 0)),
        ds_config={"train_batch_size": int(actor.ppo_mini_batch_size) * int(rollout.n)},
        training_config=training,
        vllm_config={
            "tensor_parallel_size": int(backend.get("sampling_tp_size", 1)),
            "max_model_len": int(rollout.get("max_model_len", None) or max_length),
        },
        cortex=cortex_settings(cfg),
    )
    config._token_layout = VERL.name
    return config
