"""The connection of one `CortexService`: its generated client, opened on first use."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from arctic_rl._endpoint import ClientSettings

if TYPE_CHECKING:
    from cortex_gs_client import Client
    from cortex_gs_client.types import Response


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

    async def post_operation_json(self, job_id: str, body: bytes) -> Response[Any]:
        """The generated ``run_operation`` call with a body of JSON bytes already built,
        answered as that call answers (200: an inline operation's answer; 202: the request
        it accepted)."""
        from http import HTTPStatus
        from urllib.parse import quote

        from cortex_gs_client.models import AcceptedRequest, OperationAnswer
        from cortex_gs_client.types import Response

        http = self.client().get_async_httpx_client()
        url = f"/{quote(job_id, safe='')}/operation"
        response = await http.post(url, content=body, headers={"Content-Type": "application/json"})
        model = {200: OperationAnswer, 202: AcceptedRequest}.get(response.status_code)
        return Response(
            status_code=HTTPStatus(response.status_code),
            content=response.content,
            headers=response.headers,
            parsed=None if model is None else model.from_dict(response.json()),
        )

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.get_async_httpx_client().aclose()


__all__ = ["Connection"]
