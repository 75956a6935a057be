"""Stand-in for the published verl adapter's client handling (0.1.4 and the current
sources). `_initialize_client` builds a nested
on-prem config from the verl config and constructs the client with the class (0.1.4) or
the factory (current): `ARCTIC_STANDIN_CONSTRUCTS=class|factory` picks which. The calls
are `async`; `reconnect_handle` reads the client's `transport`, as both do."""

from __future__ import annotations

import os
from typing import Any

from verl.remote_backend.base import RemoteBackend, RemoteBackendRegistry

from arctic_platform.client import (
    ArcticRLClientConfig,
    AsyncArcticRLClient,
    OnPremConfig,
    SamplingConfig,
    TrainingConfig,
    create_arctic_rl_client,
)
from arctic_platform.rl.ray_server import ArcticRLRayServerState  # noqa: F401  (as both do)

_BY_CLASS = os.environ.get("ARCTIC_STANDIN_CONSTRUCTS", "factory") == "class"


def _construct(config: Any, server_state: Any = None) -> Any:
    if _BY_CLASS:
        return AsyncArcticRLClient(config, server_state=server_state)
    return create_arctic_rl_client(config, server_state=server_state)


@RemoteBackendRegistry.register("arctic")
class ArcticRLClientWrapper(RemoteBackend):
    def __init__(self, config: Any, reconnect_job_config: Any = None, rl_server_state: Any = None):
        self.config = config
        self._client = self._initialize_client(reconnect_job_config, rl_server_state)

    @classmethod
    def from_config(cls, main_config: Any, *, handle: dict[str, Any] | None = None) -> Any:
        if handle is None:
            return cls(config=main_config)
        return cls(main_config, handle["rl_client_reconnect_config"], handle["rl_server_state"])

    def reconnect_handle(self) -> dict[str, Any]:
        get_state = getattr(self._client.transport, "get_server_state", None)
        return {
            "rl_client_reconnect_config": self._client.reconnect_config(),
            "rl_server_state": get_state() if get_state is not None else None,
        }

    def requires_single_forwarder(self) -> bool:
        return True

    def _initialize_client(self, reconnect_job_config: Any = None, rl_server_state: Any = None):
        if reconnect_job_config is not None:
            return _construct(reconnect_job_config, rl_server_state)
        backend = self.config.remote_backend
        data = self.config.data
        config = ArcticRLClientConfig(
            model_name=self.config.actor_rollout_ref.model.path,
            seed=backend.train.determinism.seed,
            max_seq_len=data.max_prompt_length + data.max_response_length,
            training_gpus=backend.training_gpus,
            sampling_gpus=backend.sampling_gpus,
            log_prob_gpus=backend.log_prob_gpus,
            backend=OnPremConfig(protocol=backend.comms.protocol, colocate=backend.colocate),
            training=TrainingConfig(
                ds_config={"train_batch_size": data.train_batch_size},
                checkpoint_path=self.config.trainer.default_local_dir,
            ),
            sampling=SamplingConfig(vllm={"tensor_parallel_size": backend.sampling_tp_size}),
        )
        return _construct(config)

    async def compute_log_prob(self, prompts: list[list[int]], completions: list[list[int]]):
        return await self._client.log_probs(prompts, completions, top_k=0)

    async def update_weights(self) -> Any:
        return await self._client.sync_weights()

    async def save_checkpoint(self) -> Any:
        return await self._client.save_checkpoint()

    async def destroy(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.shutdown()
