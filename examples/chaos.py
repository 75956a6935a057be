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
import secrets
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arctic_rl_mock.settings import Settings

from devtools.faults import Fault, FaultProxy
from devtools.mock_process import MOCK_TOKEN_ENV, PAT_ENV, stable_port, stop_process, wait_ready
from examples.demo_report import IterationStats
from examples.grpo_demo import DemoSettings, build_batch, train

REPO = Path(__file__).resolve().parent.parent
PREFIX = Settings(state_dir=Path(".")).prefix
STARTUP_TIMEOUT_S = 120.0
# What the demo's loop sends per iteration: generate, the policy's forward,
# forward-backward, step, sync-weights.
REQUESTS_PER_ITERATION = 5
# Where random faults land: the loop's routes and its polls.
FAULT_MARKERS = (
    b"/generate",
    b"/forward-no-grad",
    b"/forward-backward",
    b"/step",
    b"/sync-weights",
    b"/requests/",
)
PROBE_RESPONSE = list(b"aaab")


@dataclass(frozen=True)
class ChaosSettings:
    """One chaos run's knobs; the defaults take well under a minute on two cores."""

    seed: int = 1
    iterations: int = 6
    kills: int = 3
    faults: int = 12
    driver_kills: int = 2
    # How long each request stays ``running`` on the mock: a wide window for the kills.
    request_latency_s: float = 0.05
    backend: str = "reference"

    @property
    def demo(self) -> DemoSettings:
        return DemoSettings(iterations=self.iterations, group_size=2, max_tokens=4, seed=7)


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


@dataclass
class RestartableMock:
    """``python -m arctic_rl_mock`` on a fixed port and state dir, killed and restarted at will."""

    state_dir: Path
    settings: ChaosSettings
    port: int = field(default_factory=stable_port)
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24), repr=False)
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PREFIX}"

    @property
    def log_path(self) -> Path:
        return self.state_dir.parent / "mock.log"

    def start(self) -> None:
        env = {"OMP_NUM_THREADS": "1", **os.environ, MOCK_TOKEN_ENV: self.token}
        cmd = [
            sys.executable, "-m", "arctic_rl_mock", "--port", str(self.port),
            "--backend", self.settings.backend, "--state-dir", str(self.state_dir),
            "--request-latency", str(self.settings.request_latency_s), "--log-level", "warning",
            "--service", "proposed",
        ]  # fmt: skip
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        wait_ready(self.process, self.base_url, self.token, STARTUP_TIMEOUT_S)

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, as when a machine is preempted."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            stop_process(self.process)

    def requests(self) -> tuple[int, int]:
        """(requests stored, requests running now), read from the store read-only."""
        uri = f"file:{self.state_dir / 'mock.sqlite3'}?mode=ro"
        try:
            db = sqlite3.connect(uri, uri=True, timeout=1)
            try:
                total, running = db.execute(
                    "SELECT COUNT(*), COALESCE(SUM(status = 'running'), 0) FROM requests"
                ).fetchone()
            finally:
                db.close()
        except sqlite3.Error:  # not created yet, or busy: ask again
            return 0, 0
        return int(total), int(running)


class Killer(threading.Thread):
    """SIGKILLs the mock once it has stored each target count of requests and one of
    them is running; restarts it on the same state dir and port each time."""

    def __init__(self, mock: RestartableMock, targets: list[int]) -> None:
        super().__init__(name="chaos-killer", daemon=True)
        self.mock = mock
        self.targets = targets
        self.kills = 0
        self.while_running = 0
        self.failure: BaseException | None = None
        self._done = threading.Event()

    def run(self) -> None:
        try:
            for target in self.targets:
                if not self._wait_for(target):
                    return
                self.mock.kill()
                self.kills += 1
                self.mock.start()
        except BaseException as exc:  # reported by finish(): a thread cannot raise
            self.failure = exc

    def _wait_for(self, target: int) -> bool:
        while not self._done.is_set():
            total, running = self.mock.requests()
            if total >= target and running:
                self.while_running += 1
                return True
            time.sleep(0.005)
        return False

    def finish(self) -> None:
        self._done.set()
        self.join()
        if self.failure is not None:
            raise RuntimeError("restarting the mock failed") from self.failure


class ProxyThread:
    """A :class:`FaultProxy` serving from its own thread and event loop."""

    def __init__(self, target_port: int, faults: list[Fault]) -> None:
        self.proxy = FaultProxy(target_port, *faults)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.proxy.__aenter__(), self._loop).result(10)
        return self.proxy

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.proxy.__aexit__(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


def random_faults(rng: random.Random, count: int, iterations: int) -> list[Fault]:
    """``count`` one-shot faults on random routes, spread over the iterations."""
    faults = []
    for _ in range(count):
        marker = rng.choice(FAULT_MARKERS)
        action = rng.choice(("cut_request", "cut_response", "status"))
        faults.append(
            Fault(
                marker,
                action,
                at=rng.choice((0, 40, 1500)),
                status=rng.choice((503, 429)),
                retry_after=0,
                skip=rng.randrange(iterations * (4 if marker == b"/requests/" else 1)),
            )
        )
    return faults


def kill_targets(rng: random.Random, settings: ChaosSettings) -> list[int]:
    """Sorted request counts at which to kill, inside the loop's requests."""
    last = settings.iterations * REQUESTS_PER_ITERATION - 1
    return sorted(rng.sample(range(2, last), settings.kills))


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
def mock_in(workdir: Path, settings: ChaosSettings) -> Iterator[RestartableMock]:
    """A started mock on a fresh state dir under ``workdir``, its token in ``PAT_ENV``."""
    (workdir / "state").mkdir(parents=True)
    mock = RestartableMock(workdir / "state", settings)
    mock.start()
    os.environ[PAT_ENV] = mock.token
    try:
        yield mock
    finally:
        os.environ.pop(PAT_ENV, None)
        mock.stop()


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
