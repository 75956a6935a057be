"""One generated client (one httpx connection pool) per event loop, closed with its loop.

An httpx pool belongs to the loop that opened it, and the frameworks call from several
loops, some short-lived (verl's trainer runs `asyncio.run(backend.destroy())`, a script
may `asyncio.run` each call). Each loop gets its own pool on its first call there, and a
keeper task on that loop closes the pool when the loop's runner cancels its remaining
tasks (as `asyncio.run` does before closing a loop), so no socket outlives its loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cortex_gs_client import Client

__all__ = ["LoopPools"]


class LoopPools:
    """The clients of every loop that has called, each closed when its loop winds down."""

    def __init__(self, open_client: Callable[[], Client]) -> None:
        self._open_client = open_client
        self._keepers: dict[asyncio.AbstractEventLoop, tuple[Client, asyncio.Task[None]]] = {}
        self._lock = threading.Lock()

    def here(self) -> Client:
        """The running loop's client, opened on its first call there."""
        loop = asyncio.get_running_loop()
        with self._lock:
            kept = self._keepers.get(loop)
            if kept is None:
                client = self._open_client()
                keeper = loop.create_task(self._close_with_loop(loop, client))
                kept = self._keepers[loop] = (client, keeper)
        return kept[0]

    async def _close_with_loop(self, loop: asyncio.AbstractEventLoop, client: Client) -> None:
        try:
            await asyncio.Event().wait()  # until cancelled: by aclose, or by the loop's runner
        finally:
            with self._lock:
                if self._keepers.get(loop, (None,))[0] is client:
                    del self._keepers[loop]
            await client.get_async_httpx_client().aclose()

    async def aclose(self) -> None:
        """Close every loop's client: this loop's now, another running loop's on it."""
        with self._lock:
            kept = dict(self._keepers)
        here = asyncio.get_running_loop()
        for loop, (_client, keeper) in kept.items():
            if loop is here:
                keeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await keeper
            elif not loop.is_closed():  # not awaited: that loop may be waiting on us
                loop.call_soon_threadsafe(keeper.cancel)
