"""Replay of verl's `verl/workers/rollout/replica.py` (release/v0.7.1; the V1 base adds
`is_teacher_model`, `name_suffix`, `**kwargs` and the two KV-cache calls): the parts a
plugin's replica touches, with verl's signatures. The base fans every control call out to
`self.servers` as verl's does; `init_hybrid` takes this replica's slice of the workers."""

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable
from enum import Enum
from typing import Any

from pydantic import BaseModel

CONTROL_METHOD_CONCURRENCY = 16


class TokenOutput(BaseModel):
    token_ids: list[int]
    log_probs: list[float] | None = None
    routed_experts: Any | None = None
    stop_reason: str | None = None
    num_preempted: int | None = None
    extra_fields: dict[str, Any] = {}


class RolloutMode(Enum):
    HYBRID = "hybrid"
    COLOCATED = "colocated"
    STANDALONE = "standalone"


class RolloutReplica(ABC):
    def __init__(
        self,
        replica_rank: int,
        config: Any,
        model_config: Any,
        gpus_per_node: int = 8,
        is_reward_model: bool = False,
        is_teacher_model: bool = False,
        name_suffix: str = "",
        **kwargs: Any,
    ) -> None:
        self.replica_rank = replica_rank
        self.config = config  # verl: omega_conf_to_dataclass(config)
        self.model_config = model_config
        self.world_size = (
            config.tensor_model_parallel_size
            * config.data_parallel_size
            * config.pipeline_model_parallel_size
        )
        self.gpus_per_node = gpus_per_node
        self.is_reward_model = is_reward_model
        self.rollout_mode: RolloutMode | None = None
        self.workers: list[Any] = []
        self.servers: list[Any] = []
        self._server_address: str | None = None
        self._server_handle: Any = None

    async def init_hybrid(self, worker_group: Any) -> None:
        self.rollout_mode = RolloutMode.HYBRID
        lo = self.world_size * self.replica_rank
        self.workers = worker_group.workers[lo : lo + self.world_size]
        await self.launch_servers()

    @abstractmethod
    async def launch_servers(self) -> None:
        raise NotImplementedError

    @property
    def server_address(self) -> str | None:
        return self._server_address

    @property
    def server_handle(self) -> Any:
        return self._server_handle

    @property
    def max_concurrency(self) -> int:
        return max(1000, self.config.max_num_seqs + CONTROL_METHOD_CONCURRENCY)

    def rollout_worker_use_gpu(self) -> bool:
        return True

    async def wake_up(self) -> None:
        await asyncio.gather(*[server.wake_up.remote() for server in self.servers])

    async def sleep(self) -> None:
        await asyncio.gather(*[server.sleep.remote() for server in self.servers])

    async def abort_all_requests(self) -> None:
        await asyncio.gather(*[server.abort_all_requests.remote() for server in self.servers])

    async def resume_generation(self) -> None:
        await asyncio.gather(*[server.resume_generation.remote() for server in self.servers])

    async def clear_kv_cache(self) -> None:
        await asyncio.gather(*[server.clear_kv_cache.remote() for server in self.servers])

    async def release_kv_cache(self) -> None:
        await asyncio.gather(*[server.release_kv_cache.remote() for server in self.servers])

    async def resume_kv_cache(self) -> None:
        await asyncio.gather(*[server.resume_kv_cache.remote() for server in self.servers])

    async def start_profile(self, **kwargs: Any) -> None:
        await asyncio.gather(*[server.start_profile.remote(**kwargs) for server in self.servers])

    async def stop_profile(self) -> None:
        await asyncio.gather(*[server.stop_profile.remote() for server in self.servers])


class RolloutReplicaRegistry:
    _registry: dict[str, Callable[[], type[RolloutReplica]]] = {}

    @classmethod
    def register(cls, name: str, loader: Callable[[], type[RolloutReplica]]) -> None:
        cls._registry[name] = loader

    @classmethod
    def get(cls, name: str) -> type[RolloutReplica]:
        if name not in cls._registry:
            raise ValueError(
                f"Unknown rollout mode: {name}. Available: {list(cls._registry.keys())}"
            )
        return cls._registry[name]()


def get_rollout_replica_class(rollout: str) -> type[RolloutReplica]:
    return RolloutReplicaRegistry.get(rollout)
