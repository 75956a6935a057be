"""Stand-in for `arctic_platform.client` (0.1.4 and the current sources): the nested
client config (`backend=OnPremConfig(...)`, `training=`, `sampling=` blocks), and the two
ways adapters construct a client from it, the class `AsyncArcticRLClient` (0.1.4) and the
factory `create_arctic_rl_client` (current). For an on-prem config both start the on-prem
servers, which need the extras this environment lacks: they raise ImportError, as the
published ones do without deepspeed."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class OnPremConfig(BaseModel):
    type: Literal["onprem"] = "onprem"
    protocol: Literal["http", "ray"] = "http"
    host: str = "localhost"
    port: int = 8000
    colocate: bool = False


class TrainingConfig(BaseModel):
    ds_config: dict[str, Any] | None = None
    ds_worker_config: dict[str, Any] | None = None
    checkpoint_path: str | None = None
    full_determinism: bool = False
    cuda_ipc: bool = False
    low_memory: bool = False


class SamplingConfig(BaseModel):
    vllm: dict[str, Any] = Field(default_factory=dict)
    arctic_inference_config: dict[str, Any] | None = None
    log_prob_engine: Literal["vllm", "deepspeed"] = "vllm"
    log_prob_ds_config: dict[str, Any] | None = None


class ArcticRLClientConfig(BaseModel):
    model_name: str
    seed: int | None = None
    max_seq_len: int = 8192
    training_gpus: int = 0
    sampling_gpus: int = 0
    log_prob_gpus: int = 0
    training: TrainingConfig = Field(default_factory=TrainingConfig)
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)
    backend: OnPremConfig = Field(default_factory=OnPremConfig)


ArcticClientConfig = ArcticRLClientConfig  # the 0.1.4 name


def _on_prem(config: Any) -> None:
    raise ImportError("the on-prem Arctic RL servers need deepspeed, liger-kernel, nvidia-ml-py")


class AsyncArcticRLClient:
    def __init__(self, config: Any, server_state: Any = None) -> None:
        _on_prem(config)


def create_arctic_rl_client(config: Any, server_state: Any = None) -> Any:
    _on_prem(config)
