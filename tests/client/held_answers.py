"""A fault proxy that holds back chosen answers, served from a thread of its own, and what
tests of interrupted and closed calls share: the call has left, its answer has not come."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from arctic_rl import ArcticRLClientConfig
from devtools.faults import Fault, FaultProxy
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV

TINY_JOB = dict(backend="cortex", model_name="tiny-byte-lm", training_gpus=1, sampling_gpus=1)
WAIT_S = 20.0


@contextmanager
def proxy_thread(mock: LiveMock, *faults: Fault) -> Iterator[FaultProxy]:
    """A fault proxy in front of ``mock``, served on a loop of its own thread (blocking
    callers and dropped loops cannot share theirs)."""
    ready = threading.Event()
    loop = asyncio.new_event_loop()
    proxy = FaultProxy(mock.port, *faults)
    stop = asyncio.Event()

    async def serve() -> None:
        async with proxy:
            ready.set()
            await stop.wait()
        held = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in held:
            task.cancel()
        await asyncio.gather(*held, return_exceptions=True)

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(WAIT_S)
    try:
        yield proxy
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(WAIT_S)
        loop.close()


def forwarded(proxy: FaultProxy, marker: bytes) -> Callable[[], bool]:
    return lambda: any(marker in line for line in proxy.forwarded)


def wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "the submit never reached the mock"
        time.sleep(0.005)


def config(mock: LiveMock, proxy: FaultProxy) -> ArcticRLClientConfig:
    url = proxy.url(mock.base_url, mock.port)
    return ArcticRLClientConfig(**TINY_JOB, cortex={"base_url": url, "pat_env": PAT_ENV})
