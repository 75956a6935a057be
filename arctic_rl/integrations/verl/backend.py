"""The verl remote backend `cortex`: verl's RemoteBackend, served by this package's client.

verl's registry imports this module for `trainer.remote_backend=cortex` (the plugin
`register` names it). On the driver `from_config(cfg)` creates the Cortex job from the
composed config (`_job.job_config`); in the forwarder worker and any rollout replica
`from_config(cfg, handle=...)` attaches to that job from the reconnect config, which
carries every Cortex setting but the token.

The compute calls take verl's TensorDict (see `_batches` for the shapes) and answer in
the shapes verl's forwarder workers read: `compute_log_prob` gives `{model_output:
{log_probs, entropy?}, metrics}` with dense `[B, P + R]` answers, `update_actor` gives
`{loss, metrics, global_token_num}` after one `fwd_bwd` + `step` per PPO mini-batch and
epoch, as verl's own actor updates. Checkpoints go through the client's resume API: the
identity of each Cortex checkpoint sits in the folder verl chose.

verl's two registry shapes drive the backend differently. The merged one (and this
package's forwarder worker) awaits every call. The fork-era generic worker calls
`compute_log_prob`, `update_actor`, `save_checkpoint` and `destroy` without `await`, and
its trainer calls `destroy` the same way; there those four run to completion and return
their value in a form that may also be awaited.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Generator, Mapping
from typing import Any, TypeVar

import numpy as np
from verl.remote_backend.base import RemoteBackend, RemoteBackendRegistry

from arctic_rl._io_loop import IOLoop
from arctic_rl._shim import create_arctic_rl_client
from arctic_rl.integrations.verl import BACKEND_NAME, registry_shape
from arctic_rl.integrations.verl._batches import dense_rows, left_padded, lengths
from arctic_rl.integrations.verl._job import job_config, optimizer_steps_per_trainer_step

__all__ = ["CortexBackend"]

T = TypeVar("T")
_LOG_PROB_POST = {"post": ["compute_entropy_and_logprobs"], "loss_fn": None}
_TRAIN_POST = {
    "post": ["apply_temperature", "compute_entropy_and_logprobs"],
    "loss_fn": "verl_grpo",
}
# Response-aligned per-token inputs of an update, sent token-aligned at full width.
_PER_TOKEN = ("old_log_probs", "advantages", "response_mask", "ref_log_prob")
_SAMPLING_DEFAULTS = {"temperature": 0.0, "top_p": 1.0, "top_k": 0, "max_tokens": 1024}


def _get(data: Any, key: str, default: Any = None) -> Any:
    """A field of verl's TensorDict, or `default`: indexing (unlike `get`) gives a
    non-tensor field's value, not its `NonTensorData` wrapper."""
    try:
        return data[key]
    except KeyError:
        return default


class _CortexBackend(RemoteBackend):
    """verl's RemoteBackend on a Cortex job (see the module doc)."""

    def __init__(self, config: Any, client: Any) -> None:
        self.config = config
        self._client: Any = client

    @classmethod
    def from_config(cls, main_config: Any, *, handle: dict[str, Any] | None = None) -> Any:
        if handle is None:
            return cls(main_config, create_arctic_rl_client(job_config(main_config)))
        return cls(main_config, create_arctic_rl_client(handle["rl_client_reconnect_config"]))

    def reconnect_handle(self) -> dict[str, Any]:
        """The reconnect config; Cortex runs no on-prem server, so no server state."""
        reconnect = self._client.reconnect_config()
        return {"rl_client_reconnect_config": reconnect, "rl_server_state": None}

    def requires_single_forwarder(self) -> bool:
        """Cortex runs the whole batch: one forwarder, or every call would repeat."""
        return True

    @property
    def client(self) -> Any:
        """The legacy client this backend calls (None once destroyed)."""
        return self._client

    # -- compute ------------------------------------------------------------------------

    def _meta(self, data: Any, rollout_n: int, entropy: bool, pad: int) -> dict[str, Any]:
        _, _, width_p, width_r = lengths(data)
        return {
            "rollout_n": rollout_n,
            "max_prompt_len": width_p,
            "max_response_len": width_r,
            "temperature": _get(data, "temperature"),
            "calculate_entropy": entropy,
            "pad_token_id": pad,
        }

    async def compute_log_prob(
        self,
        data: Any,
        *,
        ref: bool,
        calculate_entropy: bool,
        rollout_n: int,
        temperature: Any = None,
        pad_token_id: int,
    ) -> dict[str, Any]:
        batch = {
            "input_ids": dense_rows(data, "input_ids", pad_token_id),
            "attention_mask": data["attention_mask"],
            "prompts": data["prompts"],
        }
        payload = {
            "batch": batch,
            "meta": self._meta(data, rollout_n, calculate_entropy, pad_token_id),
            "processing": dict(_LOG_PROB_POST),
        }
        answer = await self._client.fwd_no_grad(payload, reference_model=ref)
        output = {"log_probs": answer["batch"]["logprobs"]}
        if calculate_entropy and "entropy" in answer["batch"]:
            output["entropy"] = answer["batch"]["entropy"]
        return {"model_output": output, "metrics": dict(answer.get("metrics", {}))}

    async def update_actor(
        self,
        data: Any,
        *,
        actor_config: Any,
        pad_token_id: int,
        rollout_n: int,
        temperature: Any = None,
    ) -> dict[str, Any]:
        input_ids = dense_rows(data, "input_ids", pad_token_id)
        width = input_ids.shape[1]
        batch = {"input_ids": input_ids, "attention_mask": data["attention_mask"]}
        for name in _PER_TOKEN:
            value = _get(data, name)
            if value is not None and (name != "ref_log_prob" or _flag(actor_config, "use_kl_loss")):
                batch[name] = left_padded(value, width)
        batch["loss_mask"] = batch["response_mask"]
        meta = self._meta(data, rollout_n, _flag(actor_config, "calculate_entropy"), pad_token_id)
        meta["actor_config"] = _plain_fields(actor_config)
        meta["policy_loss_config"] = _plain_fields(getattr(actor_config, "policy_loss", None))
        mini_batch = int(self.config.actor_rollout_ref.actor.ppo_mini_batch_size)
        meta["global_batch_size"] = mini_batch * rollout_n
        weights = _get(data, "rollout_is_weights")
        chunks = optimizer_steps_per_trainer_step(self.config) // int(
            self.config.actor_rollout_ref.actor.ppo_epochs
        )
        rows = input_ids.shape[0] // chunks
        if rows * chunks != input_ids.shape[0]:
            raise ValueError(f"{input_ids.shape[0]} rows do not split into {chunks} mini-batches")
        losses: list[float] = []
        gathered: dict[str, list[Any]] = {}
        for _epoch in range(int(self.config.actor_rollout_ref.actor.ppo_epochs)):
            for lo in range(0, input_ids.shape[0], rows):
                part = {k: v[lo : lo + rows] for k, v in batch.items()}
                part_meta = dict(meta, batch_num_tokens=part["response_mask"].sum())
                part_meta["rollout_is_weights"] = (
                    None if weights is None else weights[lo : lo + rows]
                )
                metrics = await self._train_step({"batch": part, "meta": part_meta})
                losses.append(metrics.pop("loss"))
                for key, value in metrics.items():
                    gathered.setdefault(key, []).append(value)
        last_lr = gathered.pop("last_lr", None)
        reduced: dict[str, Any] = {k: float(np.mean(v)) for k, v in gathered.items()}
        if last_lr is not None:
            reduced["lr"] = last_lr[-1]
        tokens = [int(n) for n in data["input_ids"].offsets().diff().tolist()]
        return {"loss": float(np.mean(losses)), "metrics": reduced, "global_token_num": tokens}

    async def _train_step(self, payload: dict[str, Any]) -> dict[str, Any]:
        """One optimizer step: forward-backward on a mini-batch, then step; their metrics."""
        payload["processing"] = dict(_TRAIN_POST)
        forward = await self._client.fwd_bwd(payload)
        stepped = await self._client.step()
        return {**stepped["metrics"], **forward["metrics"]}

    async def generate(
        self, prompt_ids: list[int], sampling_params: Mapping[str, Any], routing_key: Any = None
    ) -> list[Any]:
        """What a rollout replica asks for one prompt (token ids)."""
        params = {**_SAMPLING_DEFAULTS, **dict(sampling_params)}
        return await self._client.generate(prompts=[list(prompt_ids)], sampling_params=params)  # type: ignore[no-any-return]

    # -- weights, checkpoints, lifecycle ---------------------------------------------------

    async def update_weights(self) -> dict[str, Any]:
        return await self._client.sync_weights()  # type: ignore[no-any-return]

    async def save_checkpoint(
        self, folder: str | None = None, *, global_step: int | None = None
    ) -> dict[str, Any]:
        """A resumable Cortex checkpoint; with a folder, its identity is written there."""
        return await self._client.save_checkpoint(folder, global_step=global_step)  # type: ignore[no-any-return]

    async def load_checkpoint(self, folder: str) -> dict[str, Any]:
        """Restore the Cortex checkpoint whose identity `folder` holds."""
        return await self._client.load_checkpoint(folder)  # type: ignore[no-any-return]

    async def delete_checkpoint(self, folder: str) -> None:
        await self._client.delete_checkpoint(folder)

    async def destroy(self) -> None:
        """Idempotent: verl may call it on several paths."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.shutdown()


def _flag(config: Any, name: str) -> bool:
    value = config.get(name) if isinstance(config, Mapping) else getattr(config, name, False)
    return bool(value)


def _plain_fields(obj: Any) -> dict[str, Any]:
    """An actor or loss config's scalar fields, for the request's metadata."""
    if obj is None:
        return {}
    fields = obj if isinstance(obj, Mapping) else vars(obj)
    return {k: v for k, v in fields.items() if isinstance(v, str | int | float | bool | type(None))}


class _Answer(dict[str, Any]):
    """A finished answer (a dict) that may also be awaited."""

    def __await__(self) -> Generator[Any, None, dict[str, Any]]:
        return dict(self)
        yield  # pragma: no cover  (makes this a generator)


class _Settled(Coroutine[Any, Any, T]):
    """A finished result as a coroutine: `await` it, hand it to `asyncio.run`, or drop it
    (nothing is left to run, so nothing warns)."""

    def __init__(self, value: T) -> None:
        self.value = value

    def send(self, _sent: Any) -> Any:
        raise StopIteration(self.value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        raise typ if val is None else val

    def close(self) -> None:
        return None

    def __await__(self) -> Generator[Any, None, T]:
        return self.value
        yield  # pragma: no cover  (makes this a generator)


def _settled(name: str) -> Callable[..., Any]:
    def call(self: _ForkEraCalls, *args: Any, **kwargs: Any) -> Any:
        coro = getattr(_CortexBackend, name)(self, *args, **kwargs)
        value = self._settling.run(coro)
        return _Answer(value) if isinstance(value, dict) else _Settled(value)

    call.__name__ = name
    call.__doc__ = f"The backend's async {name}, run to completion (awaiting is optional)."
    return call


class _ForkEraCalls:
    """The calls the fork-era worker and trainer make without `await`, each run to its end
    on the backend's settling loop, which may be called from inside a running loop: one
    loop (and thread) per backend, started on its first call, not one per call."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._settling = IOLoop("arctic-rl-settle")

    compute_log_prob = _settled("compute_log_prob")
    update_actor = _settled("update_actor")
    save_checkpoint = _settled("save_checkpoint")
    destroy = _settled("destroy")


_BASES: tuple[type, ...] = (
    (_ForkEraCalls, _CortexBackend)
    if registry_shape(RemoteBackendRegistry) == "fork"
    else (_CortexBackend,)
)


@RemoteBackendRegistry.register(BACKEND_NAME)
class CortexBackend(*_BASES):  # type: ignore[misc]
    """verl's remote backend on Cortex."""
