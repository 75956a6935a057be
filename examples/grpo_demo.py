"""GRPO against the mock Cortex GS, through the same legacy client SkyRL uses.

``make demo`` runs this file. It starts the mock (reference backend: a tiny byte-level
LM that really trains) on 127.0.0.1 as a subprocess with a fresh state directory and a
random token handed over through the environment, then trains the model to emit a
target byte: the reward of a completion is the share of its tokens equal to that byte.
It reaches the client the way SkyRL does: Cortex selected with the mock's settings
(``arctic_rl.integrations.skyrl.use_cortex``, what ``main()`` of that entrypoint does),
then ``from arctic_platform.rl import ArcticRLClientConfig, create_arctic_rl_client``, a
config built with backend "local" and comm_protocol "ray", and one factory call. Each
iteration makes SkyRL's calls in SkyRL's order (generate, the policy's forward,
forward-backward, step, sync-weights), and it saves a checkpoint at the end. The mock plays
today's service, so the run is what today's service offers: GRPO without a KL term (its
grpo has none, so no reference forward either), the client lowering SkyRL's requests.

Each row also shows the sampler/trainer gap: for the sampled tokens, the log-probability
the sampler gave minus the one the trainer's forward gives (the integrators' health check).

It prints a progress bar and one table row per iteration, writes a plot of reward, loss
and where each iteration's time went (the calls' ``timing/*`` figures), and exits
non-zero when the final reward is not clearly above the first. This file is the training
loop and reads top to bottom; starting and stopping the mock is
``devtools/mock_process.py``'s, the table, plot and verdict ``examples/demo_report.py``'s.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from arctic_rl import CortexConfig
from arctic_rl.integrations.skyrl import use_cortex

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the mock lives in the checkout, not in the installed package
from devtools.mock_process import PAT_ENV, running_mock  # noqa: E402
from examples.demo_report import (  # noqa: E402
    GAP_BOUND,
    HEADER,
    IterationStats,
    add_timing,
    gap_healthy,
    learned,
    plot,
    printable,
    progress_bar,
    smoothed,
    table_row,
)

PROMPTS = ("Say it: ", "Again: ", "Once more: ", "Go on: ")
TARGET = "a"
PAD_ID = 0
EOS_ID = 256  # the reference backend's end-of-sequence id (bytes are 0..255)


@dataclass(frozen=True)
class DemoSettings:
    """Knobs of one run; the defaults learn visibly in well under two minutes on 2 cores."""

    iterations: int = 50
    group_size: int = 8
    max_tokens: int = 12
    learning_rate: float = 3e-3
    seed: int = 7
    target: str = TARGET


# -- the client -------------------------------------------------------------------------


def cortex_settings(base_url: str, pat_env: str = PAT_ENV) -> CortexConfig:
    """The mock's location; the token stays in the variable ``pat_env`` names."""
    return CortexConfig(base_url=base_url, pat_env=pat_env, progress=False)


def client_config(settings: DemoSettings) -> Any:
    """The config SkyRL's ``build_rl_config`` makes: backend "local", comm_protocol "ray"."""
    from arctic_platform.rl import ArcticRLClientConfig

    optimizer = {"lr": settings.learning_rate, "weight_decay": 0.01, "betas": [0.9, 0.999]}
    return ArcticRLClientConfig(
        model_name="tiny-byte-lm",
        backend="local",
        comm_protocol="ray",
        seed=settings.seed,
        training_gpus=1,
        sampling_gpus=1,
        training_config={
            "optimizer": optimizer,
            "max_length": 64,
        },
    )


def create_client(base_url: str, settings: DemoSettings) -> Any:
    """Select Cortex, then build the client through ``arctic_platform.rl`` as SkyRL does."""
    use_cortex(cortex_settings(base_url))
    from arctic_platform.rl import create_arctic_rl_client

    return create_arctic_rl_client(client_config(settings))


# -- GRPO pieces ------------------------------------------------------------------------


def reward(token_ids: Sequence[int], target: int, max_tokens: int) -> float:
    """Share of the completion budget spent on the target byte (stopping early earns less)."""
    return sum(1 for t in token_ids if t == target) / max_tokens


def group_advantages(rewards: torch.Tensor, group_size: int) -> torch.Tensor:
    """GRPO: each reward relative to its prompt's group, scaled by the group's spread."""
    groups = rewards.view(-1, group_size)
    centred = groups - groups.mean(dim=1, keepdim=True)
    return (centred / (groups.std(dim=1, keepdim=True) + 1e-6)).view(-1)


def build_batch(
    prompts: Sequence[Sequence[int]], responses: Sequence[Sequence[int]]
) -> dict[str, torch.Tensor]:
    """SkyRL's tensors: prompts left-padded to P, responses right-padded to R, [B, P+R] ids."""
    width_p = max(len(p) for p in prompts)
    width_r = max(1, max(len(r) for r in responses))
    rows = len(prompts)
    prompt_ids = torch.full((rows, width_p), PAD_ID, dtype=torch.long)
    prompt_mask = torch.zeros(rows, width_p, dtype=torch.long)
    response_ids = torch.full((rows, width_r), PAD_ID, dtype=torch.long)
    response_mask = torch.zeros(rows, width_r, dtype=torch.long)
    for i, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        prompt_ids[i, width_p - len(p) :] = torch.tensor(p, dtype=torch.long)
        prompt_mask[i, width_p - len(p) :] = 1
        if r:
            response_ids[i, : len(r)] = torch.tensor(r, dtype=torch.long)
            response_mask[i, : len(r)] = 1
    attention_mask = torch.cat([prompt_mask, response_mask], dim=1)
    return {
        "input_ids": torch.cat([prompt_ids, response_ids], dim=1),
        "attention_mask": attention_mask,
        "position_ids": (attention_mask.cumsum(dim=1) - 1).clamp(min=0),
        "prompts": prompt_ids,
        "responses": response_ids,
        "response_mask": response_mask,
        "loss_mask": response_mask.clone(),
    }


# What SkyRL sends with each forward: verl's GRPO loss and its config names (no KL term:
# today's grpo has none), and the sampling temperature the trainer scores at.
PROCESSING = {"post": ["compute_logprobs"], "loss_fn": "verl_grpo"}
META = {"temperature": 1.0, "actor_config": {"clip_ratio": 0.2, "loss_agg_mode": "token-mean"}}


def sampler_trainer_gap(
    sampled: Sequence[Sequence[float]], trainer: torch.Tensor, prompt_width: int
) -> float:
    """Mean over the sampled tokens of sampler minus trainer log-probability. ``trainer`` is
    the policy forward's answer (column i scores token i + 1): response token j of a row
    sits at column ``prompt_width + j``, scored at the column before."""
    gaps = [
        torch.tensor(lp) - trainer[i, prompt_width - 1 : prompt_width - 1 + len(lp)]
        for i, lp in enumerate(sampled)
        if lp
    ]
    return float(torch.cat(gaps).mean()) if gaps else math.nan


async def train(
    client: Any,
    settings: DemoSettings,
    on_iteration: Callable[[IterationStats], None] | None = None,
    first: int = 1,
) -> list[IterationStats]:
    """The GRPO loop, making SkyRL's calls on the legacy client; one stats row per iteration
    from `first` (a resumed run starts after its last save) to `settings.iterations`."""
    target = settings.target.encode()[0]
    prompts = [p for p in PROMPTS for _ in range(settings.group_size)]
    prompt_ids = [list(p.encode()) for p in prompts]
    sampling = {"max_tokens": settings.max_tokens, "temperature": 1.0, "logprobs": 0}
    history: list[IterationStats] = []
    for iteration in range(first, settings.iterations + 1):
        started = time.perf_counter()
        phases: dict[str, float] = {}
        outputs = await client.generate(prompts, sampling)
        add_timing(phases, client.last_timing)  # where each call's time went
        responses = [list(o["token_ids"]) for o in outputs]
        rewards = torch.tensor([reward(r, target, settings.max_tokens) for r in responses])
        tensors = build_batch(prompt_ids, responses)
        batch = {"batch": tensors, "meta": META, "processing": PROCESSING}
        policy = await client.fwd_no_grad(batch, reference_model=False)
        add_timing(phases, client.last_timing)
        old = policy["batch"]["logprobs"].float()
        sampled = [o.get("logprobs") or [] for o in outputs]
        mask = tensors["response_mask"].float()
        advantages = group_advantages(rewards, settings.group_size)
        tensors["advantages"] = advantages[:, None] * mask
        tensors["old_log_probs"] = old
        result = await client.fwd_bwd(batch)
        add_timing(phases, client.last_timing)
        step = await client.step()
        add_timing(phases, client.last_timing)
        await client.sync_weights(cuda_ipc=False, low_memory=False)
        add_timing(phases, client.last_timing)
        stats = IterationStats(
            iteration=iteration,
            reward=float(rewards.mean()),
            loss=float(result["loss"]),
            grad_norm=_number(step["metrics"].get("grad_norm")),
            gap=sampler_trainer_gap(sampled, old, tensors["prompts"].shape[1]),
            seconds=time.perf_counter() - started,
            sample=printable(str(outputs[0].get("text", ""))),
            phases=phases,
        )
        history.append(stats)
        if on_iteration is not None:
            on_iteration(stats)
    return history


def _number(value: Any) -> float:
    """A metric as a float; NaN where the server did not report it."""
    return math.nan if value is None else float(value)


# -- main -------------------------------------------------------------------------------


def run_demo(base_url: str, settings: DemoSettings) -> tuple[list[IterationStats], Any]:
    """Build the client as SkyRL does (synchronously), train, save a checkpoint, shut down."""
    client = create_client(base_url, settings)
    print(f"job {client.job_id}: training {client.training_job_id}, "
          f"sampling {client.sampling_job_id}")  # fmt: skip
    print(HEADER, flush=True)
    bar = progress_bar(settings.iterations)

    def report(stats: IterationStats) -> None:
        bar.write(table_row(stats))
        bar.set_postfix(reward=f"{stats.reward:.3f}")
        bar.update(1)

    async def session() -> tuple[list[IterationStats], Any]:
        history = await train(client, settings, report)
        return history, await client.save_checkpoint()

    try:
        return asyncio.run(session())
    finally:
        bar.close()
        client.shutdown()


def _shown(path: Path) -> str:
    """A path relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    """Start the mock, train, plot, stop the mock; 0 only when the reward clearly rose."""
    defaults = DemoSettings()
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Starts its own mock on 127.0.0.1 and stops it at the end; needs no token or "
        "account. Exit status 0 when the final reward is clearly above the first.",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=defaults.iterations,
        help=f"GRPO iterations to run (default {defaults.iterations})",
    )
    parser.add_argument(
        "--seed", type=int, default=defaults.seed, help="seed of the model and the sampling"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=REPO / "demo-output" / "grpo_demo.png",
        help="where the reward and loss plot goes; the mock's log lands beside it "
        "(default demo-output/grpo_demo.png)",
    )
    args = parser.parse_args(argv)
    settings = DemoSettings(iterations=args.iterations, seed=args.seed)
    torch.set_num_threads(1)  # this side only pads a few small tensors
    started = time.perf_counter()
    out: Path = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="arctic-rl-demo-") as tmp:
        log_path = out.parent / "mock.log"
        print("starting the mock Cortex GS (reference backend) ...", flush=True)
        try:
            with running_mock(Path(tmp) / "state", log_path) as base_url:
                print(f"mock ready at {base_url} (log: {_shown(log_path)})", flush=True)
                history, checkpoint = run_demo(base_url, settings)
        except Exception as exc:  # say what failed and where to look, then exit non-zero
            print(f"FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
            print(f"the mock's log: {_shown(log_path)}", file=sys.stderr)
            return 1
        print("mock stopped")
    path = plot(history, out, settings.target)
    first, last = history[0].reward, smoothed([s.reward for s in history])[-1]
    print(f"checkpoint: {checkpoint.get('checkpoint_id', checkpoint)}")
    print(f"plot: {_shown(path)}")
    print(
        f"reward: first {first:.3f} -> last (5-iteration mean) {last:.3f}; "
        f"{len(history)} iterations in {time.perf_counter() - started:.0f} s"
    )
    worst = max(abs(s.gap) for s in history)
    print(f"sampler/trainer gap: largest |gap| {worst:.2e} (live runs: 0.0005-0.005; "
          f"above {GAP_BOUND} a plumbing bug)")  # fmt: skip
    if not learned(history):
        print("FAILED: the final reward is not clearly above the first", file=sys.stderr)
        return 1
    if not gap_healthy(history):
        print("FAILED: the sampler and the trainer disagree on the same tokens", file=sys.stderr)
        return 1
    print("OK: the policy learned to say", repr(settings.target))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
