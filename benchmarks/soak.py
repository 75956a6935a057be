"""``make soak``: the demo's GRPO loop for thousands of calls, in SkyRL's calling pattern.

A run as long as users run it. The mock (reference backend) starts on a free loopback
port; the demo's client and training loop (``examples/grpo_demo.py``) run inside
``asyncio.run``, with every client call made the way SkyRL's trainer makes it
(``benchmarks._patterns``: a fresh event loop in a fresh worker thread, never closed).
After each call the process's open descriptors (``/proc/self/fd``), its resident memory
and the call's wall time are sampled, and so are the lines asyncio and the interpreter
would print about abandoned work ("Task was destroyed", "Exception ignored"). SkyRL never
closes its loops, and each one holds three descriptors (its selector and self-pipe) until
the garbage collector frees it, so the raw count is a sawtooth whatever the client does;
every ``COLLECT_EVERY`` calls the count is also taken after a full collection, which
leaves only what something still holds.

It writes a plot (descriptors, RSS, p50/p99 latency over calls; ``demo-output/soak.png``),
every sample (``bench-results/soak.json``) and one row in ``docs/benchmarks.md``: the
first 10% of calls against the last 10%. The model and batch are tiny (4 prompts x 2
samples, 8 tokens) so 2,000 calls end in a few minutes on two cores; a run that fails
part way still writes what it sampled, and exits non-zero.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from benchmarks import _report
from benchmarks._goals import load1
from benchmarks._mock import REPO, tree_commit
from benchmarks._patterns import SkyRLPattern
from devtools.mock_process import running_mock
from examples.demo_report import figure, save
from examples.grpo_demo import DemoSettings, create_client, train

CALLS_PER_ITERATION = 5  # generate, fwd_no_grad, fwd_bwd, step, sync_weights
DEFAULT_CALLS = 2000
WINDOW_SHARE = 0.1  # the row compares the first and the last tenth of the calls
PLOT_BIN = 100  # calls per latency point on the plot
PROGRESS_EVERY = 250  # calls between progress lines
COLLECT_EVERY = 100  # calls between counts of descriptors after a full collection
PATTERN = "SkyRL's _run: a fresh loop per call in a one-worker pool, never closed"
HEADING = "## soak"
COLUMNS = (
    "run_utc", "commit", "calls", "pattern",
    "p50_ms first", "p50_ms last", "p99_ms first", "p99_ms last",
    "fds first", "fds last", "fds_collected first", "fds_collected last",
    "RSS_MiB first", "RSS_MiB last",
    "noise_lines", "seconds", "load1", "result",
)  # fmt: skip
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Sample:
    """The process after one call: which call, how long it took, what it held."""

    call: int
    method: str
    ms: float
    fds: int
    rss_mib: float
    fds_collected: int | None = None  # after gc.collect(), every COLLECT_EVERY calls


def open_descriptors() -> int:
    """Descriptors this process holds now (the listing's own one left out)."""
    return len(os.listdir("/proc/self/fd")) - 1


def rss_mib() -> float:
    """Resident memory of this process now, in MiB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE_BYTES / 2**20


class NoiseCounter(logging.Handler):
    """Counts what would reach stderr about abandoned work: asyncio's error records (a task
    destroyed while pending, an unretrieved exception) and unraisable exceptions."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines = 0
        self._also_print = False

    def emit(self, record: logging.LogRecord) -> None:
        self.lines += 1
        if self._also_print and logging.lastResort is not None:
            logging.lastResort.handle(record)  # what logging prints when nothing handles it

    @contextmanager
    def counting(self) -> Iterator[NoiseCounter]:
        """Count while the block runs, and while the garbage it left is collected (abandoned
        loops and tasks speak up then); asyncio's records and the default hook still print."""
        previous_hook = sys.unraisablehook

        def hook(unraisable: Any) -> None:
            self.lines += 1
            previous_hook(unraisable)

        asyncio_log = logging.getLogger("asyncio")
        self._also_print = not asyncio_log.hasHandlers()
        asyncio_log.addHandler(self)
        sys.unraisablehook = hook
        try:
            yield self
        finally:
            gc.collect()
            sys.unraisablehook = previous_hook
            asyncio_log.removeHandler(self)


def soak(base_url: str, settings: DemoSettings, samples: list[Sample]) -> None:
    """The demo's loop in SkyRL's pattern; ``samples`` grows by one per call as it goes."""

    def observe(method: str, seconds: float) -> None:
        call = len(samples) + 1
        sample = Sample(call, method, seconds * 1000, open_descriptors(), rss_mib())
        if call % COLLECT_EVERY == 0:
            gc.collect()
            sample = replace(sample, fds_collected=open_descriptors())
        samples.append(sample)
        if sample.call % PROGRESS_EVERY == 0:
            print(f"call {sample.call}: {sample.fds} descriptors, {sample.rss_mib:.0f} MiB RSS",
                  flush=True)  # fmt: skip

    client = create_client(base_url, settings)
    try:
        asyncio.run(train(SkyRLPattern(client, observe), settings))
    finally:
        client.shutdown()


def _p99(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98]


def summary(samples: Sequence[Sample]) -> dict[str, Any]:
    """First vs last tenth: latency p50/p99, and the most descriptors and RSS in each."""
    width = max(2, math.ceil(len(samples) * WINDOW_SHARE))
    row: dict[str, Any] = {"calls": len(samples)}
    for name, part in (("first", samples[:width]), ("last", samples[-width:])):
        ms = [s.ms for s in part]
        row[f"p50_ms {name}"] = statistics.median(ms)
        row[f"p99_ms {name}"] = _p99(ms)
        row[f"fds {name}"] = max(s.fds for s in part)
        row[f"RSS_MiB {name}"] = max(s.rss_mib for s in part)
        collected = [s.fds_collected for s in part if s.fds_collected is not None]
        row[f"fds_collected {name}"] = max(collected, default=None)
    return row


def plot(samples: Sequence[Sample], path: Path) -> Path:
    """Descriptors, RSS and latency (p50/p99 of each ``PLOT_BIN`` calls) over the calls."""
    calls = [s.call for s in samples]
    bins = [samples[i : i + PLOT_BIN] for i in range(0, len(samples), PLOT_BIN)]
    bins = [b for b in bins if len(b) >= 2]
    mids = [b[len(b) // 2].call for b in bins]
    fig, (ax_fd, ax_rss, ax_ms) = figure(3, 7)
    ax_fd.plot(calls, [s.fds for s in samples], color="#9ecae1", label="after each call")
    collected = [s for s in samples if s.fds_collected is not None]
    ax_fd.plot([s.call for s in collected], [s.fds_collected for s in collected],
               color="#08519c", marker=".", label="after a full collection")  # fmt: skip
    ax_fd.set_ylabel("open descriptors")
    ax_fd.legend(loc="upper left")
    ax_rss.plot(calls, [s.rss_mib for s in samples], color="#238b45")
    ax_rss.set_ylabel("RSS (MiB)")
    ax_ms.plot(mids, [statistics.median(s.ms for s in b) for b in bins], label="p50")
    ax_ms.plot(mids, [_p99([s.ms for s in b]) for b in bins], label="p99", color="#d94801")
    ax_ms.set_ylabel(f"call latency (ms, per {PLOT_BIN} calls)")
    ax_ms.set_xlabel("client call")
    ax_ms.legend(loc="upper left")
    fig.suptitle("arctic-rl soak: the demo's GRPO loop in SkyRL's calling pattern")
    return save(fig, path)


def section_body(row: dict[str, Any]) -> str:
    """The page's soak section: what the row measures, then the row."""
    return (
        "`make soak`: the demo's GRPO loop against the reference mock, every client call "
        "made as SkyRL's trainer makes it (a fresh event loop in a fresh worker thread, "
        "never closed, under the trainer's running loop), six calls an iteration. The row "
        "compares the first 10% of the calls with the last 10%: latency p50/p99 of the "
        "calls, and the most open descriptors and resident memory (RSS) of the process "
        "in each; `fds_collected` is the count after a full garbage collection (every "
        f"{COLLECT_EVERY} calls), without the loops SkyRL leaves open that the collector "
        "has not freed yet (three descriptors each); `noise_lines` counts the messages "
        "about abandoned work (a task destroyed while pending, an exception ignored) over "
        "the whole run. The plot is written to "
        "`demo-output/soak.png`, every sample to `bench-results/soak.json`.\n\n"
        + _report.table([row], COLUMNS)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__)
    parser.add_argument("--calls", type=int, default=DEFAULT_CALLS,
                        help=f"client calls at least (default {DEFAULT_CALLS})")  # fmt: skip
    parser.add_argument("--plot", type=Path, default=REPO / "demo-output" / "soak.png")
    parser.add_argument("--samples", type=Path, default=REPO / "bench-results" / "soak.json")
    parser.add_argument("--doc", type=Path, default=_report.DOC)
    args = parser.parse_args(argv)
    iterations = math.ceil(args.calls / CALLS_PER_ITERATION)
    settings = DemoSettings(iterations=iterations, group_size=2, max_tokens=8)
    print(f"soak: {iterations} iterations, {iterations * CALLS_PER_ITERATION} calls; "
          f"load average {load1():.2f}", flush=True)  # fmt: skip
    samples: list[Sample] = []
    result = "ok"
    started = time.time()
    args.plot.parent.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix="arctic-rl-soak-") as tmp,
        NoiseCounter().counting() as noise,
    ):
        try:
            with running_mock(Path(tmp) / "state", args.plot.parent / "soak-mock.log") as url:
                soak(url, settings, samples)
        except Exception as exc:  # the samples so far still tell where it went wrong
            result = f"stopped after call {len(samples)}: {type(exc).__name__}: {exc}"[:200]
    if len(samples) < 2:
        print(f"FAILED: {result}", file=sys.stderr)
        return 1
    row = {
        "run_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime(started)),
        "commit": tree_commit(REPO),
        "pattern": PATTERN,
        **summary(samples),
        "noise_lines": noise.lines,
        "seconds": time.time() - started,
        "load1": load1(),
        "result": result,
    }
    args.samples.parent.mkdir(parents=True, exist_ok=True)
    args.samples.write_text(json.dumps({"row": row, "samples": [asdict(s) for s in samples]}))
    print(_report.table([row], COLUMNS))
    print(f"plot: {plot(samples, args.plot)}; samples: {args.samples}")
    print(f"wrote {_report.replace_section(args.doc, HEADING, section_body(row))}")
    return 0 if result == "ok" else 1


if __name__ == "__main__":
    raise SystemExit(main())
