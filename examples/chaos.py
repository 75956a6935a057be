"""A chaos run: the demo's GRPO loop through random faults and SIGKILLs, against a clean twin.

``make chaos`` runs this file. It trains the demo's loop (``examples/grpo_demo.py``,
reference backend) twice with the same seed, each time against a fresh mock subprocess:

- once under chaos: the client reaches the mock through a fault proxy that cuts uploads
  and answers and sheds load with 503/429 at random requests (``devtools/faults.py``),
  while the mock itself is killed with SIGKILL at random moments, each time while a
  request runs, and restarted on the same state directory and port; and the loop runs in
  a driver process of its own that saves after each iteration through the SDK
  (``save_checkpoint(folder)``) and is itself killed with SIGKILL after random saves,
  then relaunched: it resumes from its last save (``load_checkpoint(folder)``, into the
  new job it creates) as a preempted training driver would;
- once clean.

Both mocks serve the contract's proposals (``--service proposed``): the run's exactness
rests on their idempotency (chunk groups, ``Idempotency-Key``), which today's service
lacks. It then prints both runs side by side (per iteration: reward, loss, grad_norm, gap and
the first sample) and whether the metrics, the samples and the final weights'
fingerprint (the SHA-256 of exact log-probabilities of a fixed probe, plus the saved
checkpoint's step) are bit-identical. Exit status 0 only when they are. Run from the
repository root (``python -m examples.chaos``); ``--help`` lists the knobs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import logging
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from devtools.mock_process import PAT_ENV, MockProcess, pat_exported
from examples.chaos_disruptions import (
    REPO,
    ChaosSettings,
    Killer,
    ProxyThread,
    kill_targets,
    random_faults,
    restartable_mock,
)
from examples.demo_report import IterationStats
from examples.grpo_demo import DemoSettings, build_batch, train

PROBE_RESPONSE = list(b"aaab")


@dataclass
class Outcome:
    """What one run produced, and what it went through."""

    rows: list[tuple[str, ...]]
    fingerprint: str
    kills: int = 0
    kills_while_running: int = 0
    faults_hit: int = 0
    driver_kills: int = 0

    def same_as(self, other: Outcome) -> bool:
        """Bit-identical metrics, samples and final weights."""
        return self.rows == other.rows and self.fingerprint == other.fingerprint


def row(stats: IterationStats) -> tuple[str, ...]:
    """An iteration's metrics and sample, exactly (``repr`` keeps every bit, and NaN)."""
    numbers = (stats.reward, stats.loss, stats.grad_norm, stats.gap)
    return (str(stats.iteration), *(repr(x) for x in numbers), stats.sample)


def client_config(base_url: str, settings: ChaosSettings) -> Any:
    """The demo's config (backend Cortex), reaching ``base_url``."""
    from arctic_rl import ArcticRLClientConfig, CortexConfig

    demo = settings.demo
    return ArcticRLClientConfig(
        model_name="tiny-byte-lm",
        backend="cortex",
        seed=demo.seed,
        training_gpus=1,
        sampling_gpus=1,
        training_config={"optimizer": {"lr": demo.learning_rate}, "max_length": 64},
        # The mock serves the proposed Idempotency-Key: a call whose answer a kill cut is
        # sent again under its key (the retries this run shows to run once).
        cortex=CortexConfig(
            base_url=base_url,
            pat_env=PAT_ENV,
            progress=False,
            long_poll_s=2,
            service="proposed",
        ),
    )


async def fingerprint(client: Any, settings: DemoSettings) -> str:
    """SHA-256 of the policy's exact log-probabilities of a fixed probe, and the step the
    saved checkpoint records."""
    prompts = [list(b"Say it: ")] * 2
    tensors = build_batch(prompts, [PROBE_RESPONSE] * 2)
    batch = {"batch": tensors, "meta": {}, "processing": {"post": ["logprobs"]}}
    logprobs = (await client.fwd_no_grad(batch, reference_model=False))["batch"]["logprobs"]
    checkpoint = await client.save_checkpoint()
    digest = hashlib.sha256(logprobs.float().contiguous().numpy().tobytes()).hexdigest()
    return f"{digest[:16]} at {checkpoint.get('checkpoint_id')}"


def skyrl_client(base_url: str, settings: ChaosSettings) -> Any:
    """The legacy client on SkyRL's path: the loop makes SkyRL's calls (its answers go back
    as `old_log_probs`), whose layout convention it needs (docs/layout.md)."""
    from arctic_rl import create_arctic_rl_client
    from arctic_rl.integrations.skyrl import use_cortex

    config = client_config(base_url, settings)
    use_cortex(config.cortex)
    return create_arctic_rl_client(config)


def train_once(base_url: str, settings: ChaosSettings) -> Outcome:
    """The demo's loop on a fresh job, then the fingerprint of its final weights."""
    client = skyrl_client(base_url, settings)

    async def session() -> Outcome:
        history = await train(client, settings.demo)
        return Outcome([row(s) for s in history], await fingerprint(client, settings.demo))

    try:
        return asyncio.run(session())
    finally:
        client.shutdown()


# -- the driver process (examples/chaos_driver.py), killed after random saves ------------

LATEST = "latest"  # the last iteration whose save finished, as a training driver records it


def last_saved(run_dir: Path) -> int:
    """The iteration of the driver's last finished save (0: none yet)."""
    path = run_dir / LATEST
    return int(path.read_text()) if path.exists() else 0


def driver_kill_targets(rng: random.Random, settings: ChaosSettings) -> list[int]:
    """Sorted iterations after whose save the driver is killed."""
    return sorted(rng.sample(range(1, settings.iterations), settings.driver_kills))


def run_driver(
    workdir: Path, base_url: str, settings: ChaosSettings, targets: list[int]
) -> Outcome:
    """Launch the driver; SIGKILL it once its last save reaches each target, and relaunch
    it; return what its last launch reports and how many times it was killed."""
    run_dir = workdir / "run"
    run_dir.mkdir()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [
        sys.executable, "-m", "examples.chaos_driver", str(run_dir), base_url,
        "--seed", str(settings.seed), "--iterations", str(settings.iterations),
    ]  # fmt: skip
    kills = 0
    with (workdir / "driver.log").open("ab") as log:
        for target in [*targets, None]:
            driver = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
            while target is not None and driver.poll() is None and last_saved(run_dir) < target:
                time.sleep(0.005)
            if target is not None and driver.poll() is None:
                driver.send_signal(signal.SIGKILL)  # right after a save, as a preemption
                kills += 1
            if driver.wait() not in (0, -signal.SIGKILL):
                tail = (workdir / "driver.log").read_text(errors="replace")[-3000:]
                raise RuntimeError(f"the driver failed (exit {driver.returncode}):\n{tail}")
    outcome = json.loads((run_dir / "outcome.json").read_text())
    rows = [tuple(r) for r in outcome["rows"]]
    return Outcome(rows, outcome["fingerprint"], driver_kills=kills)


@contextlib.contextmanager
def mock_in(workdir: Path, settings: ChaosSettings) -> Iterator[MockProcess]:
    """A started mock on a fresh state dir under ``workdir``, its token in ``PAT_ENV``."""
    workdir.mkdir(parents=True, exist_ok=True)
    mock = restartable_mock(workdir / "state", settings)
    with mock, pat_exported(mock.token):
        yield mock


def run(workdir: Path, settings: ChaosSettings, *, chaos: bool) -> Outcome:
    """One run under chaos (``settings.kills`` kills, ``settings.faults`` faults) or clean."""
    rng = random.Random(settings.seed)
    with mock_in(workdir, settings) as mock:
        if not chaos:
            return train_once(mock.base_url, settings)
        faults = random_faults(rng, settings.faults, settings.iterations)
        killer = Killer(mock, kill_targets(rng, settings))
        targets = driver_kill_targets(rng, settings)
        with ProxyThread(mock.port, faults) as proxy:
            killer.start()
            try:
                url = proxy.url(mock.base_url, mock.port)
                outcome = run_driver(workdir, url, settings, targets)
            finally:
                killer.finish()
        return replace(
            outcome,
            kills=killer.kills,
            kills_while_running=killer.while_running,
            faults_hit=proxy.hits,
        )


def report(chaotic: Outcome, clean: Outcome) -> str:
    """Both runs side by side, then the verdict."""
    lines = [f"{'iter':>4}  {'chaos: reward  loss  grad_norm':<52}  clean: the same"]
    for ours, theirs in zip(chaotic.rows, clean.rows, strict=False):
        mark = "==" if ours == theirs else "!="
        lines.append(f"{ours[0]:>4}  {' '.join(ours[1:4]):<52}  {mark}  {' '.join(theirs[1:4])}")
    lines.append(f"final weights: {chaotic.fingerprint} (chaos) / {clean.fingerprint} (clean)")
    lines.append(
        f"chaos: {chaotic.kills} SIGKILLs of the mock ({chaotic.kills_while_running} while a "
        f"request ran), {chaotic.faults_hit} network faults, {chaotic.driver_kills} SIGKILLs "
        f"of the driver (each relaunch resumed from its last save)"
    )
    same = "bit-identical" if chaotic.same_as(clean) else "DIFFERENT"
    lines.append(f"metrics, samples and final weights: {same}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run chaos then clean with the same seed; 0 only when they are bit-identical."""
    defaults = ChaosSettings()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--iterations", type=int, default=defaults.iterations)
    parser.add_argument("--kills", type=int, default=defaults.kills)
    parser.add_argument("--faults", type=int, default=defaults.faults)
    parser.add_argument("--driver-kills", type=int, default=defaults.driver_kills)
    args = parser.parse_args(argv)
    logging.getLogger("stamina").setLevel(logging.ERROR)  # a line per retry: the point here
    settings = ChaosSettings(
        seed=args.seed,
        iterations=args.iterations,
        kills=args.kills,
        faults=args.faults,
        driver_kills=args.driver_kills,
    )
    with tempfile.TemporaryDirectory(prefix="arctic-rl-chaos-") as tmp:
        plan = (
            f"{settings.kills} kills, {settings.faults} faults, {settings.driver_kills} driver "
            f"kills, {settings.iterations} iterations"
        )
        print(f"chaos run (seed {settings.seed}): {plan} ...", flush=True)
        chaotic = run(Path(tmp) / "chaos", settings, chaos=True)
        print("clean run, same seed ...", flush=True)
        clean = run(Path(tmp) / "clean", settings, chaos=False)
    print(report(chaotic, clean))
    return 0 if chaotic.same_as(clean) else 1


if __name__ == "__main__":
    raise SystemExit(main())
