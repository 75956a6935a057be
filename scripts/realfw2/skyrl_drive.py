"""Drive the REAL SkyRL (NovaSky-AI/SkyRL@a9564572e) Arctic flow through the project's
documented selector, against the mock Cortex GS (reference backend).

    python skyrl_drive.py SERVICE_URL RUN_DIR      (token in $REALFW2_MOCK_TOKEN)

The orchestrator (this file, no args beyond those) runs the driver in a child process
(`--driver`), exactly as a user's `python -m skyrl.train.entrypoints.main_base ...`, then
checks what happened from the call trace (realfw2_trace, written by every process that
has ARCTIC_REALFW2_TRACE) and from the mock, and prints PASS/FAIL lines.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from skyrl_resume import auth_headers, resume_scenario  # R1-R5

HERE = Path(__file__).resolve().parent
RESULTS = []
ITERATIONS = 20  # trainer.epochs over a 2-prompt dataset at train_batch_size 2: one step each
FD_WARMUP_CALLS = 10  # descriptors after this many calls in the Ray task are the baseline
FD_SLACK = 8  # how far above that baseline the task's descriptors may go
# which Cortex service the mock plays: today's live one (default) or the proposed contract
TODAY = os.environ.get("REALFW2_SERVICE", "today") != "proposed"
# step 1's PPO invariants as each service reports them: old == current policy, so today's grpo
# answers an importance ratio of exactly 1 and a clip fraction of exactly 0; the proposed
# contract answers ppo_kl, pg_clipfrac_lower and kl_loss (the reference is the old policy) 0
STEP1_INVARIANTS = (
    {"importance_weight": 1.0, "clip_ratio": 0.0}
    if TODAY
    else {"ppo_kl": 0.0, "pg_clipfrac_lower": 0.0, "kl_loss": 0.0}
)


def record(name, ok, detail=""):
    RESULTS.append((name, bool(ok), detail))
    print(f"[{'PASS' if ok else 'FAIL'}] {name}: {detail}", flush=True)


def recipe(run: Path, cortex_file: Path, extra=()):
    """The user's command line; an entry of `extra` replaces the base entry of its key."""
    replaced = {entry.split("=", 1)[0] for entry in extra}
    base = [
        "trainer.override_entrypoint=arctic_rl.integrations.skyrl",
        f"arctic_rl.cortex_file={cortex_file}",
        f"trainer.policy.model.path={run / 'tiny-byte-lm'}",
        f"data.train_data=['{run / 'data' / 'train.parquet'}']",
        "data.val_data=[]",
        "trainer.arctic_rl.use_zorro=false",
        "trainer.arctic_rl.use_liger=false",
        "generator.n_samples_per_prompt=2",
        "trainer.train_batch_size=2",
        "trainer.policy_mini_batch_size=2",
        "trainer.max_prompt_length=64",
        "generator.sampling_params.max_generate_length=8",
        "trainer.placement.colocate_all=false",
        f"trainer.epochs={ITERATIONS}",
        "trainer.eval_interval=-1",
        "trainer.eval_before_train=false",
        "trainer.logger=console",
        "trainer.resume_mode=none",
        "trainer.project_name=realfw2",
        "trainer.run_name=skyrl",
        # no Prometheus scraping of Ray node endpoints, no dataloader worker processes (2 cores)
        "generator.inference_engine.enable_ray_prometheus_stats=false",
        "trainer.enable_ray_gpu_monitor=false",
        "data.dataloader.num_workers=0",
        f"trainer.ckpt_path={run / 'skyrl' / 'ckpt'}",
        f"trainer.export_path={run / 'skyrl' / 'export'}",
        # today's service's grpo has no KL term: its users turn SkyRL's KL loss off
        *(["trainer.algorithm.use_kl_loss=false"] if TODAY else []),
    ]
    return [e for e in base if e.split("=", 1)[0] not in replaced] + list(extra)


# --------------------------------------------------------------------------- driver
def driver(run: Path, cortex_file: Path, extra):
    """A user's SkyRL driver process. Ray is started first (local, 2 CPUs) while the
    environment holds no token at all, so the Ray task can only get it through the
    runtime_env SkyRL's entrypoint builds from ARCTIC_* variables."""
    token = os.environ.pop("REALFW2_MOCK_TOKEN")
    import ray

    # local Ray, 2 CPUs, every Ray component bound to loopback
    ray.init(
        num_cpus=2,
        num_gpus=0,
        include_dashboard=False,
        log_to_driver=True,
        _node_ip_address="127.0.0.1",
        _temp_dir=os.environ["REALFW2_RAY_DIR"],
    )
    os.environ["ARCTIC_CORTEX_PAT"] = token
    raylets = []
    for cmd in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmd.read_bytes().split(b"\0")
            if (
                argv
                and argv[0].endswith(b"/raylet")
                and os.environ["REALFW2_RAY_DIR"].encode() in b" ".join(argv)
            ):
                raylets.append(
                    (cmd.parent.name, token.encode() in (cmd.parent / "environ").read_bytes())
                )
        except OSError:
            pass
    import realfw2_trace

    realfw2_trace._emit({"call": "harness_fact", "raylets": raylets})
    from skyrl.train.entrypoints import main_base  # REAL

    sys.argv = ["skyrl.train.entrypoints.main_base", *recipe(run, cortex_file, extra)]
    main_base.main()  # REAL dispatcher -> arctic_rl.integrations.skyrl.main() -> SkyRL Arctic main()
    print("DRIVER: main_base.main() returned", flush=True)
    ray.shutdown()


# --------------------------------------------------------------------------- checks
def fd_check(recs, wpid):
    """S8: the Ray task's open descriptors, counted by the tracer after each client call
    and a full collection (SkyRL's dropped loops hold three each until it runs), stay
    within FD_SLACK of their count after the first FD_WARMUP_CALLS calls."""
    mine = [r for r in recs if r["pid"] == wpid and r["call"] != "create_arctic_rl_client"]
    fds = [r["fds_collected"] for r in mine]
    for key in ("fds", "fds_collected"):
        per_step = [r[key] for r in mine if r["call"] == "step"]
        print(f"Ray task descriptors after each step ({key}): {per_step}")
    base = fds[FD_WARMUP_CALLS - 1] if len(fds) > FD_WARMUP_CALLS else None
    peak = max(fds[FD_WARMUP_CALLS:], default=None)
    steps = sum(r["call"] == "step" for r in mine)
    record(
        f"S8 open descriptors in the Ray task stay flat over the run (at most +{FD_SLACK} after the first {FD_WARMUP_CALLS} calls, counted after a collection)",
        base is not None and steps >= ITERATIONS and peak - base <= FD_SLACK,
        f"{len(fds)} calls: {fds[0] if fds else None} after the first, {base} after call "
        f"{FD_WARMUP_CALLS}, at most {peak} after it, {fds[-1] if fds else None} at the end",
    )


def read_trace(path: Path):
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def job_state(url: str, token: str, job_id: str):
    import httpx

    r = httpx.get(f"{url}/{job_id}", headers=auth_headers(token), timeout=10)
    body = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
    return r.status_code, body.get("status") or body.get("state")


def negative_pat_name(run: Path, cortex_file: Path, url: str, token: str):
    """The README: the token's variable must start with ARCTIC_; the driver refuses
    another name before any job exists."""
    env = {**os.environ, "REALFW2_NEG_PAT": token}
    env.pop("ARCTIC_REALFW2_TRACE", None)
    code = (
        "import sys; from skyrl.train.entrypoints import main_base\n"
        f"sys.argv = ['main_base'] + {recipe(run, cortex_file, ['arctic_rl.cortex.pat_env=REALFW2_NEG_PAT'])!r}\n"
        "try:\n    main_base.main()\nexcept Exception as e:\n    print('RAISED', type(e).__name__, str(e)[:300])\n"
    )
    before = job_count(url, token)
    p = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=240
    )
    after = job_count(url, token)
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("RAISED")), p.stderr[-300:])
    ok = line.startswith("RAISED ConfigError") and "ARCTIC_" in line and before == after
    record(
        "S6 pat_env without ARCTIC_ prefix is refused on the driver, before any job",
        ok,
        f"{line[:220]} (jobs before {before}, after {after})",
    )


def ray_ips(ray_dir: Path):
    import re

    ips = set()
    for f in ray_dir.glob("session_*/logs/**/*"):
        if f.is_file():
            ips |= set(
                re.findall(r"\b(\d{1,3}(?:\.\d{1,3}){3}):\d+", f.read_text(errors="replace"))
            )
    return ips


def job_count(url, token):
    import httpx

    r = httpx.get(url, headers=auth_headers(token), timeout=10)
    r.raise_for_status()
    return len(r.json()["jobs"])


def driver_env(run, tag, extra_env):
    """The driver's environment, its trace file and its Ray dir fresh."""
    trace = run / f"skyrl_trace_{tag}.jsonl"
    trace.unlink(missing_ok=True)
    env = {
        **os.environ,
        "ARCTIC_REALFW2_TRACE": str(trace),
        "ARCTIC_RL_SCORING_WORKERS": "1",
        "ARCTIC_REALFW2_ENV": "1",
        "RAY_DEDUP_LOGS": "0",
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # Ray picks 127.0.0.1 as the node IP
        "TOKENIZERS_PARALLELISM": "false",
        "REALFW2_RAY_DIR": str(run / f"ray_{tag}"),
        **extra_env,
    }
    shutil.rmtree(run / f"ray_{tag}", ignore_errors=True)
    env.pop("ARCTIC_RL_BACKEND", None)  # nothing selected up front: the entrypoint selects Cortex
    return env, trace


def kill_ray(ray_dir: str):
    """SIGKILL the rest of a killed driver's Ray (raylet, workers, the Ray task): they run
    in sessions of their own, and carry the driver's REALFW2_RAY_DIR in their environment."""
    mark = f"REALFW2_RAY_DIR={ray_dir}".encode()
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if mark in environ.read_bytes().split(b"\0"):
                os.kill(int(environ.parent.name), signal.SIGKILL)
        except (OSError, ValueError):
            pass


def run_driver(run, cortex_file, tag, extra_env, extra=(), kill_when=None):
    """The driver to its end, or SIGKILLed with its whole process group, Ray included, as
    soon as `kill_when()` is true."""
    env, trace = driver_env(run, tag, extra_env)
    t0 = time.time()
    log = run / f"skyrl_driver_{tag}.log"
    cmd = [sys.executable, __file__, "--driver", str(run), str(cortex_file), *extra]
    with open(log, "w") as fh:
        p = subprocess.Popen(
            cmd, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            while kill_when is not None and p.poll() is None and not kill_when():
                if time.time() - t0 > 480:
                    break
                time.sleep(0.05)
            if kill_when is not None and p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                kill_ray(env["REALFW2_RAY_DIR"])
            p.wait(timeout=max(1, 480 - (time.time() - t0)))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return p.returncode, time.time() - t0, log, read_trace(trace)


def main():
    url, run = sys.argv[1], Path(sys.argv[2])
    token = os.environ["REALFW2_MOCK_TOKEN"]
    run.mkdir(parents=True, exist_ok=True)
    cortex_file = run / "cortex.yaml"
    cortex_file.write_text(  # the README's cortex.yaml, pointed at the mock (no token in it)
        "cortex:\n"
        f"  base_url: {url}\n"
        "  database: RL_DB\n  schema: PUBLIC\n  pat_env: ARCTIC_CORTEX_PAT\n"
        "  long_poll_s: 1\n  progress: false\n"
    )
    rc, dt, log, recs = run_driver(run, cortex_file, "a", {})
    tail = log.read_text().splitlines()
    done = any(
        "Training done!" in f.read_text(errors="replace")
        for f in (run / "ray_a").glob("session_*/logs/worker-*")
        if f.is_file()
    )
    record(
        "S1 driver: main_base.main() with trainer.override_entrypoint=arctic_rl.integrations.skyrl exits 0 "
        "(train() reaches its end: finalize_pending_saves supplied by the product)",
        rc == 0 and done,
        f"rc={rc} in {dt:.0f}s, 'Training done!' logged: {done} (log {log})",
    )
    if rc != 0:
        err = [ln for ln in tail if "Error" in ln or "error" in ln][-3:]
        print(
            "---- driver log, last error lines ----\n"
            + "\n".join(x[:400] for x in err)
            + "\n--------------------------------------"
        )
    driver_pid = next((r["pid"] for r in recs if r["call"] == "create_arctic_rl_client"), None)
    creates = [r for r in recs if r["call"] == "create_arctic_rl_client"]
    drv = [r for r in creates if r["pid"] == driver_pid]
    wrk = [r for r in creates if r["pid"] != driver_pid]
    job = drv[0]["job_id"] if drv else None
    record(
        "S2 driver builds the client once: backend 'local' served from Cortex (LegacyCortexClient)",
        len(drv) == 1
        and drv[0]["client"] == "LegacyCortexClient"
        and drv[0]["config"]["backend"] == "local",
        json.dumps(drv[0] if drv else None)[:400],
    )
    rc = [r for r in recs if r["call"] == "reconnect_config" and r["pid"] == driver_pid]
    record(
        "S3 reconnect_config() carries the job, not the token",
        bool(rc)
        and rc[0]["result"].get("job_ids")
        and not rc[0]["result"].get("token_value_in_config"),
        json.dumps(rc[0]["result"] if rc else None)[:300],
    )
    w = wrk[0] if wrk else None
    record(
        "S4 Ray task (fresh process) reconnects with the pickled reconnect_config; token via forwarded ARCTIC_CORTEX_PAT",
        bool(w)
        and w["job_id"] == job
        and driver_pid not in (w["pid"], w["ppid"])
        and w["env"]["pat_present"]
        and w["env"]["ARCTIC_RL_BACKEND"] == "cortex"
        and w["hook_finder"]
        and not w["config"].get("token_value_in_config")
        and w["config"]["job_ids"],
        json.dumps(w)[:500]
        if w
        else f"no client created outside the driver (pid {driver_pid}); trace {len(recs)} lines",
    )
    wpid = w["pid"] if w else None
    calls = [r["call"] for r in recs if r["pid"] == wpid and r["call"] != "create_arctic_rl_client"]
    seq = " ".join(calls)
    print("worker call sequence:", seq)
    need = dict.fromkeys(("generate", "fwd_no_grad", "fwd_bwd", "step", "sync_weights"), ITERATIONS)
    got = {k: calls.count(k) for k in need}
    record(
        f"S5 real RayPPOTrainer.train() -> Arctic overrides: {ITERATIONS} iterations of generate/fwd_no_grad/fwd_bwd/step/sync_weights in the Ray task",
        all(got[k] >= v for k, v in need.items()),
        f"counts {got}",
    )
    fd_check(recs, wpid)
    grads = []
    for r in recs:
        if r["pid"] == wpid and r["call"] in ("fwd_bwd", "step"):
            print(f"  {r['call']} -> {json.dumps(r['result'])[:300]}")
            if r["call"] == "step":
                grads.append(r["result"].get("grad_norm"))
    fb = [r["result"] for r in recs if r["pid"] == wpid and r["call"] == "fwd_bwd"]
    m1 = (fb[0].get("metrics") or {}) if fb else {}
    invariants = {k: m1.get(k) for k in STEP1_INVARIANTS}
    want = ", ".join(f"{k} exactly {v:g}" for k, v in STEP1_INVARIANTS.items())
    record(
        f"S5c step1 PPO invariants (old == current policy): {want}",
        bool(fb) and invariants == STEP1_INVARIANTS,
        f"step1 fwd_bwd metrics {invariants}; all keys {sorted(m1)}",
    )
    record(
        "S5b GRPO advantages from SkyRL's real compute_advantages_and_returns reach fwd_bwd (step grad_norm > 0)",
        any(isinstance(g, (int, float)) and g > 0 for g in grads),
        f"step grad_norms {grads}",
    )
    facts = [r for r in recs if r["call"] == "harness_fact"]
    raylets = facts[0]["raylets"] if facts else []
    record(
        "H3 (harness) the raylet (parent of Ray's workers) never held the token: only SkyRL's ARCTIC_* runtime_env forwarding delivers it",
        bool(raylets) and not any(has for _, has in raylets),
        f"raylet pid, token in its environ: {raylets}",
    )
    ips = ray_ips(run / "ray_a")
    record(
        "H1 (harness) Ray bound to loopback only",
        ips == {"127.0.0.1"},
        f"addresses in Ray session logs: {sorted(ips)}",
    )
    if job:
        code, state = job_state(url, token, job)
        record(
            "S7 the driver's job is cancelled when the driver process ends (cancel_on_shutdown default)",
            str(state).lower() in ("cancelled", "canceled", "cancelling"),
            f"GET job -> {code} status={state}",
        )
    negative_pat_name(run, cortex_file, url, token)
    resume_scenario(url, token, run, cortex_file, record, run_driver)
    print("\n==== SUMMARY (skyrl) ====")
    for name, ok, _ in RESULTS:
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    return 0 if all(ok for _, ok, _ in RESULTS) else 1


if __name__ == "__main__":
    if sys.argv[1] == "--driver":
        driver(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit(main())
