"""Roles the verl drive (verl_drive.py) plugs into REAL verl code (61ed850f, 9dfab8e5d, 6329d45bd).

Importable by Ray workers (its folder is on PYTHONPATH, which they inherit).

* HarnessTaskRunner (verl_runners.py): passed to verl's real `run_ppo(config, task_runner_class=...)` (its own
  hook "for recipe to change TaskRunner"). Its run() is verl's REAL TaskRunner.run (role
  mapping -> the remote backend's forwarder worker, validate_config, hf_tokenizer, RLHFDataset,
  RemoteBackendTrainer(...) which builds the backend through the registry), with two cuts:
  - RayPPOTrainer.init_workers runs for real up to `actor_rollout_wg.init_model()` and is
    cut where it builds the reward-loop / agent-loop rollout managers (vLLM servers, the
    published ArcticReplica);
  - RayPPOTrainer.fit is replaced by `harness_fit`: the rollout is the backend's generate()
    (what a rollout replica calls), everything else is the trainer's REAL methods
    (_load_checkpoint, _compute_old_log_prob, _compute_ref_log_prob, compute_advantage,
    _update_actor, _save_checkpoint at trainer.save_freq) over the REAL worker group.
* observed(worker_cls): the worker class verl's TaskRunner mapped (verl@61ed850f's generic
  forwarder, or on the merged verl the one the plugin registered through `register_worker`:
  the project's CortexActorRolloutRefWorker), unchanged but for one extra read-only
  method, `facts`, that V6b reads.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading

import ray

REPORT = os.environ.get("REALFW2_VERL_REPORT", "run/verl_report.jsonl")
STEPS_OUT = os.environ.get("REALFW2_VERL_STEPS_OUT", "run/verl_steps.jsonl")
# The relaunch scenario: the TaskRunner dies right after this step's save (0: never).
DIE_AFTER = int(os.environ.get("REALFW2_VERL_DIE_AFTER", "0"))
# which Cortex service the mock plays: today's live one (default) or the proposed contract
TODAY = os.environ.get("REALFW2_SERVICE", "today") != "proposed"
# step 1's PPO invariants as each service reports them (old == current policy): today's grpo
# answers an importance ratio of exactly 1 and a clip fraction of exactly 0; the proposed
# contract answers ppo_kl, pg_clipfrac_lower and kl_loss (ref == old at step 1) 0
STEP1_INVARIANTS = (
    {"importance_weight": 1.0, "clip_ratio": 0.0}
    if TODAY
    else {"ppo_kl": 0.0, "pg_clipfrac_lower": 0.0, "kl_loss": 0.0}
)


def rec(name, ok, detail=""):
    with open(REPORT, "a", encoding="utf-8") as fh:
        d = str(detail)
        fh.write(
            json.dumps(
                {
                    "name": name,
                    "ok": bool(ok),
                    "detail": d if len(d) <= 900 else d[:300] + " ... " + d[-600:],
                    "pid": os.getpid(),
                },
                default=str,
            )
            + "\n"
        )


class _LoopThread:
    def __init__(self):
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()


from verl.single_controller.base.decorator import Dispatch, register  # noqa: E402


def observed(worker_cls):
    """The real worker class plus `facts` (observation only)."""

    class Observed(worker_cls):
        @register(dispatch_mode=Dispatch.ONE_TO_ALL)
        def facts(self):
            backend = self.backend
            client = getattr(backend, "_client", None)
            return {
                "pid": os.getpid(),
                "worker": worker_cls.__name__,
                "backend": f"{type(backend).__module__}.{type(backend).__name__}",
                "mro": [f"{c.__module__}.{c.__name__}" for c in type(backend).__mro__[1:4]],
                "client": type(client).__name__,
                "job_id": getattr(client, "job_id", None),
                "pat_present": bool(os.environ.get("ARCTIC_CORTEX_PAT")),
                "pad_token_id": self.pad_token_id,
                "rollout_n": getattr(self, "rollout_n", None)
                or getattr(getattr(self, "actor_config", None), "rollout_n", None),
            }

    Observed.__name__ = Observed.__qualname__ = f"Observed{worker_cls.__name__}"
    return Observed


class _CutHere(Exception):
    pass


def _cut(*_a, **_k):
    raise _CutHere("reward loop / agent loop rollout managers are not built by the harness")


def harness_init_workers(trainer):
    import verl.experimental.reward_loop as reward_loop
    from verl.trainer.ppo.ray_trainer import RayPPOTrainer
    from verl.trainer.ppo.utils import Role

    role = (
        Role.ActorRolloutRef
        if Role.ActorRolloutRef in trainer.role_worker_mapping
        else Role.ActorRollout
    )
    real_cls = trainer.role_worker_mapping[role]
    name = getattr(real_cls, "__ray_actor_class__", real_cls).__name__
    want = os.environ.get("REALFW2_VERL_WORKER", "RemoteBackendActorRolloutRefWorker")
    rec(
        f"V6a TaskRunner mapped the actor role to the remote backend's forwarder worker ({want})",
        name == want,
        f"{role}: {name}; wg_kwargs keys {sorted(trainer.wg_kwargs)}",
    )
    trainer.role_worker_mapping[role] = ray.remote(
        observed(getattr(real_cls, "__ray_actor_class__", real_cls))
    )
    real_rlm = reward_loop.RewardLoopManager
    reward_loop.RewardLoopManager = _cut
    try:
        RayPPOTrainer.init_workers(trainer)  # REAL up to actor_rollout_wg.init_model()
    except _CutHere:
        pass
    finally:
        reward_loop.RewardLoopManager = real_rlm
    facts = trainer.actor_rollout_wg.facts()[0]
    driver_job = trainer.backend._client.job_id
    rec(
        "V6b worker group (real RayWorkerGroup, fresh Ray actor) re-attached via from_config(handle=reconnect_handle())",
        facts["job_id"] == driver_job
        and facts["pid"] != os.getpid()
        and facts["client"] == "LegacyCortexClient"
        and facts["pat_present"],
        json.dumps(facts),
    )


def _ascii_share(ids):
    data = bytes(i for i in ids if i < 256)
    return sum(b < 128 for b in data) / max(1, len(data))


def _rollout(trainer, backend, loop, step, batch_dict):
    """Stands in for verl's agent loop and a rollout replica: the batch of step `step`."""
    import numpy as np
    import torch
    from verl import DataProto
    from verl.trainer.ppo.ray_trainer import compute_response_mask

    try:  # release/v0.7.1
        from verl.utils.chat_template import apply_chat_template
    except ImportError:  # PR #7102 moved it, same signature
        from verl.utils.tokenizer.chat_template import apply_chat_template
    from verl.utils.model import compute_position_id_with_mask

    cfg = trainer.config
    n = cfg.actor_rollout_ref.rollout.n
    R, P = cfg.data.max_response_length, cfg.data.max_prompt_length
    pad = trainer.tokenizer.pad_token_id
    batch = DataProto.from_single_dict(batch_dict)
    batch.non_tensor_batch["uid"] = np.array(
        [f"s{step}-{i}" for i in range(len(batch))], dtype=object
    )
    batch = batch.repeat(repeat_times=n, interleave=True)
    # --- stands in for verl's agent loop + the ArcticReplica rollout server ---------------
    # SingleTurnAgentLoop: real chat template -> prompt ids; the replica calls the backend's
    # generate(); AgentLoopWorker pads prompts left to P and responses right to R.
    prompts = torch.full((len(batch), P), pad, dtype=torch.long)
    prompt_mask = torch.zeros(len(batch), P, dtype=torch.long)
    responses, rewards = [], []
    for i, messages in enumerate(batch.non_tensor_batch["raw_prompt"]):
        ids = apply_chat_template(
            trainer.tokenizer, list(messages), add_generation_prompt=True, tokenize=True
        )
        ids = list(ids)[-P:]
        prompts[i, P - len(ids) :] = torch.tensor(ids, dtype=torch.long)
        prompt_mask[i, P - len(ids) :] = 1
        out = loop.run(backend.generate(ids, {"max_tokens": R, "temperature": 1.0}))
        responses.append(list(out[0]["token_ids"])[:R])
    resp = torch.full((len(responses), R), pad, dtype=torch.long)
    resp_mask = torch.zeros(len(responses), R, dtype=torch.long)
    scores = torch.zeros(len(responses), R)
    for i, r in enumerate(responses):
        resp[i, : len(r)] = torch.tensor(r, dtype=torch.long)
        resp_mask[i, : len(r)] = 1
        if r:
            scores[i, len(r) - 1] = _ascii_share(r)
        rewards.append(_ascii_share(r))
    attention = torch.cat([prompt_mask, resp_mask], dim=1)
    batch.batch["prompts"] = prompts
    batch.batch["responses"] = resp
    batch.batch["input_ids"] = torch.cat([prompts, resp], dim=1)
    batch.batch["attention_mask"] = attention
    batch.batch["position_ids"] = compute_position_id_with_mask(attention)
    batch.meta_info["temperature"] = cfg.actor_rollout_ref.rollout.temperature
    batch.batch["response_mask"] = compute_response_mask(batch)
    rec(
        f"V7 step{step} generate via the backend (what a rollout replica calls)",
        all(responses),
        f"{len(responses)} rollouts, lengths {[len(r) for r in responses]}, rewards {[round(x, 3) for x in rewards]}",
    )

    return batch, prompts, prompt_mask, resp, resp_mask, scores, rewards


def _save_at(trainer, step):
    """RayPPOTrainer.fit's save: at save_freq and the last step, the REAL _save_checkpoint;
    the relaunch scenario's run dies right after the save of step DIE_AFTER."""
    cfg = trainer.config
    last = step >= trainer.total_training_steps
    if cfg.trainer.save_freq > 0 and (last or step % cfg.trainer.save_freq == 0):
        trainer._save_checkpoint()  # REAL: worker save_checkpoint(local_path, ...) + tracker
        folder = os.path.join(cfg.trainer.default_local_dir, f"global_step_{step}", "actor")
        rec(
            f"V12 step{step} real _save_checkpoint through the worker group",
            True,
            f"{folder}: {sorted(os.listdir(folder)) if os.path.isdir(folder) else 'no folder'}",
        )
        if step == DIE_AFTER:
            os._exit(1)  # the run dies here, as a preempted driver does


async def _scored(client, prompts, completions):
    """Each completion's log-probs scored apart from verl's converters: the proposed
    contract's log_probs route, or (today's service has none) today's forward operation on
    the rows left-aligned, whose column k scores token k + 1."""
    import torch

    if not TODAY:
        return (await client.log_probs(prompts, completions, top_k=0))["logprobs"]
    rows = [list(p) + list(c) for p, c in zip(prompts, completions, strict=True)]
    width = max(map(len, rows))
    ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
    body = {
        "args": [],
        "kwargs": {"input_ids": ids, "attention_mask": mask},
        "processing": {"post": ["compute_logprobs"], "loss_fn": None},
    }
    answer = await client._aio.forward(body)
    lp = torch.as_tensor(answer["model_outputs"]["logprobs"])
    return [
        lp[i, len(p) - 1 : len(p) - 1 + len(c)].tolist()
        for i, (p, c) in enumerate(zip(prompts, completions, strict=True))
    ]


def harness_fit(trainer, v1=False):
    """RayPPOTrainer.fit's remote-backend loop with its REAL methods (see the module doc).
    v1: the V1 trainer, whose real init() already ran _load_checkpoint; its weights go out
    through its real CheckpointEngineManager (`update_weights(global_steps=, mode=)` on the
    worker), and its compute calls are made with verl's own TensorDict converters of the
    same build (RayPPOTrainer's methods, the TransferQueue path being cut)."""
    import torch
    from verl.trainer.ppo.ray_trainer import compute_advantage
    from verl.trainer.ppo.utils import need_reference_policy

    cfg = trainer.config
    n = cfg.actor_rollout_ref.rollout.n
    # the driver-side CortexBackend the remote-backend trainer built
    backend = trainer._backend if v1 else trainer.backend
    if v1:
        import functools

        from verl.trainer.ppo.ray_trainer import RayPPOTrainer

        for name in ("_compute_old_log_prob", "_compute_ref_log_prob", "_update_actor"):
            setattr(trainer, name, functools.partial(getattr(RayPPOTrainer, name), trainer))
    loop = _LoopThread()

    # RayPPOTrainer.fit's own start: step 0, the REAL _load_checkpoint (resume_mode=auto: the
    # folder verl's tracker names -> worker load_checkpoint, dataloader state), weights to
    # the rollout, then steps global_steps + 1 .. total_training_steps.
    if not v1:
        trainer.global_steps = 0
        trainer._load_checkpoint()
    rec(
        f"V20 fit start: real _load_checkpoint (resume_mode={cfg.trainer.resume_mode}) -> global_steps {trainer.global_steps}",
        True,
        f"default_local_dir {cfg.trainer.default_local_dir}",
    )

    def update_weights():
        if v1:  # REAL: ray.get(actor_wg.update_weights(global_steps=..., mode="remote_backend"))
            trainer.checkpoint_manager.update_weights(trainer.global_steps)
        else:  # REAL dispatch (blocking=False), with the step as the manager passes it
            ray.get(trainer.actor_rollout_wg.update_weights(global_steps=trainer.global_steps))

    update_weights()
    trainer.global_steps += 1
    it = iter(trainer.train_dataloader)
    while trainer.global_steps <= trainer.total_training_steps:
        step = trainer.global_steps
        try:
            batch_dict = next(it)  # REAL StatefulDataLoader over RLHFDataset (raw_prompt rows)
        except StopIteration:  # next epoch, as fit() does
            it = iter(trainer.train_dataloader)
            batch_dict = next(it)
        batch, prompts, prompt_mask, resp, resp_mask, scores, rewards = _rollout(
            trainer, backend, loop, step, batch_dict
        )

        old = trainer._compute_old_log_prob(batch)  # REAL: to_tensordict, left_right_2_no_padding,
        old, mfu = old if isinstance(old, tuple) else (old, None)
        batch = batch.union(old)  # wg.compute_log_prob -> make_njt, no_padding_2_padding
        lp = batch.batch["old_log_probs"]
        # independent check: the service scores the same response tokens apart from verl
        rows_p, rows_c = [], []
        for i in range(len(batch)):
            rows_p.append(prompts[i][prompt_mask[i].bool()].tolist())
            rows_c.append(resp[i][resp_mask[i].bool()].tolist())
        scored = loop.run(_scored(backend._client, rows_p, rows_c))
        gaps = [
            float((lp[i, : len(c)] - torch.as_tensor(ref_row, dtype=lp.dtype)).abs().max())
            for i, (c, ref_row) in enumerate(zip(rows_c, scored, strict=True))
        ]
        rec(
            f"V8 step{step} old log-probs: real make_njt + no_padding_2_padding slice the backend's answer right",
            max(gaps) < 1e-4,
            f"old_log_probs {tuple(lp.shape)}, max |gap| to the independent scoring {max(gaps):.2e}, "
            f"entropys {tuple(batch.batch['entropys'].shape)}, mfu {mfu}",
        )
        # as fit() does: ref log-probs only when the config needs a reference policy (a KL
        # loss or a KL in the reward; today's recipes have neither)
        if need_reference_policy(cfg):
            ref = trainer._compute_ref_log_prob(batch)  # REAL (reference_model=True)
            batch = batch.union(ref)
            rec(
                f"V9 step{step} ref log-probs (fwd_no_grad reference_model=True)",
                "ref_log_prob" in batch.batch,
                f"ref_log_prob {tuple(batch.batch['ref_log_prob'].shape)}, "
                f"max |ref-old| {float((batch.batch['ref_log_prob'] - lp).abs().max()):.2e}",
            )
        batch.batch["token_level_scores"] = scores
        batch.batch["token_level_rewards"] = scores
        batch = compute_advantage(
            batch,
            adv_estimator=cfg.algorithm.adv_estimator,
            gamma=cfg.algorithm.gamma,
            lam=cfg.algorithm.lam,
            num_repeat=n,
            norm_adv_by_std_in_grpo=cfg.algorithm.get("norm_adv_by_std_in_grpo", True),
            config=cfg.algorithm,
        )  # REAL GRPO advantages
        out = trainer._update_actor(batch)  # REAL: wg.update_actor -> adapter fwd_bwd + step
        from verl.utils.metric import reduce_metrics

        metrics = reduce_metrics(out.meta_info["metrics"])  # REAL, as fit() does
        gn = metrics.get("actor/grad_norm")
        rec(
            f"V10 step{step} update_actor (fwd_bwd + step) through the real worker group; GRPO advantages -> grad_norm > 0",
            isinstance(gn, (int, float)) and gn > 0,
            {
                k: (float(f"{float(v):.4g}") if isinstance(v, (float, int)) else str(v)[:40])
                for k, v in metrics.items()
            },
        )
        if step == 1:
            inv = {k: metrics.get(f"actor/{k}") for k in STEP1_INVARIANTS}
            got = {k: None if v is None else float(v) for k, v in inv.items()}
            want = ", ".join(f"{k} exactly {v:g}" for k, v in STEP1_INVARIANTS.items())
            rec(
                f"V10b step1 PPO invariants (old == current policy): {want}",
                got == STEP1_INVARIANTS,
                f"{got}; actor keys {sorted(k for k in metrics if k.startswith('actor/'))}",
            )
        update_weights()
        rec(f"V11 step{step} update_weights (sync_weights)", True, "")
        with open(STEPS_OUT, "a", encoding="utf-8") as fh:
            untimed = {k: float(v) for k, v in metrics.items() if "timing/" not in k}
            fh.write(json.dumps({"step": step, "rewards": rewards, "metrics": untimed}) + "\n")
        _save_at(trainer, step)
        trainer.global_steps += 1
    probe = loop.run(_scored(backend._client, [[72, 105, 33]], [[97, 98, 99, 100]]))
    with open(STEPS_OUT, "a", encoding="utf-8") as fh:
        final = [float(x) for x in probe[0]]
        fh.write(json.dumps({"final_log_probs": final}) + "\n")
    trainer.actor_rollout_wg.destroy()  # REAL -> worker backend.destroy() -> client.shutdown()
    rec("V14 worker-side destroy (shutdown)", True, "")
    if v1:
        return
    trainer._realfw2_backend = backend
