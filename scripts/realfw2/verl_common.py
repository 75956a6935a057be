"""What the verl drive's probes and main runs share: the pinned sources, a child process's
environment, one check's PASS/FAIL record, and the Hydra overrides of the documented
command (docs/verl.md) per verl version."""

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
VERL_PIN = SRC / "verl_61ed850f"
VERL_UPSTREAM = SRC / "verl_9dfab8e5d"  # release/v0.7.1 head: the merged RemoteBackend
VERL_V1 = SRC / "verl_6329d45bd"  # verl PR #7102 head: the V1 trainer drives remote backends
AP_PIN = SRC / "ap_1b47608"
AP_MAIN = SRC / "ap_5864380"  # Arctic-Platform main: arctic_platform.client, OnPremConfig
PLUGIN = "arctic_rl.integrations.verl.register"
# which Cortex service the mock plays: today's live one (default) or the proposed contract
TODAY = os.environ.get("REALFW2_SERVICE", "today") != "proposed"
AP_PLUGIN = "arctic_platform.integrations.verl.register"
RESULTS = []


def record(name, ok, detail=""):
    RESULTS.append((name, bool(ok), detail))
    print(f"[{'PASS' if ok else 'FAIL'}] {name}: {detail}", flush=True)


def env_for(verl_src, ap="pin", plugin=True, hide=(), extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERL_", "REALFW2_HIDE"))}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE / "compat"), str(HERE), str(verl_src)])
    if ap == "pin":
        env["REALFW2_ARCTIC_PLATFORM"] = str(AP_PIN)
    elif ap == "main":
        env["REALFW2_ARCTIC_PLATFORM"] = str(AP_MAIN)
    elif ap == "none":  # no arctic_platform importable at all: the project's own backend/worker
        env["REALFW2_ARCTIC_PLATFORM"] = "none"
    else:  # the published arctic-platform 0.1.4 `make setup` put in the project venv
        env.pop("REALFW2_ARCTIC_PLATFORM", None)
    if plugin:
        env["VERL_USE_EXTERNAL_MODULES"] = PLUGIN
    if hide:
        env["REALFW2_HIDE_MODULES"] = ",".join(hide)
    env.update(
        {
            "REALFW2_CPU_PADDING": "1",  # flash-attn's pure-torch padding helpers (compat/realfw2_trace.py)
            "RAY_USAGE_STATS_ENABLED": "0",
            "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
            "TOKENIZERS_PARALLELISM": "false",
            "HYDRA_FULL_ERROR": "1",
            **(extra or {}),
        }
    )
    return env


def py(code, env, timeout=240):
    t0 = time.time()
    p = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(HERE / "run"),
    )
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def last_error(text):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    errs = [ln for ln in lines if "Error" in ln or "Could not" in ln or "Exception" in ln]
    return (errs[-1] if errs else (lines[-1] if lines else ""))[:300]


# The documented verl command (docs/verl.md), pointed at a host (composition only). The
# `remote_backend` group: `remote_backend=cortex` on the merged verl, `+remote_backend=cortex`
# on 61ed850f, whose defaults list has no remote_backend entry.
def doc_overrides(group, v1=False):
    return [
        "hydra.searchpath=[pkg://arctic_rl.integrations.verl]",
        *([] if v1 else ["trainer.remote_backend=cortex"]),
        group,
        "actor_rollout_ref.rollout.name=cortex",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=1",
        "actor_rollout_ref.rollout.agent.num_workers=1",
        "trainer.n_gpus_per_node=1",
        "trainer.nnodes=1",
        "remote_backend.cortex.host=myorg-myaccount.snowflakecomputing.com",
        "remote_backend.cortex.database=RL_DB",
        "remote_backend.cortex.schema=PUBLIC",
    ]


GROUP = {
    VERL_PIN: "+remote_backend=cortex",
    VERL_UPSTREAM: "remote_backend=cortex",
    VERL_V1: "remote_backend=cortex",
}


def main_overrides(url, run, verl_src):
    return [
        "hydra.searchpath=[pkg://arctic_rl.integrations.verl]",
        # V1's config has no trainer.remote_backend: its main_ppo takes it from the group choice
        *([] if verl_src == VERL_V1 else ["trainer.remote_backend=cortex"]),
        GROUP[verl_src],  # as documented per verl version
        "actor_rollout_ref.rollout.name=cortex",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=1",
        f"remote_backend.cortex.base_url={url}",
        "remote_backend.cortex.database=RL_DB",
        "remote_backend.cortex.schema=PUBLIC",
        "remote_backend.cortex.long_poll_s=1",
        "remote_backend.cortex.progress=false",
        f"actor_rollout_ref.model.path={run / 'tiny-byte-lm'}",
        f"data.train_files={run / 'data' / 'train.parquet'}",
        f"data.val_files={run / 'data' / 'train.parquet'}",
        "data.train_batch_size=2",
        "data.max_prompt_length=32",
        "data.max_response_length=8",
        "data.dataloader_num_workers=0",
        "actor_rollout_ref.rollout.n=2",
        "actor_rollout_ref.rollout.agent.num_workers=1",  # RemoteBackendTrainer: single rollout replica
        "actor_rollout_ref.actor.ppo_mini_batch_size=2",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
        # today's service's grpo has no KL term: its users turn verl's KL loss off
        f"actor_rollout_ref.actor.use_kl_loss={'false' if TODAY else 'true'}",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2",
        "algorithm.adv_estimator=grpo",
        f"trainer.total_training_steps={os.environ.get('REALFW2_VERL_STEPS', '2')}",
        f"trainer.save_freq={os.environ.get('REALFW2_VERL_SAVE_FREQ', '-1')}",
        "trainer.resume_mode=auto",  # verl's default, spelled out: a relaunch resumes
        "trainer.n_gpus_per_node=1",
        "trainer.nnodes=1",
        "trainer.device=cpu",
        "trainer.logger=[console]",
        "trainer.val_before_train=false",
        f"trainer.default_local_dir={run / 'verl_ckpt'}",
        # local Ray: 4 logical CPUs (TaskRunner 1 + verl's resource-pool bundle, CPU: 3), loopback
        # V1 adds TransferQueue's controller and one storage unit (1 CPU each; 8 by default)
        f"ray_kwargs.ray_init.num_cpus={6 if verl_src == VERL_V1 else 4}",
        *(
            ["transfer_queue.backend.SimpleStorage.num_data_storage_units=1"]
            if verl_src == VERL_V1
            else []
        ),
        "+ray_kwargs.ray_init.include_dashboard=false",
        "+ray_kwargs.ray_init._node_ip_address=127.0.0.1",
        f"+ray_kwargs.ray_init._temp_dir={run / 'ray_verl'}",
        f"hydra.run.dir={run / 'hydra_verl'}",
        # the release's TensorDict worker path (V1 has no other, and no such key)
        *([] if verl_src == VERL_V1 else ["trainer.use_legacy_worker_impl=disable"]),
    ]
