"""How a framework's trainer calls the legacy client, replayed for the soak and the wan rows.

SkyRL's Arctic trainer (``integrations/arctic_rl/trainer.py``, ``_run``) runs inside
``asyncio.run(trainer.train())`` and calls the client's async methods from synchronous
code. ``asyncio.run`` cannot nest, so each call takes ``_run``'s fallback: a fresh
one-worker thread pool whose thread runs the coroutine on ``asyncio.new_event_loop()``
with ``run_until_complete``, blocking the trainer's own loop meanwhile; the loop is never
closed. ``SkyRLPattern`` wraps a client so that each awaited method goes that way, and
tells an observer how long each call took.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
Observer = Callable[[str, float], None]
"""Told each call's method name and wall time in seconds, after the call returns."""


def in_fresh_loop(coro: Coroutine[Any, Any, T]) -> T:
    """SkyRL's ``_run`` under a running loop: a new loop in a new one-worker pool, left open."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.new_event_loop().run_until_complete(coro)).result()


class SkyRLPattern:
    """The client with each coroutine method run by ``in_fresh_loop``; the rest unchanged.

    The wrapped methods stay awaitable, so the demo's and the benchmarks' loops drive it
    unchanged; the await itself blocks the caller's loop, as SkyRL's synchronous dispatch
    does.
    """

    def __init__(self, client: Any, observer: Observer | None = None) -> None:
        self._client = client
        self._observer = observer

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not inspect.iscoroutinefunction(attr):
            return attr

        async def call(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            result = in_fresh_loop(attr(*args, **kwargs))
            if self._observer is not None:
                self._observer(name, time.perf_counter() - started)
            return result

        return call
