"""SkyRL's strict Arctic config and `build_rl_config`, replayed field for field.

Unknown keys are rejected as SkyRL's dataclass config does (`Invalid fields`), so
`trainer.arctic_rl.cortex.*` cannot ride along; the client config is built with
backend "local", comm_protocol "ray" and no host/port, from SkyRL's own settings.
"""

from __future__ import annotations

from typing import Any

import yaml
from arctic_platform.rl import ArcticRLClientConfig

DEFAULTS: dict[str, Any] = {
    "trainer.policy.model.path": "tiny-byte-lm",
    "trainer.policy.optimizer_config.lr": 1e-6,
    "trainer.policy.optimizer_config.weight_decay": 0.0,
    "trainer.policy.optimizer_config.max_grad_norm": 1.0,
    "trainer.max_prompt_length": 16,
    "trainer.train_batch_size": 2,
    "trainer.policy_mini_batch_size": 2,
    "trainer.epochs": 1,
    "trainer.export_path": ".",
    "trainer.ckpt_path": "ckpt",
    "trainer.resume_mode": "latest",
    "trainer.ckpt_interval": 10,
    "trainer.max_ckpts_to_keep": -1,
    "generator.n_samples_per_prompt": 4,
    "generator.sampling_params.max_generate_length": 8,
    "generator.sampling_params.temperature": 1.0,
    "generator.inference_engine.num_engines": 1,
    "generator.inference_engine.tensor_parallel_size": 1,
    "trainer.placement.policy_num_gpus_per_node": 1,
    "trainer.arctic_rl.colocate": False,
    "trainer.arctic_rl.zero_stage": 0,
}


class SkyRLConfig(dict):
    """The dotted settings, also read as SkyRL's dataclass config is (`cfg.trainer.ckpt_path`)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Section(self, name)


class _Section:
    def __init__(self, cfg: SkyRLConfig, prefix: str) -> None:
        self._cfg, self._prefix = cfg, prefix

    def __getattr__(self, name: str) -> Any:
        key = f"{self._prefix}.{name}"
        return self._cfg[key] if key in self._cfg else _Section(self._cfg, key)


def parse(argv: list[str]) -> SkyRLConfig:
    """`key=value` overrides onto the defaults; an unknown key fails like SkyRL's parse."""
    cfg = SkyRLConfig(DEFAULTS)
    unknown = []
    for entry in argv:
        key, _, raw = entry.partition("=")
        if key not in cfg:
            unknown.append(key)
            continue
        cfg[key] = yaml.safe_load(raw)
    if unknown:
        raise ValueError(f"Invalid fields {unknown} for ArcticSkyRLConfig")
    return cfg


def build_rl_config(cfg: dict[str, Any]) -> Any:
    lr = cfg["trainer.policy.optimizer_config.lr"]
    clip = float(cfg["trainer.policy.optimizer_config.max_grad_norm"])
    n = cfg["generator.n_samples_per_prompt"]
    mini_batch = cfg["trainer.policy_mini_batch_size"] * n
    betas = [0.9, 0.999]
    weight_decay = cfg["trainer.policy.optimizer_config.weight_decay"]
    max_length = (
        cfg["trainer.max_prompt_length"] + cfg["generator.sampling_params.max_generate_length"]
    )
    optimizer = {"lr": lr, "weight_decay": weight_decay, "betas": betas}
    if clip > 0:
        optimizer["gradient_clipping"] = clip
    return ArcticRLClientConfig(
        model_name=cfg["trainer.policy.model.path"],
        backend="local",
        comm_protocol="ray",
        checkpoint_path=cfg["trainer.ckpt_path"],
        training_gpus=cfg["trainer.placement.policy_num_gpus_per_node"],
        sampling_gpus=cfg["generator.inference_engine.num_engines"]
        * cfg["generator.inference_engine.tensor_parallel_size"],
        log_prob_gpus=0,
        log_prob_engine="vllm",
        colocate=cfg["trainer.arctic_rl.colocate"],
        vllm_config={"tensor_parallel_size": 1, "max_model_len": max_length},
        ds_config={
            "train_micro_batch_size_per_gpu": 1,
            "train_batch_size": mini_batch,
            "gradient_accumulation_steps": mini_batch,
            "gradient_clipping": clip,
            "optimizer": {
                "type": "AdamW",
                "params": {"lr": lr, "betas": betas, "eps": 1e-8, "weight_decay": weight_decay},
            },
            "zero_optimization": {"stage": cfg["trainer.arctic_rl.zero_stage"]},
        },
        ds_worker_config={"use_liger": True, "attn_implementation": "flash_attention_2"},
        training_config={
            "training_horizon": 1000,
            "optimizer": optimizer,
            "lr_scheduler": {"type": "constant", "warmup_ratio": 0.0},
            "max_length": max_length,
            "model_config": None,
            "attn_implementation": "flash_attention_2",
        },
        full_determinism=False,
        seed=42,
        startup_timeout=300.0,
        server_logs=False,
    )
