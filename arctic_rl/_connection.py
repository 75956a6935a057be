"""The connection of one `CortexService`: its generated client, opened on first use."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from arctic_rl._endpoint import (
    ClientSettings,
)

if TYPE_CHECKING:
    from cortex_gs_client import Client


class Connection:
    """The generated client (one httpx pool over one `ServiceTransport`) of one service,
    opened on its first call; it holds nothing of the service, so the I/O loop's
    finalizer can close it when the service is collected."""

    def __init__(self, settings: ClientSettings) -> None:
        self._settings = settings
        self._client: Client | None = None
        self._pid = os.getpid()

    def client(self) -> Client:
        if self._client is None or self._pid != os.getpid():
            from arctic_rl._http import open_client

            # A forked child leaves the parent's connections alone: they are the parent's.
            self._client, self._pid = open_client(self._settings), os.getpid()
        return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.get_async_httpx_client().aclose()


__all__ = ["Connection"]
