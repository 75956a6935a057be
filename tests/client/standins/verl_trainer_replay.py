"""verl's release/v0.7.1 trainer and PR #7102's V1 trainer, replayed around the `cortex`
forwarder worker, with verl's own save and resume.

    python verl_trainer_replay.py OUT_DIR release|v1 STEPS SAVE_FREQ [overrides...]

One launch is one verl driver process: it imports verl (the bootstrap loads the plugin),
builds the backend through the registry, gets the worker class from
`RemoteBackendRegistry.get_worker` and runs it as verl's worker group does a Ray async
actor: every method on the actor's own event loop thread, a call returning at once when
its `register` says `blocking=False` (the caller then waits on it as on `ray.get`). The
trainer makes the worker calls of the chosen build with their exact signatures:
`_load_checkpoint` (resume_mode auto: the folder `latest_checkpointed_iteration.txt`
names), `update_weights(global_steps=...)` (V1 adds `mode="remote_backend"`), then per
step the rollout, the compute calls on a TensorDict, `update_weights`, and at `save_freq`
`save_checkpoint(local_path, hdfs_path, global_step, max_ckpt_to_keep=...)` before verl
writes its tracker file.

The rollout is verl's agent loop on the replica `actor_rollout_ref.rollout.name` names,
from verl's `RolloutReplicaRegistry`: built with the keyword arguments each build hands
it (`main_config`, `backend_handle`), `init_hybrid` on the worker group, put to sleep at
start as the checkpoint manager does, then per prompt the agent loop's
`server.generate.remote(...)` with its sampling parameters; the V1 weight sync fans
`set_global_steps` out to it, and the agent loop reads `global_steps` off each answer.
After the run every other control verl may fan out to a replica is called once.

`ARCTIC_REPLAY_DIE_AFTER=k` ends the process right after step k as a kill does (no
destroy, no exit handlers). The report: per-step metrics and the final log-probs of a
fixed batch (the trained weights, read through the training sub-job).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any
from uuid import uuid4

import torch
from verl_replay import PROMPTS, compose, response_part, verl_batch

TRACKER = "latest_checkpointed_iteration.txt"  # verl's checkpoint tracker file
CONTROLS = (
    "wake_up",
    "clear_kv_cache",
    "abort_all_requests",
    "resume_generation",
    "release_kv_cache",
    "resume_kv_cache",
    "start_profile",
    "stop_profile",
)


class WorkerGroup:
    """One worker as a Ray async actor: its own loop thread; dispatch from `register`."""

    def __init__(self, cls: type, **init: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self.worker = self._submit(self._construct, cls, init).result()
        self.calls: list[str] = []
        self.workers = [self]  # verl's RayWorkerGroup.workers: the actor handles

    @staticmethod
    async def _construct(cls: type, init: dict[str, Any]) -> Any:
        return cls(**init)

    def _submit(self, fn: Any, *args: Any, **kwargs: Any) -> Future:
        async def run() -> Any:
            value = fn(*args, **kwargs)
            return await value if asyncio.iscoroutine(value) else value

        return asyncio.run_coroutine_threadsafe(run(), self._loop)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.worker, name)
        dispatch = method.__func__.__verl_dispatch__  # only registered methods are callable

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            pending = self._submit(method, *args, **kwargs)
            return [pending] if not dispatch["blocking"] else pending.result()

        return call


def ray_get(refs: list[Future]) -> list[Any]:
    return [ref.result() for ref in refs]


def metric_values(output: dict[str, Any]) -> dict[str, float]:
    """verl's reading of an update's metrics (`reduce_metrics`): a Metric per key."""
    return {k: float(v.value) for k, v in output["metrics"].items()}


class Trainer:
    def __init__(self, build: str, cfg: Any, ckpt: Path) -> None:
        import verl  # noqa: F401  (the bootstrap loads the plugin)
        from verl.remote_backend.base import RemoteBackendRegistry
        from verl.workers.rollout.replica import get_rollout_replica_class

        self.build, self.cfg, self.ckpt = build, cfg, ckpt
        name = cfg.trainer.remote_backend
        self.backend = RemoteBackendRegistry.get(name).from_config(cfg)
        handle = self.backend.reconnect_handle()
        worker_cls = RemoteBackendRegistry.get_worker(name)
        self.wg = WorkerGroup(
            worker_cls,
            config=cfg.actor_rollout_ref,
            role="actor_rollout_ref",
            main_config=cfg,
            backend_handle=handle,
        )
        self.global_steps = 0
        self.weight_steps: list[list[Any]] = []
        rollout = cfg.actor_rollout_ref.rollout
        replica_cls = get_rollout_replica_class(rollout.name)
        self.replica = replica_cls(
            replica_rank=0,
            config=rollout,
            model_config=cfg.actor_rollout_ref.model,
            gpus_per_node=rollout.n_gpus_per_node,
            main_config=cfg,
            backend_handle=handle,
        )
        asyncio.run(self.replica.init_hybrid(self.wg))
        asyncio.run(self.replica.sleep())  # the checkpoint manager, once the replicas exist

    def update_weights(self) -> None:
        mode = {"mode": "remote_backend"} if self.build == "v1" else {}
        ray_get(self.wg.update_weights(global_steps=self.global_steps, **mode))
        if self.build == "v1":  # the remote-backend shortcut fans the step out to replicas
            asyncio.run(self.replica.set_global_steps(self.global_steps))

    def load_checkpoint(self) -> dict[str, Any] | None:
        tracker = self.ckpt / TRACKER
        if not tracker.is_file():
            return None
        self.global_steps = int(tracker.read_text().strip())
        actor = str(self.ckpt / f"global_step_{self.global_steps}" / "actor")
        if self.build == "v1":
            return self.wg.load_checkpoint(local_path=actor, del_local_after_load=False)
        return self.wg.load_checkpoint(actor, del_local_after_load=False)

    def save_checkpoint(self, keep: int | None) -> Any:
        folder = self.ckpt / f"global_step_{self.global_steps}"
        saved = self.wg.save_checkpoint(
            str(folder / "actor"), None, self.global_steps, max_ckpt_to_keep=keep
        )
        folder.mkdir(parents=True, exist_ok=True)
        torch.save({"step": self.global_steps}, folder / "data.pt")
        (self.ckpt / TRACKER).write_text(str(self.global_steps))
        return saved

    async def sample(self, prompt: list[int]) -> Any:
        """The agent loop's call on the replica's server (release/v0.7.1 keywords)."""
        rollout = self.cfg.actor_rollout_ref.rollout
        sampling = dict(
            temperature=rollout.temperature,
            top_p=rollout.top_p,
            top_k=rollout.top_k,
            repetition_penalty=1.0,
            logprobs=rollout.calculate_log_probs,
        )
        return await self.replica.server_handle.generate.remote(
            request_id=uuid4().hex,
            prompt_ids=prompt,
            sampling_params=sampling,
            image_data=None,
            video_data=None,
        )

    async def rollout(self) -> tuple[dict[str, Any], torch.Tensor]:
        n = self.cfg.actor_rollout_ref.rollout.n
        prompts = [list(p.encode()) for p in PROMPTS for _ in range(n)]
        # one at a time (verl's agent loop overlaps them): the resume runs compare sampling
        # bit for bit, which needs the service to see the prompts in the same order
        outputs = [await self.sample(p) for p in prompts]
        self.weight_steps.append(sorted({o.extra_fields["global_steps"] for o in outputs}, key=str))
        responses = [o.token_ids for o in outputs]
        # the share of ASCII bytes: it differs within each group, so advantages are not zero
        rewards = torch.tensor([sum(t < 128 for t in r) / max(1, len(r)) for r in responses])
        return verl_batch(prompts, responses), rewards

    async def other_controls(self) -> list[str]:
        """Every other control verl's checkpoint managers and agent loop fan out."""
        called = []
        for name in CONTROLS:
            await getattr(self.replica, name)()
            called.append(name)
        return called

    async def with_log_probs(self) -> dict[str, Any]:
        """One answer with `calculate_log_probs` on and a 3-token budget (a multi-turn
        loop's `max_tokens`)."""
        sampling = {"temperature": 1.0, "logprobs": True, "max_tokens": 3}
        out = await self.replica.server_handle.generate.remote(
            request_id=uuid4().hex, prompt_ids=list(b"probe"), sampling_params=sampling
        )
        return {"tokens": len(out.token_ids), "log_probs": out.log_probs, "stop": out.stop_reason}

    def step(self) -> dict[str, float]:
        n = self.cfg.actor_rollout_ref.rollout.n
        data, rewards = asyncio.run(self.rollout())
        old = self.wg.compute_log_prob({**data, "calculate_entropy": True, "compute_loss": False})
        ref = self.wg.compute_ref_log_prob({**data, "calculate_entropy": False})
        groups = rewards.view(-1, n)
        adv = (groups - groups.mean(1, keepdim=True)) / (groups.std(1, keepdim=True) + 1e-6)
        data["advantages"] = adv.view(-1, 1) * data["response_mask"].float()
        data["old_log_probs"] = response_part(old["log_probs"], data)
        data["ref_log_prob"] = response_part(ref["log_probs"], data)
        output = self.wg.update_actor(data)
        self.update_weights()
        return {"reward": float(rewards.mean()), **metric_values(output)}

    def probe(self) -> list[list[float]]:
        data = verl_batch([list(b"probe: "), list(b"x")], [list(b"aaab"), list(b"ba")])
        answer = self.wg.compute_log_prob({**data, "calculate_entropy": False})
        return [row.tolist() for row in answer["log_probs"].unbind()]


def main(out: Path, build: str, steps: int, save_freq: int, overrides: list[str]) -> None:
    ckpt = out / "ckpt"
    keep = int(os.environ.get("ARCTIC_REPLAY_KEEP", "0")) or None
    die_after = int(os.environ.get("ARCTIC_REPLAY_DIE_AFTER", "0"))
    cfg = compose([*overrides, f"trainer.default_local_dir={ckpt}"])
    trainer = Trainer(build, cfg, ckpt)
    trainer.wg.init_model()
    loaded = trainer.load_checkpoint()
    trainer.update_weights()
    report: dict[str, Any] = {"loaded": loaded, "start": trainer.global_steps, "steps": {}}
    trainer.global_steps += 1
    while trainer.global_steps <= steps:
        report["steps"][trainer.global_steps] = trainer.step()
        if trainer.global_steps % save_freq == 0 or trainer.global_steps == steps:
            report.setdefault("saved", []).append(trainer.save_checkpoint(keep))
        (out / "report.json").write_text(json.dumps(report))
        if trainer.global_steps == die_after:
            os._exit(0)  # a kill: nothing is destroyed, no exit handler runs
        trainer.global_steps += 1
    report["final_log_probs"] = trainer.probe()
    report["controls"] = asyncio.run(trainer.other_controls())
    report["with_log_probs"] = asyncio.run(trainer.with_log_probs())
    report["replica_calls"] = sorted(set(trainer.replica.server_handle.calls))
    report["weight_steps"] = trainer.weight_steps
    report["job_id"] = trainer.backend.client.job_id
    trainer.wg.destroy()
    report["worker_calls"] = sorted(set(trainer.wg.calls))
    asyncio.run(trainer.backend.destroy())
    (out / "report.json").write_text(json.dumps(report))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:])
