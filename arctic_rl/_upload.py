"""Chunked DSSST1 uploads: one chunk group per logical call, streamed one chunk at a time.

The chunk group id is the server's idempotency key for the call: every retry (made by the
HTTP seam), the one permitted replay (409 chunk_group_restart_required), the refill of
missing chunks (409 chunk_group_missing_chunks) and the same call made again after its
caller was interrupted (the call's `_calls.Identity`) reuse it, so the work is scheduled
once. A large batch is never held twice in memory: chunks are encoded lazily and each
body is sent in slices.

The service keeps a bounded number of unfinished groups per job. When it has no room
(409 too_many_chunk_groups), the uploads this client left unfinished (its interrupted
calls') are abandoned (the proposed ``DELETE /{job_id}/chunk-groups/{id}``) and the upload
tried once more; if that frees nothing, `TooManyChunkGroupsError` says what helps.

Each chunk goes through the generated binary operation (``cortex_gs_client.api``, static
imports, like every JSON call) and so through the HTTP seam's retries and typed errors.
Two overrides of the generator's templates (openapi/templates/) make that possible: a
sized body (`_SlicedBody`) is sent with its Content-Length, in its own slices, rather
than as bytes (copied whole on the way to the socket, doubling a 60 MiB chunk) or as a
chunked upload; and an answer that is not its model (a non-final chunk's may be empty or
``{}``) leaves ``parsed`` None instead of raising, so only the final chunk's answer is
read: the AcceptedRequest to poll or, when the final chunk carried the proposed ``wait_s``
and the request ended within it, its RequestStatus.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import Any

import httpx
from cortex_gs_client import Client
from cortex_gs_client.api.requests import abandon_chunk_group
from cortex_gs_client.api.sampling import generate
from cortex_gs_client.api.training import forward_backward, forward_no_grad
from cortex_gs_client.models import AcceptedRequest, RequestStatus
from cortex_gs_client.types import UNSET, File, Response, Unset
from cortex_gs_contract import CHUNK_OPERATIONS, REQUEST_ID_HEADER, ErrorCode

from arctic_rl import wire
from arctic_rl._budgets import refuse_over_budget
from arctic_rl._calls import CallRegistry
from arctic_rl._errors import (
    APIStatusError,
    ArcticRLError,
    ChunkGroupError,
    ConflictError,
    TooManyChunkGroupsError,
    UnexpectedAnswerError,
)
from arctic_rl._polling import PollPlanner, send_with_wait_s
from arctic_rl._progress import Progress, ProgressFactory
from arctic_rl._timing import current as current_timing
from arctic_rl._timing import encoded
from arctic_rl.wire._encode import slice_runs

__all__ = ["ALWAYS_ENVELOPED", "Uploader"]

log = logging.getLogger("arctic_rl")

UPLOAD_SLICE = 1 << 20
# Sent as a chunk envelope even when one chunk holds the frame: the group id makes a
# retry after a lost answer safe (a bare frame would run again).
ALWAYS_ENVELOPED = frozenset({"forward_backward", "forward_no_grad", "generate"})

_ChunkPost = Callable[..., Awaitable[Response[Any]]]
# The generated operation that takes one chunk, per chunked operation id.
CHUNK_POSTS: dict[str, _ChunkPost] = {
    "forward_backward": forward_backward.asyncio_detailed,
    "forward_no_grad": forward_no_grad.asyncio_detailed,
    "generate": generate.asyncio_detailed,
}


class _SlicedBody:
    """A chunk's body, its parts sent in UPLOAD_SLICE pieces; iterable again when the
    HTTP seam retries it.

    The parts view the caller's tensors (`wire.iter_chunk_parts`): each piece is copied
    once, into the bytes the HTTP stack writes to the socket, and the chunk is never
    gathered into a buffer of its own. Sized, so the generated operation sends it with a
    Content-Length.

    `release` drops the parts once the POST is over: httpx keeps a finished response in
    a reference cycle with its request (and so with this body) until the garbage
    collector runs, which would otherwise keep every chunk's views (and the buffers they
    pin) alive at once.
    """

    def __init__(self, parts: tuple[bytes | memoryview, ...], size: int, bar: Progress) -> None:
        self._parts = parts
        self._size = size
        self._bar = bar

    def __len__(self) -> int:
        return self._size

    def release(self) -> None:
        self._parts = ()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        # Small parts (a header, small tensors) share a piece, not a write each.
        for run in slice_runs(self._parts, UPLOAD_SLICE):
            piece = b"".join(run)
            yield piece
            self._bar.update(len(piece))
        timing = current_timing()
        if timing is not None:
            timing.body_sent()


class Uploader:
    """Sends a value to a chunked operation and returns the service's acceptance.

    ``polls``: the service client's poll planner, told when a final chunk is refused for
    its ``wait_s`` (that chunk is then sent once more without it). ``calls``: the client's
    calls, whose left uploads are abandoned when the job has no room for another."""

    def __init__(
        self,
        client: Client,
        chunk_bytes: int,
        progress: ProgressFactory,
        polls: PollPlanner,
        calls: CallRegistry,
        check_budgets: bool = True,
    ):
        self._client = client
        self.chunk_bytes = chunk_bytes
        self._progress = progress
        self._polls = polls
        # The proposed cost budgets, checked only against a service that serves them.
        self._check_budgets = check_budgets
        self._calls = calls

    def frame(self, operation_id: str, value: Any) -> wire.EncodedFrame:
        """The frame to send (refused over the cost budgets), its digest taken: the chunks'
        descriptor, and the call's identity (`_calls.CallKey`)."""
        if self._check_budgets:
            refuse_over_budget(operation_id, value)
        return next(encoded(_digested(value)))

    async def upload(
        self,
        job_id: str,
        operation_id: str,
        frame: wire.EncodedFrame,
        *,
        group_id: str | None = None,
        wait_s: float | Unset = UNSET,
    ) -> AcceptedRequest | RequestStatus:
        """Stream `frame` under one chunk-group id (a fresh one unless given); replay or
        refill it once when asked; make room once when the job has too many open.

        ``wait_s`` goes with the final chunk: the server may then answer the finished
        request's status instead of its acceptance."""
        group_id = group_id or uuid.uuid4().hex
        only: set[int] | None = None
        replayed = refilled = made_room = False
        while True:
            try:
                answer = await self._send_group(job_id, operation_id, frame, group_id, only, wait_s)
                return _acceptance(operation_id, answer)
            except TooManyChunkGroupsError as exc:
                if made_room:
                    raise _explained(exc, "abandoning them did not make room") from None
                left, freed = await self._abandon_left(job_id)
                if not freed:
                    kept = f"the service kept all {left} (has it the abandon route?)"
                    raise _explained(exc, kept if left else "there were none") from None
                made_room = True
            except ChunkGroupError as exc:
                if exc.code == ErrorCode.chunk_group_restart_required and not replayed:
                    replayed, only = True, None
                    log.info("arctic_rl: server lost chunk group %s; replaying it", group_id)
                elif exc.code == ErrorCode.chunk_group_missing_chunks and not refilled:
                    refilled, only = True, _missing_indexes(exc)
                    log.info("arctic_rl: resending chunks %s of group %s", only, group_id)
                else:
                    raise

    async def _send_group(
        self,
        job_id: str,
        operation_id: str,
        frame: wire.EncodedFrame,
        group_id: str,
        only: set[int] | None,
        wait_s: float | Unset,
    ) -> Response[Any]:
        """Encode lazily and POST each chunk (all, or `only` those plus the final one)."""
        chunking = wire.Chunking(
            "request_chunk",
            self.chunk_bytes,
            chunk_group_id=group_id,
            operation=CHUNK_OPERATIONS[operation_id],
            bare_max_bytes=0 if operation_id in ALWAYS_ENVELOPED else None,
        )
        post = CHUNK_POSTS[operation_id]
        answer: Response[Any] | None = None
        bar: Progress | None = None
        try:
            for chunk in encoded(wire.iter_frame_chunk_parts(frame, chunking)):
                if only is not None and chunk.index not in only and chunk.index != chunk.total - 1:
                    continue
                if bar is None:
                    bar = self._progress.upload(f"{operation_id} upload", chunk.frame_size)
                # No Idempotency-Key: the chunk descriptor (group id + frame hash) is the key.
                body = _SlicedBody(chunk.parts, chunk.size, bar)
                final = chunk.index == chunk.total - 1
                try:
                    answer = await self._post(post, job_id, body, wait_s if final else UNSET)
                finally:
                    body.release()
        finally:
            if bar is not None:
                bar.close()
        if answer is None:
            raise ArcticRLError(f"{operation_id}: the value encoded to no chunks", code="no_chunks")
        return answer

    async def _post(
        self, post: _ChunkPost, job_id: str, body: _SlicedBody, wait_s: float | Unset
    ) -> Response[Any]:
        """One chunk's POST; a final one refused for its ``wait_s`` goes once more without."""

        async def send(held: float | Unset) -> Response[Any]:
            return await post(job_id, client=self._client, body=File(payload=body), wait_s=held)

        try:
            return (await send_with_wait_s(self._polls, job_id, wait_s, send))[0]
        except ConflictError as exc:
            if exc.code != ErrorCode.too_many_chunk_groups:
                raise
            raise TooManyChunkGroupsError(
                exc.message, status=exc.status, code=exc.code, request_id=exc.request_id
            ) from None

    async def _abandon_left(self, job_id: str) -> tuple[int, int]:
        """Abandon the unfinished uploads this client's interrupted calls left open: how
        many there were, and how many the service dropped (each such call keeps its
        identity under a new group id)."""
        left = await self._calls.left_uploads(job_id)
        freed = 0
        for key, identity in left:
            try:
                await abandon_chunk_group.asyncio_detailed(
                    job_id, identity.key, client=self._client
                )
            except APIStatusError:
                continue  # gone, or it ran (a retry of it is answered by it), or no route
            log.info(
                "arctic_rl: abandoned the unfinished %s upload %s", key.operation, identity.key
            )
            identity.renew()
            freed += 1
        return len(left), freed


def _digested(value: Any) -> Iterator[wire.EncodedFrame]:
    """The value's frame with its digest taken (one item: timed as encoding)."""
    frame = wire.encode_frame(value)
    frame.sha256()
    yield frame


def _explained(exc: TooManyChunkGroupsError, mine: str) -> TooManyChunkGroupsError:
    """The service's refusal, with what the caller can do about it (``mine``: what became
    of the unfinished uploads this client had left)."""
    remedy = (
        f"{exc.message}. The job's unfinished uploads are uploads cut mid-way (a per-call "
        f"timeout, a killed process); of those this client left, {mine}. The service "
        "drops each an hour after its first chunk (the mock: 64 per job, 1 h); until then, "
        "let the calls of other clients of this job finish, or train on a new job"
    )
    return TooManyChunkGroupsError(
        remedy, status=exc.status, code=exc.code, request_id=exc.request_id
    )


def _acceptance(
    operation_id: str, response: Response[Any] | httpx.Response
) -> AcceptedRequest | RequestStatus:
    """The final chunk's answer: the request to poll, or its status when it ended within
    the final chunk's ``wait_s`` (a missing request id breaks the contract).

    The generated operation has parsed a 202 into an AcceptedRequest and a finished one's
    200 into a RequestStatus; any other success (an httpx.Response has no ``parsed``) is
    read as it came, as it always has been.
    """
    parsed = getattr(response, "parsed", None)
    if isinstance(parsed, AcceptedRequest | RequestStatus) and parsed.request_id:
        return parsed
    try:
        body = json.loads(response.content) if response.content.strip() else {}
        if isinstance(body, Mapping) and body.get("request_id"):
            return AcceptedRequest.from_dict(body)
    except (KeyError, TypeError, ValueError) as exc:
        body = f"{type(exc).__name__}: {exc}"
    raise UnexpectedAnswerError(
        f"{operation_id} was accepted without a request_id: {body!r}",
        status=response.status_code,
        code="no_request_id",
        request_id=response.headers.get(REQUEST_ID_HEADER),
    )


def _missing_indexes(exc: ChunkGroupError) -> set[int] | None:
    """Chunk indexes a chunk_group_missing_chunks error names (None: resend everything).

    The service lists at most a prefix of them; when its count says there are more, the
    list is not the whole story and every chunk is sent again.
    """
    found = {
        d["loc"][-1]
        for d in exc.details or []
        if isinstance(d, Mapping) and d.get("loc") and isinstance(d["loc"][-1], int)
    }
    if exc.missing_chunk_count is not None and exc.missing_chunk_count > len(found):
        return None
    return found or None
