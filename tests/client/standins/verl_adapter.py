"""Replay of verl's Arctic adapter (Arctic-Platform 1b47608,
`arctic_platform/integrations/verl/adapter.py`): what it reads from the config and what
it sends to and reads from the client. The published module needs transformers and the
real verl, so the verl replay loads this file under the adapter's module name.

Data is a dict standing in for verl's TensorDict: `input_ids` jagged (prompt + response
per row), `prompts` [B, P] left-padded, `responses` / `response_mask` / `advantages` /
`old_log_probs` [B, R] right-padded, `attention_mask` [B, P + R].
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from arctic_platform.rl import ArcticRLClientConfig, create_arctic_rl_client
from arctic_platform.rl.ray_server import ArcticRLRayServerState
from verl.remote_backend.base import RemoteBackend, RemoteBackendRegistry

SAMPLING_DEFAULTS = {"temperature": 0.0, "top_p": 1.0, "top_k": 0, "max_tokens": 1024}


def dense(data: dict[str, Any], pad: int) -> torch.Tensor:
    """Jagged prompt+response rows -> left-padded prompt + right-padded response [B, P+R]."""
    prompt_len = data["attention_mask"][:, : data["prompts"].shape[1]].sum(1)
    rows = []
    for row, p_len in zip(data["input_ids"].unbind(), prompt_len.tolist(), strict=True):
        prompt, response = row[:p_len], row[p_len:]
        left = data["prompts"].shape[1] - p_len
        right = data["responses"].shape[1] - len(response)
        rows.append(
            torch.cat(
                [prompt.new_full((left,), pad), prompt, response, prompt.new_full((right,), pad)]
            )
        )
    return torch.stack(rows)


@RemoteBackendRegistry.register("arctic")
class ArcticRLClientWrapper(RemoteBackend):
    def __init__(self, config: Any, reconnect_job_config: Any = None, rl_server_state: Any = None):
        self.config = config
        backend = config.remote_backend
        train = backend.train
        self.zorro = train.zorro_train.enable
        self.max_rollouts = train.zorro_train.max_rollouts
        self.drop_position_ids = backend.comms.get("drop_position_ids", True)
        self.logits = train.logits.get("optimization", "none")
        self.load_balancer = train.get("load_balancer", True)
        self.cuda_ipc = backend.weight_sync.cuda_ipc
        self.low_memory = backend.weight_sync.low_memory
        self._client = self._initialize_client(reconnect_job_config, rl_server_state)

    @classmethod
    def from_config(cls, main_config: Any, *, handle: dict[str, Any] | None = None) -> Any:
        if handle is None:
            return cls(config=main_config)
        return cls(
            config=main_config,
            reconnect_job_config=handle["rl_client_reconnect_config"],
            rl_server_state=handle["rl_server_state"],
        )

    def reconnect_handle(self) -> dict[str, Any]:
        return {
            "rl_client_reconnect_config": self._client.reconnect_config(),
            "rl_server_state": self._client.get_server_state(),
        }

    def _initialize_client(self, reconnect: Any, state: ArcticRLRayServerState | None) -> Any:
        if state is not None:
            return create_arctic_rl_client(reconnect, state)
        if reconnect is not None:
            return create_arctic_rl_client(reconnect)
        cfg, backend = self.config, self.config.remote_backend
        actor, data = cfg.actor_rollout_ref.actor, cfg.data
        optim = actor.optim
        max_length = data.max_prompt_length + data.max_response_length
        optimizer = {"lr": optim.lr, "weight_decay": optim.weight_decay, "betas": list(optim.betas)}
        if optim.get("clip_grad"):
            optimizer["gradient_clipping"] = float(optim.clip_grad)
        protocol = backend.comms.protocol
        train_batch = actor.ppo_mini_batch_size * cfg.actor_rollout_ref.rollout.n
        rl_config = ArcticRLClientConfig(
            host=None if protocol == "ray" else "localhost",
            port=None if protocol == "ray" else 7000,
            comm_protocol=protocol,
            backend="local",
            training_gpus=backend.get("training_gpus", 1),
            sampling_gpus=backend.get("sampling_gpus", 1),
            log_prob_gpus=backend.get("log_prob_gpus", 0),
            colocate=backend.get("colocate", True),
            log_prob_engine="deepspeed",
            model_name=cfg.actor_rollout_ref.model.path,
            ds_config={"train_batch_size": train_batch, "train_micro_batch_size_per_gpu": 1},
            training_config={
                "training_horizon": int(optim.total_training_steps),
                "optimizer": optimizer,
                "lr_scheduler": {"type": "constant", "warmup_ratio": 0.0, "min_lr_ratio": None},
                "max_length": max_length,
                "model_config": None,
                "attn_implementation": "eager",
            },
            vllm_config={
                "tensor_parallel_size": backend.sampling_tp_size,
                "max_model_len": max_length,
            },
            checkpoint_path=cfg.trainer.default_local_dir,
            full_determinism=backend.train.determinism.get("full", False),
            seed=backend.train.determinism.get("seed", 42),
        )
        return create_arctic_rl_client(rl_config)

    def _meta(
        self, data: dict[str, Any], rollout_n: int, entropy: bool, pad: int
    ) -> dict[str, Any]:
        return {
            "zorro_train_enable": self.zorro,
            "zorro_train_max_rollouts": self.max_rollouts,
            "load_balancer": self.load_balancer,
            "rollout_n": rollout_n,
            "max_prompt_len": data["prompts"].shape[1],
            "max_response_len": data["responses"].shape[1],
            "temperature": data["temperature"],
            "calculate_entropy": entropy,
            "pad_token_id": pad,
            "drop_position_ids": self.drop_position_ids,
            "logits_optimization": self.logits,
        }

    async def compute_log_prob(
        self, data: dict[str, Any], *, ref: bool, calculate_entropy: bool, rollout_n: int,
        temperature: Any, pad_token_id: int,
    ) -> dict[str, Any]:  # fmt: skip
        batch = {
            "input_ids": dense(data, pad_token_id),
            "attention_mask": data["attention_mask"],
            "prompts": data["prompts"],
        }
        payload = {
            "batch": batch,
            "meta": self._meta(data, rollout_n, calculate_entropy, pad_token_id),
            "processing": {"post": ["compute_entropy_and_logprobs"], "loss_fn": None},
        }
        response = await self._client.fwd_no_grad(payload, reference_model=ref)
        response["batch"]["log_probs"] = response["batch"].pop("logprobs")
        output = {"log_probs": response["batch"]["log_probs"]}
        if calculate_entropy and "entropy" in response["batch"]:
            output["entropy"] = response["batch"]["entropy"]
        return {"model_output": output, "metrics": dict(response.get("metrics", {}))}

    async def update_actor(
        self, data: dict[str, Any], *, actor_config: dict[str, Any], pad_token_id: int,
        rollout_n: int, temperature: Any,
    ) -> dict[str, Any]:  # fmt: skip
        batch = {
            "input_ids": dense(data, pad_token_id),
            "attention_mask": data["attention_mask"],
            "prompts": data["prompts"],
            "responses": data["responses"],
            "response_mask": data["response_mask"],
            "old_log_probs": data["old_log_probs"],
            "advantages": data["advantages"],
        }
        if actor_config.get("use_kl_loss"):
            batch["ref_log_prob"] = data["ref_log_prob"]
        meta = self._meta(data, rollout_n, False, pad_token_id)
        meta["actor_config"] = dict(actor_config)
        meta["policy_loss_config"] = {"loss_mode": "vanilla"}
        meta["global_batch_size"] = batch["input_ids"].shape[0]
        meta["batch_num_tokens"] = batch["response_mask"].sum()
        weights = data.get("rollout_is_weights")
        meta["rollout_is_weights"] = weights
        response = await self._send_update_actor({"batch": batch, "meta": meta})
        metrics = dict(response["metrics"])
        loss = metrics.pop("loss")
        last_lr = metrics.pop("last_lr", None)
        reduced = {k: float(np.mean(v)) for k, v in metrics.items()}
        if last_lr is not None:
            reduced["lr"] = last_lr
        return {"loss": float(np.mean([loss])), "metrics": reduced}

    async def _send_update_actor(self, payload: dict[str, Any]) -> dict[str, Any]:
        payload["processing"] = {
            "post": ["apply_temperature", "compute_entropy_and_logprobs"],
            "loss_fn": "verl_grpo",
        }
        seq = payload["batch"]["input_ids"].shape[-1]
        for name in ("old_log_probs", "advantages", "response_mask", "ref_log_prob"):
            if name in payload["batch"]:
                t = payload["batch"][name]
                pad = t.new_zeros(*t.shape[:-1], seq - t.shape[-1])
                payload["batch"][name] = torch.cat([pad, t], dim=-1)
        payload["batch"]["loss_mask"] = payload["batch"]["response_mask"]
        fwd_bwd = await self._client.fwd_bwd(payload)
        step = await self._client.step()
        step["metrics"].update(**fwd_bwd["metrics"])
        return step

    async def generate(self, prompt_ids: list[int], sampling_params: dict[str, Any]) -> list:
        prompts = [bytes(prompt_ids).decode()]  # the tokenizer's decode (byte tokens here)
        return await self._client.generate(
            prompts=prompts, sampling_params={**SAMPLING_DEFAULTS, **sampling_params}
        )

    async def update_weights(self) -> Any:
        return await self._client.sync_weights(cuda_ipc=self.cuda_ipc, low_memory=self.low_memory)

    async def destroy(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.shutdown()
