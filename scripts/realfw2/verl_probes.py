"""The verl drive's probes, each a fresh interpreter as `python -m verl.trainer.main_ppo`
would be: the plugin loads and registers `cortex` (and, on merged verl, its worker) on each
verl, with no arctic_platform importable or with the published 0.1.4 beside it, importing
nothing of it; the documented overrides compose with real Hydra; and the `cortex`
backend's driver-side construction reaches Cortex."""

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
