"""The frameworks' calling patterns, replayed for thousands of calls in a process of their own.

    python call_patterns.py PATTERN BASE_URL CALLS

The legacy client comes from `create_arctic_rl_client`, as SkyRL and verl build it
(the token in ``ARCTIC_RL_TEST_PAT``), and makes CALLS ``step()`` calls in PATTERN:

- ``skyrl``: SkyRL's trainer runs inside ``asyncio.run``, so its helper finds a running
  loop and runs each call on a fresh loop (``new_event_loop().run_until_complete``) in a
  one-worker thread pool, never closing that loop; its driver never shuts the client
  down either (the process's exit does);
- ``asyncio_run``: ``asyncio.run`` per call;
- ``closed_loops``: a loop made, run and closed by hand per call;
- ``threads``: plain worker threads (verl's), each with ``asyncio.run`` per call, at once;
- ``one_loop``: every call awaited on one long-lived loop.

After the first 10 calls and after each further quarter of them it records a sample,
taken after a garbage collection (SkyRL's dropped loops hold an epoll and a self-pipe
each until the collector frees them: the framework's, not the client's): open
descriptors and RSS. Every 10th call it notes the local ports of this process's
connections to the service, as the call returns. At the end it prints one JSON line:
the samples, the ports seen and the last ``global_steps``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import itertools
import json
import os
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from arctic_rl import ArcticRLClientConfig, create_arctic_rl_client

PAT_ENV = "ARCTIC_RL_TEST_PAT"
FIRST = 10  # calls before the baseline sample
THREADS = 4
LOOK_EVERY = 10  # calls between looks at the open connections

T = TypeVar("T")
Call = Callable[[], Coroutine[Any, Any, dict[str, Any]]]
Sample = Callable[[], None]


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_mib() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def connected_ports(port: int) -> list[int]:
    """Local ports of this process's TCP connections to 127.0.0.1:``port``."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(FileNotFoundError):  # the listing's own descriptor
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    ports = []
    for line in Path("/proc/self/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, inode = fields[1], fields[2], fields[9]
        if inode in inodes and remote == f"0100007F:{port:04X}":
            ports.append(int(local.split(":")[1], 16))
    return sorted(ports)


def run_as_skyrl(coro: Coroutine[Any, Any, T]) -> T:
    """How SkyRL's trainer runs one client call: ``asyncio.run``, and inside a running
    loop (always, in its trainer) a fresh loop in a one-worker pool, never closed."""
    try:
        return asyncio.run(coro)
    except RuntimeError:  # a loop is running: run the call on a fresh one, elsewhere
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(lambda: asyncio.new_event_loop().run_until_complete(coro)).result()


def skyrl(call: Call, phases: list[int], sample: Sample) -> None:
    async def trainer() -> None:
        for calls in phases:
            for _ in range(calls):
                run_as_skyrl(call())
            sample()

    asyncio.run(trainer())


def asyncio_run(call: Call, phases: list[int], sample: Sample) -> None:
    for calls in phases:
        for _ in range(calls):
            asyncio.run(call())
        sample()


def closed_loops(call: Call, phases: list[int], sample: Sample) -> None:
    for calls in phases:
        for _ in range(calls):
            loop = asyncio.new_event_loop()
            try:
                loop.run_until_complete(call())
            finally:
                loop.close()
        sample()


def threads(call: Call, phases: list[int], sample: Sample) -> None:
    """THREADS workers share each phase's calls; all pause while a sample is taken."""
    pause = threading.Barrier(THREADS + 1)

    def worker(index: int) -> None:
        for calls in phases:
            try:
                for _ in range(calls // THREADS + (index < calls % THREADS)):
                    asyncio.run(call())
            except BaseException:
                pause.abort()
                raise
            pause.wait()  # the phase is done
            pause.wait()  # the sample is taken

    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        workers = [pool.submit(worker, index) for index in range(THREADS)]
        try:
            for _ in phases:
                pause.wait()
                sample()
                pause.wait()
        except BaseException:
            pause.abort()  # a failed sample frees the workers (a failed worker frees us)
            raise
        for done in workers:
            done.result()


def one_loop(call: Call, phases: list[int], sample: Sample) -> None:
    async def trainer() -> None:
        for calls in phases:
            for _ in range(calls):
                await call()
            sample()

    asyncio.run(trainer())


PATTERNS = {f.__name__: f for f in (skyrl, asyncio_run, closed_loops, threads, one_loop)}


def main(pattern: str, base_url: str, calls: int) -> None:
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        cortex={"base_url": base_url, "pat_env": PAT_ENV, "long_poll_s": 2},
    )
    legacy = create_arctic_rl_client(config)
    port = urlsplit(base_url).port
    assert port is not None
    samples: list[dict[str, Any]] = []
    last: dict[str, Any] = {}
    made = itertools.count(1)
    seen: set[int] = set()  # local ports of the connections open just after a call

    async def step() -> dict[str, Any]:
        last.update(await legacy.step())
        if next(made) % LOOK_EVERY == 0:
            seen.update(connected_ports(port))
        return last

    def sample() -> None:
        gc.collect()
        samples.append({"fds": open_descriptors(), "rss_mib": rss_mib()})

    rest = calls - FIRST
    phases = [FIRST, *[rest // 4] * 3, rest - 3 * (rest // 4)]
    before = {"fds": open_descriptors(), "rss_mib": rss_mib()}
    PATTERNS[pattern](step, phases, sample)
    if pattern != "skyrl":  # SkyRL's driver leaves the client to the process's exit
        legacy.shutdown()
    outcome = {"before": before, "samples": samples, "connections": sorted(seen)}
    print(json.dumps({**outcome, "steps": last["global_steps"]}))
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
