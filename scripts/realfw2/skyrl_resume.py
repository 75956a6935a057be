"""SkyRL's real trainer resuming on Cortex (R1-R5 of skyrl_drive.py): the same recipe
with `trainer.resume_mode=latest` and checkpointing on, run uninterrupted, run again and
SIGKILLed (driver and Ray) once a mid-epoch save is recorded, and relaunched; then the
per-step results, the final checkpoint's tensors and the service's checkpoints compared.
"""

import json
import shutil
import signal
from pathlib import Path

RESUME_EPOCHS = 3  # two steps each: one prompt a step
RESUME_STEPS = 6
RESUME_KILL_AFTER = 3  # the save after which the interrupted run is killed: mid-epoch
RESUME_KEEP = 2


def auth_headers(token):
    """The headers of a call with the mock's PAT."""
    return {
        "Authorization": f"Bearer {token}",
        "X-Snowflake-Authorization-Token-Type": "PROGRAMMATIC_ACCESS_TOKEN",
    }


def resume_recipe(run: Path, name: str):
    """The same recipe with SkyRL's own resume and checkpointing switched on."""
    out = run / "skyrl_resume" / name
    return [
        "trainer.resume_mode=latest",
        f"trainer.epochs={RESUME_EPOCHS}",
        "trainer.train_batch_size=1",
        "trainer.policy_mini_batch_size=1",
        "trainer.ckpt_interval=3",
        f"trainer.max_ckpts_to_keep={RESUME_KEEP}",
        f"trainer.ckpt_path={out / 'ckpt'}",
        f"trainer.export_path={out / 'export'}",
    ]


def task_pid(recs):
    """The Ray task's pid: the process that made a client after the driver did."""
    creates = [r["pid"] for r in recs if r["call"] == "create_arctic_rl_client"]
    return next((pid for pid in creates if pid != creates[0]), None)


def per_step(recs, pid=None):
    """(fwd_bwd, step) results per training step of the Ray task(s), timing left out."""

    def untimed(value):  # the job's id left out too: each run has its own job
        if isinstance(value, dict):
            return {
                k: untimed(v)
                for k, v in value.items()
                if not str(k).startswith("timing") and k != "job_id"
            }
        return value

    calls = [
        r for r in recs if r["call"] in ("fwd_bwd", "step") and (pid is None or r["pid"] == pid)
    ]
    forwards = [untimed(r["result"]) for r in calls if r["call"] == "fwd_bwd"]
    steps = [untimed(r["result"]) for r in calls if r["call"] == "step"]
    return list(zip(forwards, steps, strict=False))  # a killed run may end between them


def final_checkpoint(url, token, ckpt: Path):
    """SHA-256 of the tensors in each file of the last save's Cortex checkpoint (exported
    from the mock; the files' metadata, such as the sampler's weight version, left out)."""
    import hashlib

    import httpx
    import torch
    from safetensors.torch import load

    last = int((ckpt / "latest_ckpt_global_step.txt").read_text())
    identity = json.loads(
        (ckpt / f"global_step_{last}" / "policy" / "cortex_checkpoint.json").read_text()
    )
    job, checkpoint = identity["job_id"], identity["checkpoint_id"]
    r = httpx.post(
        f"{url}/{job}/checkpoints/{checkpoint}:export", headers=auth_headers(token), timeout=30
    )
    r.raise_for_status()
    digests = {}
    for f in r.json()["files"]:
        tensors = load(httpx.get(f["url"], timeout=60).content)
        digest = hashlib.sha256()
        for name in sorted(tensors):
            digest.update(
                name.encode()
                + tensors[name].contiguous().view(-1).view(torch.uint8).numpy().tobytes()
            )
        digests[f["filename"]] = digest.hexdigest()[:16]
    return identity, digests


def listed(url, token, job_id):
    import httpx

    r = httpx.get(f"{url}/{job_id}/checkpoints", headers=auth_headers(token), timeout=10)
    r.raise_for_status()
    return sorted(c["checkpoint_id"] for c in r.json()["checkpoints"])


def saved(latest: Path) -> bool:
    """Whether SkyRL's latest-checkpoint file names the save the run is killed after."""
    try:
        return latest.read_text().strip() == str(RESUME_KILL_AFTER)
    except OSError:
        return False


def resume_scenario(url, token, run, cortex_file, record, run_driver):
    """R1-R5: SkyRL's real trainer with resume_mode=latest, killed (SIGKILL, driver and
    Ray) after a save, relaunched, against the same recipe run without interruption
    (`record` and `run_driver`: those of the running skyrl_drive)."""
    shutil.rmtree(run / "skyrl_resume", ignore_errors=True)  # a rerun starts fresh, not resumed
    rc_w, dt_w, log_w, recs_w = run_driver(
        run, cortex_file, "resume_whole", {}, resume_recipe(run, "whole")
    )
    broken = resume_recipe(run, "broken")
    latest = run / "skyrl_resume" / "broken" / "ckpt" / "latest_ckpt_global_step.txt"
    recorded_at_kill = (
        latest.parent / f"global_step_{RESUME_KILL_AFTER}" / "policy" / "cortex_checkpoint.json"
    )
    rc_k, dt_k, _, recs_k = run_driver(
        run, cortex_file, "resume_killed", {}, broken, kill_when=lambda: saved(latest)
    )

    killed_at = int(latest.read_text()) if latest.exists() else None
    # the killed run's job, read before the relaunch's retention removes that folder
    killed_job = (
        json.loads(recorded_at_kill.read_text())["job_id"] if recorded_at_kill.exists() else None
    )
    rc_r, dt_r, log_r, recs_r = run_driver(run, cortex_file, "resume_relaunch", {}, broken)
    record(
        f"R1 resume_mode=latest: a run killed with SIGKILL after its step-{RESUME_KILL_AFTER} save "
        "relaunches and finishes; the uninterrupted run finishes too",
        rc_w == 0 and rc_k == -signal.SIGKILL and killed_at == RESUME_KILL_AFTER and rc_r == 0,
        f"uninterrupted rc={rc_w} in {dt_w:.0f}s; killed rc={rc_k} after {dt_k:.0f}s with latest "
        f"save {killed_at}; relaunch rc={rc_r} in {dt_r:.0f}s ({log_w}, {log_r})",
    )
    whole = per_step(recs_w, task_pid(recs_w))
    resumed = per_step(recs_k, task_pid(recs_k))[:RESUME_KILL_AFTER] + per_step(
        recs_r, task_pid(recs_r)
    )
    loads = [r for r in recs_r if r["call"] == "load_checkpoint"]
    record(
        "R2 the relaunch restores the Cortex checkpoint SkyRL's folder records (through the "
        "dispatch's load) and the service's steps carry on from it",
        len(loads) == 1
        and [s["global_steps"] for _, s in per_step(recs_r, task_pid(recs_r))]
        == list(range(RESUME_KILL_AFTER + 1, RESUME_STEPS + 1)),
        f"load calls {[call['args'] for call in loads]}, relaunch's steps "
        f"{[s.get('global_steps') for _, s in per_step(recs_r, task_pid(recs_r))]}",
    )
    record(
        f"R3 per-step fwd_bwd and step metrics (timing aside) of killed + resumed equal the "
        f"uninterrupted run's, all {RESUME_STEPS} steps",
        len(whole) == RESUME_STEPS and resumed == whole,
        f"{len(resumed)} vs {len(whole)} steps; first difference at "
        f"{next((i + 1 for i, (a, b) in enumerate(zip(resumed, whole, strict=False)) if a != b), None)}",
    )
    try:
        (id_w, files_w) = final_checkpoint(url, token, run / "skyrl_resume" / "whole" / "ckpt")
        (id_r, files_r) = final_checkpoint(url, token, run / "skyrl_resume" / "broken" / "ckpt")
        same = files_w == files_r and bool(files_w) and id_w["job_id"] != id_r["job_id"]
        detail = f"{files_r} (resumed, job {id_r['job_id']}) / {files_w} (uninterrupted)"
        jobs = (id_w["job_id"], killed_job, id_r["job_id"])
        kept = {job: listed(url, token, job) for job in jobs}
        recorded = {job: [] for job in jobs}
        for name in ("whole", "broken"):
            ckpt = run / "skyrl_resume" / name / "ckpt"
            for path in ckpt.glob("global_step_*/policy/cortex_checkpoint.json"):
                identity = json.loads(path.read_text())
                recorded.setdefault(identity["job_id"], []).append(identity["checkpoint_id"])
        recorded = {job: sorted(ids) for job, ids in recorded.items()}
    except Exception as exc:  # a missing identity or export: the check fails, with why
        same, detail, kept, recorded = False, f"{type(exc).__name__}: {exc}", {}, None
    record(
        "R4 final weights and optimizer state bit-identical (exported checkpoint files)",
        same,
        detail,
    )
    record(
        f"R5 SkyRL's retention (max_ckpts_to_keep={RESUME_KEEP}) deletes the service checkpoints "
        "of the folders it removes",
        kept == recorded and len(kept) == 3,
        f"listed per job (uninterrupted, killed, resumed): {list(kept.values())}; recorded "
        f"by the folders SkyRL kept: {list((recorded or {}).values())}",
    )
