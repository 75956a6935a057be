"""verl's save and resume on Cortex, replayed: `verl_replay.py`'s driver and worker, with
the checkpointing of verl's `RayPPOTrainer.fit` around the worker's steps.

    python verl_resume_replay.py OUT_DIR remote_backend.cortex.base_url=... [overrides]

The worker resumes as verl does with `trainer.resume_mode=auto`: when
`default_local_dir/latest_checkpointed_iteration.txt` names a step it loads
`global_step_N/actor` and trains on from N + 1. Every `SAVE_FREQ` steps it saves the
actor into `global_step_N/actor` (the client's `save_checkpoint(folder, global_step=N)`,
the call this package's verl worker makes), writes the latest file, and keeps the newest
`ARCTIC_REPLAY_KEEP` folders, deleting the service checkpoint of each folder it removes (verl's
`max_actor_ckpt_to_keep`). Each step's metrics (timing aside), rewards and sampled
tokens go to `metrics.jsonl`. With `ARCTIC_REPLAY_HOLD_AFTER_STEP=N` the worker stops
after its save at step N until it is killed.
"""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import torch
from omegaconf import DictConfig, OmegaConf
from verl_replay import PAD, PROMPTS, TARGET, compose, response_part, verl_batch

SAVE_FREQ = 2
KEEP = int(os.environ.get("ARCTIC_REPLAY_KEEP", "2"))
LATEST = "latest_checkpointed_iteration.txt"


def untimed(answer: dict[str, Any]) -> dict[str, Any]:
    return {
        k: untimed(v) if isinstance(v, dict) else v
        for k, v in answer.items()
        if k != "timing" and not k.startswith("timing/")
    }


async def step(worker: Any, replica: Any, cfg: DictConfig) -> dict[str, Any]:
    """One of verl's PPO steps on the remote backend (the replay's, without its checks)."""
    from verl.remote_backend.worker_utils import make_njt

    n = cfg.actor_rollout_ref.rollout.n
    prompts = [list(p.encode()) for p in PROMPTS for _ in range(n)]
    sampling = {"max_tokens": cfg.data.max_response_length, "temperature": 1.0}
    outputs = [(await replica.generate(p, sampling))[0] for p in prompts]
    responses = [list(o["token_ids"]) for o in outputs]
    rewards = torch.tensor(
        [sum(t == TARGET for t in r) / sampling["max_tokens"] for r in responses]
    )
    data = verl_batch(prompts, responses)
    common = {"rollout_n": n, "temperature": 1.0, "pad_token_id": PAD}
    actor = await worker.compute_log_prob(data, ref=False, calculate_entropy=True, **common)
    ref = await worker.compute_log_prob(data, ref=True, calculate_entropy=False, **common)
    groups = rewards.view(-1, n)
    adv = (groups - groups.mean(1, keepdim=True)) / (groups.std(1, keepdim=True) + 1e-6)
    data["advantages"] = adv.view(-1, 1) * data["response_mask"].float()
    data["old_log_probs"] = response_part(make_njt(data, actor["model_output"]["log_probs"]), data)
    data["ref_log_prob"] = response_part(make_njt(data, ref["model_output"]["log_probs"]), data)
    data["rollout_is_weights"] = torch.ones_like(data["advantages"])
    actor_config = {"clip_ratio": 0.2, "use_kl_loss": True, "loss_agg_mode": "token-mean"}
    result = await worker.update_actor(data, actor_config=actor_config, **common)
    await worker.update_weights()
    return {"reward": float(rewards.mean()), "responses": responses, **untimed(result)}


async def fit(cfg: DictConfig, handle: dict[str, Any], steps: int, out: Path) -> None:
    import verl  # noqa: F401  (the bootstrap loads the plugin)
    from verl.remote_backend.base import RemoteBackendRegistry

    backend_cls = RemoteBackendRegistry.get(cfg.trainer.remote_backend)
    worker = backend_cls.from_config(cfg, handle=handle)
    replica = backend_cls.from_config(cfg, handle=handle)
    client = worker._client  # the legacy client under verl's worker
    root = Path(cfg.trainer.default_local_dir)
    done = int((root / LATEST).read_text()) if (root / LATEST).exists() else 0
    if done:
        await client.load_checkpoint(str(root / f"global_step_{done}" / "actor"))
    for global_step in range(done + 1, steps + 1):
        metrics = await step(worker, replica, cfg)
        with open(out / "metrics.jsonl", "a", encoding="utf-8") as log:
            log.write(json.dumps({"global_step": global_step, **metrics}) + "\n")
        if global_step % SAVE_FREQ == 0 or global_step == steps:
            folder = root / f"global_step_{global_step}" / "actor"
            await client.save_checkpoint(str(folder), global_step=global_step)
            (root / LATEST).write_text(str(global_step))
            kept = sorted(root.glob("global_step_*"), key=lambda p: int(p.name.split("_")[-1]))
            for old in kept[:-KEEP]:
                await client.delete_checkpoint(str(old / "actor"))
                shutil.rmtree(old)
            if os.environ.get("ARCTIC_REPLAY_HOLD_AFTER_STEP") == str(global_step):
                (out / "held").write_text(str(global_step))
                await asyncio.Event().wait()  # killed here
    await worker.destroy()
    await replica.destroy()


def driver(out: Path, overrides: list[str]) -> None:
    import verl  # noqa: F401
    from verl.remote_backend.base import RemoteBackendRegistry

    cfg = compose(overrides)
    backend = RemoteBackendRegistry.get(cfg.trainer.remote_backend).from_config(cfg)
    handoff = out / "handle.pickle"
    handoff.write_bytes(pickle.dumps((OmegaConf.to_container(cfg), backend.reconnect_handle())))
    subprocess.run([sys.executable, __file__, "--worker", str(out)], check=True)
    asyncio.run(backend.destroy())


def worker(out: Path) -> None:
    plain, handle = pickle.loads((out / "handle.pickle").read_bytes())
    steps = int(os.environ.get("ARCTIC_REPLAY_ITERATIONS", "6"))
    asyncio.run(fit(OmegaConf.create(plain), handle, steps, out))


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker(Path(sys.argv[2]))
    else:
        driver(Path(sys.argv[1]), sys.argv[2:])
