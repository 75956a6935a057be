"""The verl drive's probes, each a fresh interpreter as `python -m verl.trainer.main_ppo`
would be: the plugin loads and registers `cortex` (and, on merged verl, its worker) on each
verl, with no arctic_platform importable or with the published 0.1.4 beside it, importing
nothing of it; the documented overrides compose with real Hydra; the `cortex`
backend's driver-side construction reaches Cortex; and the rollout replica `cortex`, from
verl's own registry, samples from Cortex (the main runs cut the agent loop)."""

from pathlib import Path

from verl_common import (
    GROUP,
    PLUGIN,
    VERL_PIN,
    VERL_UPSTREAM,
    VERL_V1,
    doc_overrides,
    env_for,
    last_error,
    main_overrides,
    py,
    record,
)

COMPOSE = """
import sys, json
import verl.trainer.main_ppo as mp
got = {}
mp.run_ppo = lambda config, task_runner_class=None: got.setdefault("cfg", config)  # stop after composition
sys.argv = ["verl.trainer.main_ppo", "hydra.run.dir=%s"] + %r
try:
    mp.main()
except SystemExit as e:
    print("SYSTEMEXIT", e.code)
cfg = got.get("cfg")
if cfg is not None:
    rb = cfg.get("remote_backend")
    print("COMPOSED", json.dumps({"trainer.remote_backend": cfg.trainer.remote_backend,
          "remote_backend keys": sorted(rb) if rb is not None else None,
          "cortex": dict(rb.cortex) if rb is not None and "cortex" in rb else None}))
"""


REGISTERED = """
import verl
from verl.remote_backend.base import RemoteBackendRegistry as R
cls = R.get("cortex")
worker = R.get_worker("cortex").__name__ if hasattr(R, "get_worker") else R.MODULES.get("cortex")
import sys
published = sorted(m for m in sys.modules if m.startswith("arctic_platform"))
print("IMPORTED", cls.__name__, [c.__module__ for c in cls.__mro__[1:4]], published, worker)
"""


def run_keys(run: Path) -> list[str]:
    """Keys of the run itself (the `...` of the documented command): V1's main_ppo validates
    the config (micro-batch sizes, the models' own configs) before it starts anything."""
    return [
        f"actor_rollout_ref.model.path={run / 'tiny-byte-lm'}",
        "algorithm.adv_estimator=grpo",  # no critic (whose model V1 would load too)
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2",
    ]


def probes(run: Path):
    hydra_dir = run / "hydra_probe"
    # V1: the fork-era verl@61ed850f, nothing of arctic_platform importable
    rc, out, err, dt = py(
        "import verl; print('IMPORTED', verl.__version__)", env_for(VERL_PIN, ap="none")
    )
    record(
        "V1 `import verl` with VERL_USE_EXTERNAL_MODULES=" + PLUGIN + " (verl@61ed850f)",
        rc == 0 and "IMPORTED" in out,
        f"rc={rc} {last_error(err) if rc else out.strip()} ({dt:.0f}s)",
    )
    code = (
        "import verl; from verl.remote_backend.base import RemoteBackendRegistry as R\n"
        "print('IMPORTED', R.MODULES.get('cortex'), R.list())"
    )
    rc, out, err, dt = py(code, env_for(VERL_PIN, ap="none"))
    record(
        "V1b the fork registry: `cortex` in its lazy registry table",
        rc == 0 and "arctic_rl.integrations.verl.backend" in out,
        f"rc={rc} {last_error(err) if rc else out.strip()}",
    )
    # V1c-e: merged verl (release, V1) without arctic_platform or beside the published 0.1.4:
    # `cortex` and this package's worker registered, nothing of arctic_platform imported
    for tag, verl_src, ap in (
        ("V1c", VERL_UPSTREAM, "none"),
        ("V1d", VERL_UPSTREAM, "published"),
        ("V1e", VERL_V1, "none"),
    ):
        rc, out, err, dt = py(REGISTERED, env_for(verl_src, ap=ap))
        line = next((ln for ln in out.splitlines() if ln.startswith("IMPORTED")), "")
        record(
            f"{tag} `import verl` with the plugin on verl@{verl_src.name[5:]}, arctic_platform {ap}: "
            "`cortex` and its worker registered, no arctic_platform module imported",
            "IMPORTED CortexBackend" in line
            and "[]" in line
            and line.endswith("CortexActorRolloutRefWorker"),
            f"rc={rc} {line[9:300] if line else last_error(err)}",
        )
    # V2: the documented Hydra command, per verl version, with the plugin on
    for tag, verl_src in (("V2", VERL_PIN), ("V2b", VERL_UPSTREAM), ("V2c", VERL_V1)):
        rc, out, err, dt = py(
            COMPOSE
            % (hydra_dir, doc_overrides(GROUP[verl_src], v1=verl_src == VERL_V1) + run_keys(run)),
            env_for(verl_src, ap="none"),
        )
        comp = next((ln for ln in out.splitlines() if ln.startswith("COMPOSED")), None)
        ok = comp is not None and '"cortex": {' in comp and "myorg-myaccount" in comp
        record(
            f"{tag} the documented overrides ({GROUP[verl_src]}) compose with real Hydra on verl@{verl_src.name[5:]}",
            ok,
            comp[9:330] if comp else last_error(out + err),
        )


ADAPTER_014 = """
import sys, asyncio, json
import verl.trainer.main_ppo as mp
got = {}
mp.run_ppo = lambda config, task_runner_class=None: got.setdefault("cfg", config)
sys.argv = ["verl.trainer.main_ppo", "hydra.run.dir=%s"] + %r
mp.main()
from verl.remote_backend.base import RemoteBackendRegistry
cls = RemoteBackendRegistry.get("cortex")
print("BASE", cls.__module__, sorted(m for m in sys.modules if m.startswith("arctic_platform")))
try:
    b = cls.from_config(got["cfg"])
    print("CLIENT", type(b._client).__module__, type(b._client).__name__)
except BaseException as e:
    import traceback
    where = " <- ".join(f"{f.filename.split('site-packages/')[-1]}:{f.lineno}" for f in traceback.extract_tb(e.__traceback__)[::-1][:4])
    print("RAISED", type(e).__name__, (str(e).splitlines()[0][:200] if str(e) else ""), "| at", where)
"""


def probe_published_adapter(run: Path, url: str, token: str):
    """The `cortex` backend's driver-side construction on each verl, with the published
    arctic-platform 0.1.4 (`make setup`) beside it or nothing of it importable."""
    cases = (
        ("V17", VERL_PIN, "published"),
        ("V17b", VERL_UPSTREAM, "published"),
        ("V17c", VERL_V1, "none"),
    )
    for tag, verl_src, ap in cases:
        overrides = [
            o for o in main_overrides(url, run, verl_src) if not o.startswith("hydra.run.dir")
        ]
        env = env_for(verl_src, ap=ap, extra={"ARCTIC_CORTEX_PAT": token})
        _, out, err, _ = py(ADAPTER_014 % (run / "hydra_probe", overrides), env, timeout=120)
        base = next((ln for ln in out.splitlines() if ln.startswith("BASE")), "")
        res = next(
            (ln for ln in out.splitlines() if ln.startswith(("CLIENT", "RAISED"))), last_error(err)
        )
        record(
            f"{tag} (probe) verl@{verl_src.name[5:]}, arctic_platform {ap}: the `cortex` backend reaches Cortex",
            "CLIENT arctic_rl._shim LegacyCortexClient" in res,
            f"{base[5:200]} -> {res[:520]}",
        )


REPLICA = """
import asyncio, sys, types
import ray
import verl.trainer.main_ppo as mp
got = {}
mp.run_ppo = lambda config, task_runner_class=None: got.setdefault("cfg", config)
sys.argv = ["verl.trainer.main_ppo", "hydra.run.dir=%s"] + %r
mp.main()
cfg = got["cfg"]
from verl.remote_backend.base import RemoteBackendRegistry
from verl.workers.rollout.replica import RolloutReplicaRegistry, get_rollout_replica_class
backend = RemoteBackendRegistry.get(cfg.trainer.remote_backend).from_config(cfg)
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
rollout = cfg.actor_rollout_ref.rollout
cls = get_rollout_replica_class(rollout.name)
print("REPLICA", rollout.name, cls.__module__, cls.__name__, sorted(RolloutReplicaRegistry._registry))
# what the agent loop manager does: the trainer's kwargs, init_hybrid on the forwarder group
replica = cls(replica_rank=0, config=rollout, model_config=cfg.actor_rollout_ref.model,
              gpus_per_node=rollout.n_gpus_per_node, main_config=cfg,
              backend_handle=backend.reconnect_handle())
async def drive():
    await replica.init_hybrid(types.SimpleNamespace(workers=[None]))
    await replica.sleep()
    params = dict(temperature=1.0, top_p=1.0, top_k=-1, repetition_penalty=1.0, logprobs=True)
    first = await replica.server_handle.generate.remote(
        request_id="r1", prompt_ids=[104, 105, 33], sampling_params=dict(params),
        image_data=None, video_data=None)
    await replica.set_global_steps(1)
    second = await replica.server_handle.generate.remote(
        request_id="r2", prompt_ids=[104, 105, 33], sampling_params=dict(params),
        image_data=None, video_data=None)
    for name in ("wake_up", "clear_kv_cache", "abort_all_requests", "resume_generation",
                 "start_profile", "stop_profile", "release_kv_cache", "resume_kv_cache"):
        if hasattr(replica, name):
            await getattr(replica, name)()
    return first, second
first, second = asyncio.run(drive())
print("SAMPLED", len(first.token_ids), first.stop_reason, len(first.log_probs or []),
      first.extra_fields.get("global_steps"), second.extra_fields.get("global_steps"))
asyncio.run(backend.destroy())
ray.shutdown()
"""


def probe_replica(run: Path, url: str, token: str):
    """The rollout replica `cortex` from verl's registry, built and driven as the agent loop
    and checkpoint manager do, on a local Ray: it samples from the mock."""
    for tag, verl_src in (("V21", VERL_UPSTREAM), ("V21b", VERL_V1)):
        overrides = [
            o for o in main_overrides(url, run, verl_src) if not o.startswith("hydra.run.dir")
        ]
        env = env_for(verl_src, ap="none", extra={"ARCTIC_CORTEX_PAT": token})
        _, out, err, _ = py(REPLICA % (run / "hydra_probe", overrides), env, timeout=240)
        found = next((ln for ln in out.splitlines() if ln.startswith("REPLICA")), "")
        sampled = next((ln for ln in out.splitlines() if ln.startswith("SAMPLED")), "")
        fields = sampled.split()
        ok = (
            "arctic_rl.integrations.verl.replica CortexReplica" in found
            and len(fields) == 6
            and int(fields[1]) > 0
            and fields[2] == "completed"
            and fields[3] == fields[1]
            and fields[5] == "1"
        )
        record(
            f"{tag} (probe) verl@{verl_src.name[5:]}: the rollout replica `cortex` from verl's "
            "registry samples from Cortex (log-probs, the weights' step after set_global_steps)",
            ok,
            f"{found[8:200]} -> {sampled[8:200] or last_error(err)}",
        )
