"""The rollout replica `cortex`: verl's agent loop samples from the Cortex sampling sub-job.

`actor_rollout_ref.rollout.name=cortex` makes verl build this replica (the plugin
`register` names it in verl's `RolloutReplicaRegistry`). Both remote-backend trainers
hand every replica `main_config` and `backend_handle` (release/v0.7.1 through the agent
loop manager's keyword arguments, the V1 trainer through `replica_init_kwargs`), so its
server attaches to the driver's Cortex job instead of creating a second one.

The replica runs one server actor, on no GPU. The agent loop calls the server's
token-in-token-out `generate`; the server forwards it to the selected backend's
`generate` and answers verl's `TokenOutput`, stamped with the weights' step that
`set_global_steps` (the V1 trainer's weight-sync fan-out) last gave. The engine
controls verl fans out to servers (sleep, wake_up, the KV cache, abort and resume,
profiling) reach the client's colocation calls where it has one: Cortex owns its engine
and its memory, so they change nothing there and must not fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ray
from verl.workers.rollout.replica import RolloutReplica, TokenOutput

from arctic_rl._sampling_lowering import sampled_logprobs
from arctic_rl.integrations.verl import attach_backend

# The backend module registers `cortex` in this (Ray actor) process too.
from arctic_rl.integrations.verl import backend as _backend  # noqa: F401

__all__ = ["CortexReplica", "CortexServer"]

# vLLM's finish reasons, as verl's TokenOutput.stop_reason names them.
_STOP_REASONS = {"stop": "completed", "length": "completed", "abort": "aborted"}


def _setting(config: Any, name: str, default: Any = None) -> Any:
    """A rollout setting from verl's RolloutConfig (a dataclass) or a DictConfig."""
    value = getattr(config, name, default)
    return default if value is None else value


class CortexServer:
    """One replica's server, run as a Ray async actor: sampling goes to Cortex."""

    def __init__(self, config: Any, main_config: Any, backend_handle: dict[str, Any]) -> None:
        self.config = config
        self.backend: Any = attach_backend(main_config, backend_handle)
        self.global_steps: int | None = None

    def sampling_params(self, prompt_len: int, asked: Mapping[str, Any]) -> dict[str, Any]:
        """verl's agent-loop parameters in the service's terms: `logprobs` (a flag in verl)
        becomes 0 (the sampled token's log-prob), and the token budget defaults to the
        response length, within the model's context when `max_model_len` is set."""
        params = {k: v for k, v in asked.items() if v is not None}
        budget = params.pop("max_tokens", None)
        budget = params.pop("max_new_tokens", budget)
        if budget is None:
            budget = int(_setting(self.config, "response_length"))
        context = _setting(self.config, "max_model_len")
        if context is not None:
            if prompt_len > int(context):
                raise ValueError(f"prompt of {prompt_len} tokens exceeds max_model_len ({context})")
            budget = min(budget, int(context) - prompt_len)
        params["max_tokens"] = budget
        if params.pop("logprobs", False) is not False:
            params["logprobs"] = 0
        return params

    async def generate(
        self,
        prompt_ids: list[int],
        sampling_params: Mapping[str, Any],
        request_id: str,
        image_data: Any = None,
        video_data: Any = None,
        **_engine_options: Any,
    ) -> TokenOutput:
        """One completion of one prompt (token ids in, token ids out)."""
        if image_data is not None or video_data is not None:
            raise ValueError("the cortex rollout samples text only: no images or videos")
        prompt = [int(t) for t in prompt_ids]
        params = self.sampling_params(len(prompt), sampling_params)
        (answer,) = await self.backend.generate(prompt, params)
        finish = answer.get("finish_reason")
        return TokenOutput(
            token_ids=list(answer["token_ids"]),
            log_probs=sampled_logprobs(answer) if "logprobs" in params else None,
            stop_reason=_STOP_REASONS.get(finish, finish),
            extra_fields={"global_steps": self.global_steps},
        )

    async def set_global_steps(self, global_steps: int) -> None:
        """The step of the weights the sampler now holds (read back on every answer)."""
        self.global_steps = global_steps

    async def sleep(self) -> None:
        await self.backend.client.sleep_inference(level=1)

    async def wake_up(self) -> None:
        await self.backend.client.wake_inference()

    async def clear_kv_cache(self) -> None:
        await self.backend.client.reset_prefix_cache()

    async def release_kv_cache(self) -> None:
        await self.backend.client.sleep_inference(level=1)

    async def resume_kv_cache(self) -> None:
        await self.backend.client.wake_inference(tags=["kv_cache"])

    async def abort_all_requests(self) -> None:
        """Nothing to hold back: a Cortex request is answered whole or fails."""

    async def resume_generation(self) -> None:
        """Nothing was held back by `abort_all_requests`."""

    async def start_profile(self, **_options: Any) -> None:
        """Profiling the sampler is Cortex's: verl's profiler has nothing to attach to."""

    async def stop_profile(self) -> None:
        """See `start_profile`."""


class CortexReplica(RolloutReplica):  # type: ignore[misc]
    """verl's rollout replica on Cortex (see the module doc)."""

    def __init__(
        self,
        replica_rank: int,
        config: Any,
        model_config: Any,
        gpus_per_node: int = 1,
        is_reward_model: bool = False,
        **kwargs: Any,
    ) -> None:
        if "backend_handle" not in kwargs or "main_config" not in kwargs:
            raise ValueError(
                "the cortex rollout replica runs under verl's remote-backend trainer "
                "(trainer.remote_backend=cortex), which hands it main_config and backend_handle"
            )
        self.main_config = kwargs.pop("main_config")
        self.backend_handle: dict[str, Any] = kwargs.pop("backend_handle")
        super().__init__(
            replica_rank, config, model_config, gpus_per_node, is_reward_model, **kwargs
        )

    def rollout_worker_use_gpu(self) -> bool:
        return False

    async def launch_servers(self) -> None:
        server = (
            ray.remote(CortexServer)
            .options(max_concurrency=self.max_concurrency)
            .remote(
                config=self.config,
                main_config=self.main_config,
                backend_handle=self.backend_handle,
            )
        )
        self.servers = [server]
        self._server_handle = server

    async def set_global_steps(self, global_steps: int) -> None:
        """The V1 trainer's fan-out after a remote-backend weight sync."""
        for server in self.servers:
            await server.set_global_steps.remote(global_steps)
