"""Drive REAL verl with the project's verl plugin and the REAL Arctic adapters against the mock
Cortex GS: verl@61ed850f (the fork-era interface) with Arctic-Platform@1b47608, and the
merged verl (release/v0.7.1, 9dfab8e5d) with Arctic-Platform main (5864380).

    python verl_drive.py SERVICE_URL RUN_DIR        (token in $REALFW2_MOCK_TOKEN)

Probes (each a fresh interpreter, as `python -m verl.trainer.main_ppo` would be), then the
main run: verl's real `main_ppo.main()` (Hydra) -> real `run_ppo` (ray.init) -> verl's real
TaskRunner.run in a Ray actor (see verl_roles.py for the two cuts) -> real RayWorkerGroup of
verl's generic forwarder -> the adapter -> the project's LegacyCortexClient -> the mock.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
VERL_PIN = SRC / "verl_61ed850f"
VERL_UPSTREAM = SRC / "verl_9dfab8e5d"  # release/v0.7.1 head: the merged RemoteBackend
AP_PIN = SRC / "ap_1b47608"
AP_MAIN = SRC / "ap_5864380"  # Arctic-Platform main: arctic_platform.client, OnPremConfig
PLUGIN = "arctic_rl.integrations.verl.register"
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
def doc_overrides(group):
    return [
        "hydra.searchpath=[pkg://arctic_rl.integrations.verl]",
        "trainer.remote_backend=cortex",
        group,
        "actor_rollout_ref.rollout.name=arctic",
        "actor_rollout_ref.rollout.agent.num_workers=1",
        "trainer.n_gpus_per_node=1",
        "trainer.nnodes=1",
        "remote_backend.cortex.host=myorg-myaccount.snowflakecomputing.com",
        "remote_backend.cortex.database=RL_DB",
        "remote_backend.cortex.schema=PUBLIC",
    ]


GROUP = {VERL_PIN: "+remote_backend=cortex", VERL_UPSTREAM: "remote_backend=cortex"}

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
print("IMPORTED", cls.__name__, [c.__module__ for c in cls.__mro__[1:4]], worker)
"""


def probes(run: Path):
    hydra_dir = run / "hydra_probe"
    # V1: the fork-era pair: verl@61ed850f + Arctic-Platform@1b47608 (its plugin present; it
    # calls register_worker, which that verl lacks)
    rc, out, err, dt = py("import verl; print('IMPORTED', verl.__version__)", env_for(VERL_PIN))
    record(
        "V1 `import verl` with VERL_USE_EXTERNAL_MODULES="
        + PLUGIN
        + " (verl@61ed850f + Arctic-Platform@1b47608)",
        rc == 0 and "IMPORTED" in out,
        f"rc={rc} {last_error(err) if rc else out.strip()} ({dt:.0f}s)",
    )
    # V1b: the published plugin absent: `cortex` in the fork registry's lazy table
    code = (
        "import verl; from verl.remote_backend.base import RemoteBackendRegistry as R\n"
        "print('IMPORTED', R.MODULES.get('cortex'), R.list())"
    )
    rc, out, err, dt = py(code, env_for(VERL_PIN, hide=[AP_PLUGIN]))
    record(
        "V1b same, published plugin module absent: plugin loads, `cortex` in the lazy registry table",
        rc == 0 and "arctic_rl.integrations.verl.backend" in out,
        f"rc={rc} {last_error(err) if rc else out.strip()}",
    )
    # V1c-e: the merged verl with each adapter a user can have: `cortex` and its worker registered
    for tag, ap in (("V1c", "pin"), ("V1d", "main"), ("V1e", "published")):
        rc, out, err, dt = py(REGISTERED, env_for(VERL_UPSTREAM, ap=ap))
        line = next((ln for ln in out.splitlines() if ln.startswith("IMPORTED")), "")
        record(
            f"{tag} `import verl` with the plugin on the merged verl (9dfab8e5d) + Arctic-Platform {ap}: "
            "`cortex` and its worker registered",
            "IMPORTED CortexBackend" in line and line.endswith("ArcticRLActorRolloutRefWorker"),
            f"rc={rc} {line[9:300] if line else last_error(err)}",
        )
    # V2: the documented Hydra command, per verl version, with the plugin on
    for tag, verl_src in (("V2", VERL_PIN), ("V2b", VERL_UPSTREAM)):
        rc, out, err, dt = py(
            COMPOSE % (hydra_dir, doc_overrides(GROUP[verl_src])), env_for(verl_src)
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
base = next(c for c in cls.__mro__ if c.__name__ == "ArcticRLClientWrapper")
print("BASE", base.__module__, sys.modules[base.__module__].__file__,
      "has create_arctic_rl_client:", hasattr(sys.modules[base.__module__], "create_arctic_rl_client"))
try:
    b = cls.from_config(got["cfg"])
    print("CLIENT", type(b._client).__module__, type(b._client).__name__)
except BaseException as e:
    import traceback
    where = " <- ".join(f"{f.filename.split('site-packages/')[-1]}:{f.lineno}" for f in traceback.extract_tb(e.__traceback__)[::-1][:4])
    print("RAISED", type(e).__name__, (str(e).splitlines()[0][:200] if str(e) else ""), "| at", where)
"""


def probe_published_adapter(run: Path, url: str, token: str):
    """The `cortex` backend's driver-side construction with each adapter a user can have:
    arctic-platform 0.1.4 (`make setup`; its adapter constructs AsyncArcticRLClient itself),
    and Arctic-Platform main (arctic_platform.client's factory with an OnPremConfig)."""
    cases = (
        ("V17", VERL_PIN, "published"),
        ("V17b", VERL_UPSTREAM, "published"),
        ("V17c", VERL_UPSTREAM, "main"),
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
            f"{tag} (probe) verl@{verl_src.name[5:]} + Arctic-Platform {ap}: the `cortex` backend reaches Cortex",
            "CLIENT arctic_rl._shim LegacyCortexClient" in res,
            f"{base[5:200]} -> {res[:520]}",
        )


def main_overrides(url, run, verl_src):
    return [
        "hydra.searchpath=[pkg://arctic_rl.integrations.verl]",
        "trainer.remote_backend=cortex",
        GROUP[verl_src],  # as documented per verl version
        "actor_rollout_ref.rollout.name=arctic",
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
        "actor_rollout_ref.actor.use_kl_loss=true",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2",
        "algorithm.adv_estimator=grpo",
        "trainer.total_training_steps=2",
        "trainer.n_gpus_per_node=1",
        "trainer.nnodes=1",
        "trainer.device=cpu",
        "trainer.use_legacy_worker_impl=disable",
        "trainer.logger=[console]",
        "trainer.val_before_train=false",
        f"trainer.default_local_dir={run / 'verl_ckpt'}",
        # local Ray: 4 logical CPUs (TaskRunner 1 + verl's resource-pool bundle, CPU: 3), loopback
        "ray_kwargs.ray_init.num_cpus=4",
        "+ray_kwargs.ray_init.include_dashboard=false",
        "+ray_kwargs.ray_init._node_ip_address=127.0.0.1",
        f"+ray_kwargs.ray_init._temp_dir={run / 'ray_verl'}",
        f"hydra.run.dir={run / 'hydra_verl'}",
    ]


# The main runs: (tag, verl source, Arctic-Platform source, the worker TaskRunner must map)
MAIN_RUNS = {
    "A": (VERL_PIN, "pin", "RemoteBackendActorRolloutRefWorker"),  # the fork-era interface
    "B": (VERL_UPSTREAM, "main", "ArcticRLActorRolloutRefWorker"),  # merged verl + AP main
}


def driver(url, run, tag):
    """The user's `python -m verl.trainer.main_ppo ...` process (docs: export ARCTIC_CORTEX_PAT)."""
    os.environ["ARCTIC_CORTEX_PAT"] = os.environ.pop("REALFW2_MOCK_TOKEN")
    import ray
    import verl.trainer.main_ppo as mp  # REAL; `import verl` loads the plugin (VERL_USE_EXTERNAL_MODULES)
    from verl_roles import HarnessTaskRunner

    real_run_ppo = mp.run_ppo
    mp.run_ppo = lambda config, task_runner_class=None: real_run_ppo(
        config, task_runner_class=ray.remote(num_cpus=1)(HarnessTaskRunner)
    )  # REAL run_ppo, its own hook
    sys.argv = [
        "verl.trainer.main_ppo",
        *main_overrides(url, run / f"main_{tag}", MAIN_RUNS[tag][0]),
    ]
    mp.main()  # REAL Hydra entry point
    print("DRIVER: main_ppo.main() returned", flush=True)


def read_jsonl(path):
    return (
        [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []
    )


def _order(r):
    head = r["name"].split()[0][1:]
    return (int("".join(ch for ch in head if ch.isdigit()) or 0), r["name"])


def main_run(url, run, token, tag):
    verl_src, ap, worker = MAIN_RUNS[tag]
    where = run / f"main_{tag}"
    import shutil

    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    for name in ("tiny-byte-lm", "data"):
        (where / name).symlink_to(run / name)
    report, trace = where / "verl_report.jsonl", where / "verl_trace.jsonl"
    env = env_for(
        verl_src,
        ap=ap,
        extra={
            "REALFW2_VERL_REPORT": str(report),
            "ARCTIC_REALFW2_TRACE": str(trace),
            "REALFW2_VERL_WORKER": worker,
        },
    )
    log = where / "verl_driver.log"
    t0 = time.time()
    with open(log, "w") as fh:
        p = subprocess.run(
            [sys.executable, __file__, "--driver", url, str(run), tag],
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
            timeout=480,
            cwd=str(where),
        )
    dt = time.time() - t0
    label = f"[{tag}: verl@{verl_src.name[5:]} + Arctic-Platform {ap}]"
    record(
        f"{tag}.V3 main run {label}: real verl main_ppo.main() (Hydra) -> run_ppo -> TaskRunner actor exits 0",
        p.returncode == 0,
        f"rc={p.returncode} in {dt:.0f}s (log {log})",
    )
    if p.returncode != 0:
        print("---- driver log, last error lines ----")
        print("\n".join(ln[:300] for ln in log.read_text().splitlines() if "Error" in ln)[-1500:])
    recs = read_jsonl(trace)
    creates = [r for r in recs if r["call"] == "create_arctic_rl_client"]
    if creates:
        c0 = creates[0]
        backend = c0["config"]["backend"]
        on_prem = backend == "local" or (
            isinstance(backend, dict) and backend.get("type") == "onprem"
        )
        record(
            f"{tag}.V4 driver-side backend: the adapter's on-prem config served from Cortex (LegacyCortexClient)",
            c0["client"] == "LegacyCortexClient" and on_prem,
            json.dumps({k: c0[k] for k in ("pid", "config", "client", "job_id")})[:400],
        )
    else:
        record(
            f"{tag}.V4 driver-side backend built through the registry",
            False,
            "no client was created",
        )
    for r in sorted(read_jsonl(report), key=_order):
        record(f"{tag}.{r['name']}", r["ok"], r["detail"])
    calls = [r["call"] for r in recs if r["call"] != "create_arctic_rl_client"]
    counts = {
        k: calls.count(k)
        for k in (
            "generate",
            "fwd_no_grad",
            "fwd_bwd",
            "step",
            "sync_weights",
            "save_checkpoint",
            "shutdown",
            "reconnect_config",
            "log_probs",
        )
    }
    print(f"[{tag}] client call counts (all processes):", counts)
    ok = (
        counts["fwd_no_grad"] >= 4
        and counts["fwd_bwd"] >= 2
        and counts["step"] >= 2
        and counts["generate"] >= 4
        and counts["sync_weights"] >= 2
        and counts["shutdown"] >= 1
    )
    record(
        f"{tag}.V18 adapter call set over 2 iterations: generate, fwd_no_grad x2/iter, fwd_bwd, step, "
        "sync_weights; shutdown",
        ok,
        json.dumps(counts),
    )
    if creates:
        import httpx

        job = creates[0]["job_id"]
        r = httpx.get(
            f"{url}/{job}",
            headers={
                "Authorization": f"Bearer {token}",
                "X-Snowflake-Authorization-Token-Type": "PROGRAMMATIC_ACCESS_TOKEN",
            },
            timeout=10,
        )
        state = r.json().get("status")
        record(
            f"{tag}.V19 the job is cancelled at the end (driver-side destroy -> shutdown)",
            str(state).lower() in ("cancelled", "canceled"),
            f"GET job -> {r.status_code} status={state}",
        )
    ips = set()
    import re

    for f in (where / "ray_verl").glob("session_*/logs/**/*"):
        if f.is_file():
            ips |= set(
                re.findall(r"\b(\d{1,3}(?:\.\d{1,3}){3}):\d+", f.read_text(errors="replace"))
            )
    record(
        f"{tag}.H2 (harness) Ray bound to loopback only",
        ips <= {"127.0.0.1"} and bool(ips),
        f"{sorted(ips)}",
    )


def main():
    url, run = sys.argv[1], Path(sys.argv[2])
    token = os.environ["REALFW2_MOCK_TOKEN"]
    run.mkdir(parents=True, exist_ok=True)
    probing = os.environ.get("REALFW2_SKIP_VERL_PROBES") != "1"
    if probing:
        probes(run)
    for tag in filter(None, os.environ.get("REALFW2_MAIN_RUNS", "A,B").split(",")):
        main_run(url, run, token, tag)
    if probing:
        probe_published_adapter(run, url, token)
    print("\n==== SUMMARY (verl) ====")
    for name, ok, _ in RESULTS:
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--driver":
        sys.path.insert(0, str(HERE))
        driver(sys.argv[2], Path(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(main())
