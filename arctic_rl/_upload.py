"""Chunked DSSST1 uploads: one chunk group per logical call, streamed one chunk at a time.

The chunk group id is the server's idempotency key for the call: every retry (made by the
HTTP seam), the one permitted replay (409 chunk_group_restart_required) and the refill of
missing chunks (409 chunk_group_missing_chunks) reuse it, so the work is scheduled once.
A large batch is never held twice in memory: chunks are encoded lazily and each body is
sent in slices.

Chunks are POSTed to the contract's path (``cortex_gs_contract.OPERATIONS``) through the
same seam as every other call, not through the generated binary operations: those send
``File.payload`` as httpx content, which from an async client can be bytes (copied whole
on the way to the socket, doubling a 60 MiB chunk) or a stream without a Content-Length;
and they parse a non-final chunk's answer as a ChunkAccepted, where the service may
answer an empty 200. A custom template for those operations could lift both limits.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import quote

import httpx
from cortex_gs_client.models import AcceptedRequest
from cortex_gs_contract import CHUNK_OPERATIONS, OPERATIONS, ErrorCode

from arctic_rl._errors import ArcticRLError, ChunkGroupError
from arctic_rl._progress import Progress, ProgressFactory

__all__ = ["ALWAYS_ENVELOPED", "Uploader"]

log = logging.getLogger("arctic_rl")

UPLOAD_SLICE = 1 << 20
BINARY_MEDIA_TYPE = "application/octet-stream"
# Today's client sends these as a chunk envelope even when one chunk holds the frame.
ALWAYS_ENVELOPED = frozenset({"forward_backward", "forward_no_grad"})


class _SlicedBody:
    """A chunk's body in UPLOAD_SLICE pieces; iterable again when the seam retries it.

    `release` drops the chunk once its POST is over: httpx keeps a finished response in a
    reference cycle with its request (and so with this body) until the garbage collector
    runs, which would otherwise hold every chunk of a large upload at once.
    """

    def __init__(self, data: bytes | bytearray | memoryview, bar: Progress) -> None:
        self._data = data
        self._bar = bar

    def release(self) -> None:
        self._data = b""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        view = memoryview(self._data)
        for start in range(0, len(view), UPLOAD_SLICE):
            piece = view[start : start + UPLOAD_SLICE]
            yield bytes(piece)
            self._bar.update(len(piece))


class Uploader:
    """Sends a value to a chunked operation and returns the service's acceptance."""

    def __init__(self, http: httpx.AsyncClient, chunk_bytes: int, progress: ProgressFactory):
        self._http = http
        self.chunk_bytes = chunk_bytes
        self._progress = progress

    async def upload(self, job_id: str, operation_id: str, value: Any) -> AcceptedRequest:
        """Stream `value` under one chunk-group id; replay or refill it once when asked."""
        group_id = uuid.uuid4().hex
        only: set[int] | None = None
        replayed = refilled = False
        while True:
            try:
                answer = await self._send_group(job_id, operation_id, value, group_id, only)
                return _acceptance(operation_id, answer)
            except ChunkGroupError as exc:
                if exc.code == ErrorCode.chunk_group_restart_required and not replayed:
                    replayed, only = True, None
                    log.info("arctic_rl: server lost chunk group %s; replaying it", group_id)
                elif exc.code == ErrorCode.chunk_group_missing_chunks and not refilled:
                    refilled, only = True, _missing_indexes(exc.details)
                    log.info("arctic_rl: resending chunks %s of group %s", only, group_id)
                else:
                    raise

    async def _send_group(
        self, job_id: str, operation_id: str, value: Any, group_id: str, only: set[int] | None
    ) -> httpx.Response:
        """Encode lazily and POST each chunk (all, or `only` those plus the final one)."""
        from arctic_rl import wire

        chunking = wire.Chunking(
            "request_chunk",
            self.chunk_bytes,
            chunk_group_id=group_id,
            operation=CHUNK_OPERATIONS[operation_id],
            bare_max_bytes=0 if operation_id in ALWAYS_ENVELOPED else None,
        )
        url = OPERATIONS[operation_id].path.format(job_id=quote(job_id, safe=""))
        answer: httpx.Response | None = None
        bar: Progress | None = None
        try:
            for chunk in wire.iter_chunks(value, chunking):
                if only is not None and chunk.index not in only and chunk.index != chunk.total - 1:
                    continue
                if bar is None:
                    bar = self._progress.upload(f"{operation_id} upload", chunk.frame_size)
                # No Idempotency-Key: the chunk descriptor (group id + frame hash) is the key.
                headers = {
                    "Content-Type": BINARY_MEDIA_TYPE,
                    "Content-Length": str(len(chunk.data)),
                }
                body = _SlicedBody(chunk.data, bar)
                try:
                    answer = await self._http.post(url, content=body, headers=headers)
                finally:
                    body.release()
        finally:
            if bar is not None:
                bar.close()
        if answer is None:
            raise ArcticRLError(f"{operation_id}: the value encoded to no chunks", code="no_chunks")
        return answer


def _acceptance(operation_id: str, response: httpx.Response) -> AcceptedRequest:
    """The final chunk's answer: the request to poll (a missing one breaks the contract)."""
    body = response.json() if response.content.strip() else {}
    if not isinstance(body, Mapping) or not body.get("request_id"):
        raise ArcticRLError(
            f"{operation_id} was accepted without a request_id: {body!r}", code="no_request_id"
        )
    return AcceptedRequest.from_dict(body)


def _missing_indexes(details: Any) -> set[int] | None:
    """Chunk indexes named by a chunk_group_missing_chunks error (None: resend everything)."""
    found = {
        d["loc"][-1]
        for d in details or []
        if isinstance(d, Mapping) and d.get("loc") and isinstance(d["loc"][-1], int)
    }
    return found or None
