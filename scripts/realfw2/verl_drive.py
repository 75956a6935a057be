"""Drive REAL verl with the project's verl plugin, backend and forwarder worker against the mock
Cortex GS, with no arctic_platform importable: verl@61ed850f (the fork-era interface, verl's
generic worker) and the merged verl (release/v0.7.1, 9dfab8e5d, the project's worker), and on
the release a resume scenario through verl's own save and load (R).

    python verl_drive.py SERVICE_URL RUN_DIR        (token in $REALFW2_MOCK_TOKEN)

Probes (verl_probes.py; each a fresh interpreter, as `python -m verl.trainer.main_ppo` would
be), then the main run: verl's real `main_ppo.main()` (Hydra) -> real `run_ppo` (ray.init) ->
verl's real TaskRunner.run in a Ray actor (verl_runners.py; verl_roles.py for the two cuts) -> real RayWorkerGroup of
the forwarder worker (verl's generic one before the merge, the project's after) -> the project's backend -> its LegacyCortexClient -> the mock.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from verl_common import (
    HERE,
    RESULTS,
    TODAY,
    VERL_PIN,
    VERL_UPSTREAM,
    VERL_V1,
    env_for,
    main_overrides,
    record,
)
from verl_probes import probe_published_adapter, probe_replica, probes

# The main runs: (tag, verl source, Arctic-Platform source, the worker TaskRunner must map).
# "none": nothing of arctic_platform is importable; the backend and worker are the project's.
MAIN_RUNS = {
    "A": (VERL_PIN, "none", "RemoteBackendActorRolloutRefWorker"),  # the fork-era interface
    "B": (VERL_UPSTREAM, "none", "CortexActorRolloutRefWorker"),  # release/v0.7.1
    "C": (VERL_V1, "none", "CortexActorRolloutRefWorker"),  # PR #7102's V1 trainer
}


def driver(url, run, tag):
    """The user's `python -m verl.trainer.main_ppo ...` process (docs: export ARCTIC_CORTEX_PAT)."""
    os.environ["ARCTIC_CORTEX_PAT"] = os.environ.pop("REALFW2_MOCK_TOKEN")
    import ray
    import verl.trainer.main_ppo as mp  # REAL; `import verl` loads the plugin (VERL_USE_EXTERNAL_MODULES)
    from verl_runners import HarnessTaskRunner

    real_run_ppo = mp.run_ppo
    mp.run_ppo = lambda config, task_runner_class=None: real_run_ppo(
        config, task_runner_class=ray.remote(num_cpus=1)(HarnessTaskRunner)
    )  # REAL run_ppo, its own hook
    sys.argv = [
        "verl.trainer.main_ppo",
        *main_overrides(url, run / f"main_{tag}", MAIN_RUNS[tag.split("_")[0]][0]),
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


def main_run(url, run, token, tag, fresh=True, expect_rc=0, **extra):
    verl_src, ap, worker = MAIN_RUNS[tag.split("_")[0]]
    where = run / f"main_{tag}"
    import shutil

    if fresh:
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        for name in ("tiny-byte-lm", "data"):
            (where / name).symlink_to(run / name)
    report, trace = where / "verl_report.jsonl", where / "verl_trace.jsonl"
    for stale in (report, trace):  # a relaunch reports on its own launch only
        stale.unlink(missing_ok=True)
    env = env_for(
        verl_src,
        ap=ap,
        extra={
            "REALFW2_VERL_REPORT": str(report),
            "REALFW2_VERL_STEPS_OUT": str(where / "verl_steps.jsonl"),
            "ARCTIC_REALFW2_TRACE": str(trace),
            "REALFW2_VERL_WORKER": worker,
            "REALFW2_VERL_V1": "1" if verl_src == VERL_V1 else "0",
            **extra,
        },
    )
    log = where / f"verl_driver{'' if fresh else '_relaunch'}.log"
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
    label = f"[{tag}: verl@{verl_src.name[5:]}, arctic_platform {ap}]"
    ending = "exits 0" if expect_rc == 0 else "dies after its save, as a preempted run"
    record(
        f"{tag}.V3 main run {label}: real verl main_ppo.main() (Hydra) -> run_ppo -> TaskRunner actor {ending}",
        (p.returncode == 0) == (expect_rc == 0),
        f"rc={p.returncode} in {dt:.0f}s (log {log})",
    )
    if expect_rc != 0:
        for r in sorted(read_jsonl(report), key=_order):
            record(f"{tag}.{r['name']}", r["ok"], r["detail"])
        return
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
            f"{tag}.V4 driver-side backend: the project's CortexBackend built a Cortex config (LegacyCortexClient)",
            c0["client"] == "LegacyCortexClient" and backend == "cortex" and not on_prem,
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
    # per iteration old log-probs, and ref log-probs when the recipe has a KL loss (not today's)
    no_grad_per_iter = 1 if TODAY else 2
    ok = (
        counts["fwd_no_grad"] >= 2 * no_grad_per_iter
        and counts["fwd_bwd"] >= 2
        and counts["step"] >= 2
        and counts["generate"] >= 4
        and counts["sync_weights"] >= 2
        and counts["shutdown"] >= 1
    )
    record(
        f"{tag}.V18 backend call set over 2 iterations: generate, fwd_no_grad x{no_grad_per_iter}/iter, fwd_bwd, step, "
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


def _steps(where):
    rows = read_jsonl(where / "verl_steps.jsonl")
    steps = {r["step"]: r for r in rows if "step" in r}
    final = [r["final_log_probs"] for r in rows if "final_log_probs" in r]
    return steps, (final[-1] if final else None)


def resume_scenario(url, run, token, base="B"):
    """verl's own resume (B: release/v0.7.1, C: the V1 trainer): an uninterrupted 4-step run
    saving every 2 steps, and the same run killed after its step-2 save then relaunched in
    the same folder (resume_mode=auto). Steps 1-4 and the final weights must be
    bit-identical."""
    scenario = {"REALFW2_VERL_STEPS": "4", "REALFW2_VERL_SAVE_FREQ": "2"}
    main_run(url, run, token, f"{base}_whole", **scenario)
    main_run(url, run, token, f"{base}_cut", expect_rc=1, REALFW2_VERL_DIE_AFTER="2", **scenario)
    main_run(url, run, token, f"{base}_cut", fresh=False, **scenario)
    whole, whole_final = _steps(run / f"main_{base}_whole")
    cut, cut_final = _steps(run / f"main_{base}_cut")
    same = [s for s in (1, 2, 3, 4) if s in whole and s in cut and whole[s] == cut[s]]
    tag = "R" if base == "B" else f"R{base}"
    record(
        f"{tag}.V21 resume ({MAIN_RUNS[base][0].name}): steps 1-4 of the killed-and-relaunched "
        "run equal the uninterrupted run's (rewards and metrics, timing aside)",
        same == [1, 2, 3, 4],
        f"equal steps {same}; whole {sorted(whole)}, relaunched {sorted(cut)}",
    )
    record(
        f"{tag}.V22 resume: the final weights (log-probs of a fixed sequence) are bit-identical",
        whole_final is not None and whole_final == cut_final,
        f"{whole_final} vs {cut_final}",
    )


def main():
    url, run = sys.argv[1], Path(sys.argv[2])
    token = os.environ["REALFW2_MOCK_TOKEN"]
    run.mkdir(parents=True, exist_ok=True)
    probing = os.environ.get("REALFW2_SKIP_VERL_PROBES") != "1"
    if probing:
        probes(run)
    for tag in filter(None, os.environ.get("REALFW2_MAIN_RUNS", "A,B,R").split(",")):
        if tag == "R":
            resume_scenario(url, run, token)
        elif tag == "RC":
            resume_scenario(url, run, token, base="C")
        else:
            main_run(url, run, token, tag)
    if probing:
        probe_published_adapter(run, url, token)
        probe_replica(run, url, token)
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
