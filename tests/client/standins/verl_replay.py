"""verl on Cortex through the fork-era build, replayed: a driver, then a separate worker
process, as verl runs them.

    python verl_replay.py OUT_DIR remote_backend.cortex.base_url=... [more overrides]

Both processes import verl first (the stand-in bootstrap loads the plugins named in
VERL_USE_EXTERNAL_MODULES, here `arctic_rl.integrations.verl.register`). The driver
composes the config as Hydra would for `remote_backend=cortex` (the group file, flat,
plus the overrides), resolves `trainer.remote_backend` through verl's registry and passes
the reconnect handle to the worker. The worker re-attaches twice, as verl's generic
forwarder worker and as a rollout replica (both through the registry), makes the calls
that worker makes (from inside its event loop, `compute_log_prob` and `update_actor`
without `await`), and checks `make_njt`'s slicing of the first answer against the
log-probs route.
"""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

PROMPTS = ("Say it: ", "Again: ")
TARGET = ord("a")
PAD = 0


def compose(overrides: list[str]) -> DictConfig:
    from arctic_rl.integrations.verl import GROUP_FILE

    base = OmegaConf.create(
        {
            "actor_rollout_ref": {
                "model": {"path": "tiny-byte-lm"},
                "actor": {
                    "use_kl_loss": False,
                    "ppo_mini_batch_size": 2,
                    "ppo_epochs": 1,
                    "clip_ratio": 0.2,
                    "loss_agg_mode": "token-mean",
                    "optim": {
                        "lr": 0.03,
                        "weight_decay": 0.0,
                        "betas": [0.9, 0.999],
                        "clip_grad": 1.0,
                        "total_training_steps": 20,
                    },
                },
                "rollout": {
                    "n": 8,
                    "name": "cortex",
                    "temperature": 1.0,
                    "top_p": 1.0,
                    "top_k": -1,
                    "calculate_log_probs": False,
                    "response_length": 8,
                    "max_model_len": None,
                    "max_num_seqs": 1024,
                    "tensor_model_parallel_size": 1,
                    "data_parallel_size": 1,
                    "pipeline_model_parallel_size": 1,
                    "n_gpus_per_node": 1,
                },
            },
            "data": {"train_batch_size": 2, "max_prompt_length": 16, "max_response_length": 8},
            "trainer": {"remote_backend": "cortex", "default_local_dir": "ckpt"},
            "remote_backend": OmegaConf.load(GROUP_FILE),
        }
    )
    merged = OmegaConf.merge(base, OmegaConf.from_dotlist(overrides))
    assert isinstance(merged, DictConfig)
    return merged


def verl_batch(prompts: list[list[int]], responses: list[list[int]]) -> dict[str, Any]:
    """verl's rollout data: jagged input_ids, left-padded prompts, right-padded responses."""
    width_p, width_r = max(map(len, prompts)), max(1, max(map(len, responses)))
    rows = len(prompts)
    left = torch.full((rows, width_p), PAD, dtype=torch.long)
    right = torch.full((rows, width_r), PAD, dtype=torch.long)
    attention = torch.zeros(rows, width_p + width_r, dtype=torch.long)
    response_mask = torch.zeros(rows, width_r, dtype=torch.long)
    for i, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        left[i, width_p - len(p) :] = torch.tensor(p)
        right[i, : len(r)] = torch.tensor(r, dtype=torch.long)
        attention[i, width_p - len(p) : width_p + len(r)] = 1
        response_mask[i, : len(r)] = 1
    jagged = torch.nested.nested_tensor(
        [torch.tensor(p + r, dtype=torch.long) for p, r in zip(prompts, responses, strict=True)],
        layout=torch.jagged,
    )
    return {
        "input_ids": jagged,
        "prompts": left,
        "responses": right,
        "response_mask": response_mask,
        "attention_mask": attention,
        "temperature": 1.0,
    }


def response_part(njt: torch.Tensor, data: dict[str, Any]) -> torch.Tensor:
    """verl's `no_padding_2_padding`: per jagged row, the R_i values that score the response
    tokens (one left of them, the answer being shifted), right-padded to [B, R]."""
    width_r = data["responses"].shape[1]
    out = torch.zeros(len(data["response_mask"]), width_r)
    for i, (row, r_len) in enumerate(zip(njt.unbind(), data["response_mask"].sum(1), strict=True)):
        n = int(r_len)
        out[i, :n] = row[len(row) - n - 1 : len(row) - 1]
    return out


async def scored_alone(worker: Any, prompts: list, completions: list) -> list[torch.Tensor]:
    """What the service scores for each completion: the log-probs route where the service
    serves it; against today's (no such route) a forward of each row alone, unpadded."""
    client = worker._client
    if client.client.aio.service_kind == "proposed":
        return (await client.log_probs(prompts, completions, top_k=0))["logprobs"]
    scored = []
    for prompt, completion in zip(prompts, completions, strict=True):
        ids = torch.tensor([prompt + completion])
        batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
        answer = (await client.fwd_no_grad({"batch": batch}))["batch"]["logprobs"][0]
        scored.append(answer[len(prompt) - 1 : ids.shape[1] - 1])
    return scored


async def njt_check(worker: Any, data: dict[str, Any], answer: torch.Tensor) -> dict[str, Any]:
    """make_njt on the answer: each row from its first token, the row's length long; its
    values predicting the response tokens equal what the service scores for them."""
    from verl.remote_backend.worker_utils import make_njt

    njt = make_njt(data, answer)
    rows = njt.unbind()
    starts = data["attention_mask"].argmax(1)
    exact = all(
        torch.equal(row, answer[b, int(starts[b]) : int(starts[b]) + len(row)])
        for b, row in enumerate(rows)
    )
    prompt_lens = data["attention_mask"][:, : data["prompts"].shape[1]].sum(1).tolist()
    prompts, completions, sliced = [], [], []
    for b, (row, p_len) in enumerate(zip(rows, prompt_lens, strict=True)):
        tokens = data["input_ids"].unbind()[b].tolist()
        prompts.append(tokens[:p_len])
        completions.append(tokens[p_len:])
        sliced.append(row[p_len - 1 : len(tokens) - 1])
    scored = await scored_alone(worker, prompts, completions)
    pairs = zip(sliced, scored, strict=True)
    gaps = [float((s - torch.as_tensor(r)).abs().max()) for s, r in pairs]
    return {"exact": exact, "max_gap_to_route": max(gaps), "rows": len(rows)}


async def train(cfg: DictConfig, handle: dict[str, Any], iterations: int) -> dict[str, Any]:
    import verl  # noqa: F401  (the bootstrap loads the plugins first, as in verl)
    from verl.remote_backend.base import RemoteBackendRegistry
    from verl.remote_backend.worker_utils import make_njt

    backend_cls = RemoteBackendRegistry.get(cfg.trainer.remote_backend)
    worker = backend_cls.from_config(cfg, handle=handle)
    replica = backend_cls.from_config(cfg, handle=handle)
    n = cfg.actor_rollout_ref.rollout.n
    report: dict[str, Any] = {"rewards": [], "metrics": []}
    for step in range(iterations):
        prompts = [list(p.encode()) for p in PROMPTS for _ in range(n)]
        sampling = {"max_tokens": cfg.data.max_response_length, "temperature": 1.0}
        outputs = [(await replica.generate(p, sampling))[0] for p in prompts]
        responses = [list(o["token_ids"]) for o in outputs]
        rewards = torch.tensor(
            [sum(t == TARGET for t in r) / sampling["max_tokens"] for r in responses]
        )
        data = verl_batch(prompts, responses)
        actor = worker.compute_log_prob(
            data, ref=False, calculate_entropy=True, rollout_n=n, temperature=1.0, pad_token_id=PAD
        )
        log_probs = make_njt(data, actor["model_output"]["log_probs"])
        entropy = make_njt(data, actor["model_output"]["entropy"])
        use_kl_loss = bool(cfg.actor_rollout_ref.actor.use_kl_loss)
        if use_kl_loss:  # verl computes the reference only when something reads it
            ref = worker.compute_log_prob(
                data, ref=True, calculate_entropy=False, rollout_n=n, temperature=1.0,
                pad_token_id=PAD,
            )  # fmt: skip
            ref_lp = response_part(make_njt(data, ref["model_output"]["log_probs"]), data)
        if step == 0:
            report["njt"] = await njt_check(worker, data, actor["model_output"]["log_probs"])
            report["entropy_rows"] = len(entropy.unbind())
            report["ref_keys"] = sorted(ref["model_output"]) if use_kl_loss else []
        # verl's actor/entropy: the response tokens' mean entropy, reduced with np.mean.
        report.setdefault("entropy", []).append(
            float(np.mean(response_part(entropy, data)[data["response_mask"].bool()].numpy()))
        )
        groups = rewards.view(-1, n)
        adv = (groups - groups.mean(1, keepdim=True)) / (groups.std(1, keepdim=True) + 1e-6)
        data["advantages"] = adv.view(-1, 1) * data["response_mask"].float()
        data["old_log_probs"] = response_part(log_probs, data)
        if use_kl_loss:
            data["ref_log_prob"] = ref_lp
        data["rollout_is_weights"] = torch.ones_like(data["advantages"])
        actor_config = {
            "clip_ratio": 0.2,
            "use_kl_loss": use_kl_loss,
            "kl_loss_coef": 0.001,
            "loss_agg_mode": "token-mean",
        }
        result = worker.update_actor(
            data, actor_config=actor_config, pad_token_id=PAD, rollout_n=n, temperature=1.0
        )
        report["metrics"].append(result["metrics"])
        await worker.update_weights()
        report["rewards"].append(float(rewards.mean()))
    worker.save_checkpoint()
    worker.destroy()  # the generic worker's destroy: no await
    await replica.destroy()
    return report


def driver(out: Path, overrides: list[str]) -> None:
    import verl  # noqa: F401
    from verl.remote_backend.base import RemoteBackendRegistry

    cfg = compose(overrides)
    backend = RemoteBackendRegistry.get(cfg.trainer.remote_backend).from_config(cfg)
    handoff = out / "handle.pickle"
    handoff.write_bytes(pickle.dumps((OmegaConf.to_container(cfg), backend.reconnect_handle())))
    subprocess.run([sys.executable, __file__, "--worker", str(out)], check=True)
    backend.destroy()  # the fork-era trainer's destroy: no await


def worker(out: Path) -> None:
    plain, handle = pickle.loads((out / "handle.pickle").read_bytes())
    iterations = int(os.environ.get("ARCTIC_REPLAY_ITERATIONS", "16"))
    report = asyncio.run(train(OmegaConf.create(plain), handle, iterations))
    (out / "report.json").write_text(json.dumps(report))


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker(Path(sys.argv[2]))
    else:
        driver(Path(sys.argv[1]), sys.argv[2:])
