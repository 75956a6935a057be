"""What the demo shows of its run: a table row per iteration, a progress bar, a plot, and
the verdict (did the reward clearly rise)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class IterationStats:
    """What one iteration reports; a row of the table and a point of the plot."""

    iteration: int
    reward: float
    loss: float
    grad_norm: float
    gap: float
    """The sampler/trainer gap: the mean, over the sampled tokens, of the log-probability the
    sampler gave each minus the one the trainer's forward gives it (the integrators' health
    check: 0.0005-0.005 on a healthy live run, above about 0.05 a plumbing bug)."""
    seconds: float
    sample: str
    phases: dict[str, float] = field(default_factory=dict)
    """Seconds per phase of the iteration's calls (their ``timing/*`` figures), summed."""


# Where a call's time goes (docs/timing.md), and each phase's colour in the plot.
PHASES = {
    "encode_s": "#6baed6",
    "upload_s": "#2171b5",
    "queue_s": "#fdae6b",
    "compute_s": "#d94801",
    "latency_s": "#fec44f",
    "download_s": "#74c476",
}


def add_timing(phases: dict[str, float], timing: Mapping[str, float]) -> None:
    """Add one call's figures (a client's ``last_timing``) to its iteration's phases."""
    for name in PHASES:
        phases[name] = phases.get(name, 0.0) + timing.get(f"timing/{name}", 0.0)


def printable(text: str) -> str:
    """A sample for the table: control and undecodable bytes shown as a middle dot."""
    return "".join(ch if ch.isprintable() and ch != "\ufffd" else "\u00b7" for ch in text)


HEADER = f"{'iter':>4}  {'reward':>7}  {'loss':>8}  {'grad_norm':>9}  {'gap':>9}  {'s':>5}  sample"


def table_row(stats: IterationStats) -> str:
    """One aligned row of the per-iteration table."""
    return (
        f"{stats.iteration:>4}  {stats.reward:>7.3f}  {stats.loss:>8.4f}  "
        f"{stats.grad_norm:>9.4f}  {stats.gap:>9.2e}  {stats.seconds:>5.2f}  {stats.sample}"
    )


def smoothed(values: Sequence[float], window: int = 5) -> list[float]:
    """Trailing mean, so the plot and the verdict are not at the mercy of one batch."""
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1) : i + 1]
        out.append(sum(part) / len(part))
    return out


def figure(rows: int, height: float, width: float = 7.0) -> tuple[Any, Any]:
    """A headless matplotlib figure of ``rows`` plots, one above the other, sharing x."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(rows, 1, figsize=(width, height), sharex=True, dpi=100)


def save(fig: Any, path: Path) -> Path:
    """Lay the figure out, write it as a PNG at ``path`` and free it."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def plot(history: Sequence[IterationStats], path: Path, target: str) -> Path:
    """Reward, loss and where each iteration's time went, as a PNG (matplotlib, headless)."""
    steps = [s.iteration for s in history]
    rewards = [s.reward for s in history]
    losses = [s.loss for s in history]
    fig, (ax_r, ax_l, ax_t) = figure(3, 7.5, width=8.5)  # room for the time legend
    ax_r.plot(steps, rewards, color="#9ecae1", label="batch mean")
    ax_r.plot(steps, smoothed(rewards), color="#08519c", label="5-iteration mean")
    ax_r.set_ylabel(f"reward (share of {target!r})")
    ax_r.set_ylim(0, 1)
    ax_r.legend(loc="upper left")
    ax_l.plot(steps, losses, color="#d94801")
    ax_l.axhline(0.0, color="grey", linewidth=0.5)
    ax_l.set_ylabel("GRPO loss")
    _time_panel(ax_t, history)
    ax_t.set_xlabel("iteration")
    fig.suptitle("arctic-rl demo: GRPO on the mock Cortex GS (reference backend)")
    return save(fig, path)


# A phase under this share of the run's time is drawn in "other", so every bar and legend
# entry left is big enough to see.
MIN_SHARE = 0.05
OTHER_COLOUR = "#969696"
BETWEEN_COLOUR = "#9e9ac8"


def time_groups(history: Sequence[IterationStats]) -> dict[str, list[float]]:
    """Per iteration, seconds by what the time panel draws: the phases that matter, the
    small ones summed as "other (...)", and the loop's own work between calls."""
    between = [max(0.0, s.seconds - sum(s.phases.values())) for s in history]
    totals = {name: sum(s.phases.get(name, 0.0) for s in history) for name in PHASES}
    overall = sum(totals.values()) + sum(between)
    big = [name for name in PHASES if totals[name] >= MIN_SHARE * overall]
    small = [name for name in PHASES if name not in big and totals[name] > 0]
    groups = {name.removesuffix("_s"): [s.phases.get(name, 0.0) for s in history] for name in big}
    if small:
        label = f"other ({', '.join(name.removesuffix('_s') for name in small)})"
        groups[label] = [sum(s.phases.get(name, 0.0) for name in small) for s in history]
    groups["between calls"] = between
    return groups


def _time_panel(ax: Any, history: Sequence[IterationStats]) -> None:
    """Stacked bars of :func:`time_groups`, in milliseconds when iterations are short, the
    axis fitted to the tallest bar and the legend beside the panel."""
    steps = [s.iteration for s in history]
    groups = time_groups(history)
    tallest = max((sum(column) for column in zip(*groups.values(), strict=True)), default=1.0)
    unit, scale = ("ms", 1000.0) if tallest < 2.0 else ("s", 1.0)
    colours = {name.removesuffix("_s"): colour for name, colour in PHASES.items()}
    bottom = [0.0] * len(history)
    for label, seconds in groups.items():
        colour = colours.get(label, BETWEEN_COLOUR if label == "between calls" else OTHER_COLOUR)
        heights = [x * scale for x in seconds]
        ax.bar(steps, heights, bottom=bottom, color=colour, label=label)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_ylabel(f"time per iteration ({unit})")
    ax.set_ylim(0, 1.05 * tallest * scale or 1.0)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)


def learned(history: Sequence[IterationStats], window: int = 5, margin: float = 0.2) -> bool:
    """Whether the last iterations' mean reward is clearly above the first ones'."""
    if len(history) < 2 * window:
        window = max(1, len(history) // 2)
    first = sum(s.reward for s in history[:window]) / window
    last = sum(s.reward for s in history[-window:]) / window
    return last >= first + margin


# Above this, the sampler and the trainer disagree about the same tokens: a plumbing bug
# (alignment, frame, temperature), as the integrators read their live runs.
GAP_BOUND = 0.05


def gap_healthy(history: Sequence[IterationStats]) -> bool:
    """Whether every iteration's sampler/trainer gap stayed under GAP_BOUND."""
    return all(abs(s.gap) < GAP_BOUND for s in history)


def progress_bar(total: int) -> Any:
    """The iteration bar, on a terminal only: written to a file or a pipe, its redraws
    would run into the table rows, which are the record there."""
    from tqdm import tqdm

    on_terminal = sys.stderr.isatty()
    return tqdm(total=total, desc="GRPO", unit="it", dynamic_ncols=True, disable=not on_terminal)
