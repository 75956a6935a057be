"""`ServiceAPI`, what the client needs from Cortex GS, and `CortexService`, its HTTP form.

`CortexService` calls the generated operation functions (``cortex_gs_client.api``) by
static import with typed request models, and reads their parsed answers. Retries, error
mapping and idempotency keys are not here: they live in the HTTP seam (`_http`), which
every request crosses. Chunked uploads (generated binary operations too) are `_upload`'s,
polling is `_polling`'s.

One model family on the wire: the generated client's attrs models. They are what the
generated operation functions take and return, and they keep unknown keys
(``additional_properties``), which the contract's open request bodies need; the pydantic
models (``cortex_gs_models``) stay the mock's, which validates strictly.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from pydantic import SecretStr

from arctic_rl._config import DEFAULT_MAX_ANSWER_BYTES, ClientSettings, check_scheme
from arctic_rl._errors import (
    ArcticRLError,
    BadRequestError,
    JobFailedError,
    RequestTimeoutError,
    ResultFrameError,
    UnexpectedAnswerError,
)
from arctic_rl._errors import ValidationError as RequestValidationError
from arctic_rl._progress import ProgressFactory

if TYPE_CHECKING:
    import httpx
    from cortex_gs_client import Client
    from cortex_gs_client.models import (
        AcceptedRequest,
        Capacity,
        Checkpoint,
        CreateJobRequest,
        Job,
        JobSummary,
        LoadRequest,
        LogProbsRequest,
        OperationRequest,
        RequestStatus,
        SaveRequest,
        StepRequest,
        SyncWeightsRequest,
    )
    from cortex_gs_client.types import Response, Unset

    from arctic_rl._polling import RequestTracker
    from arctic_rl._upload import Uploader

__all__ = ["CortexService", "ServiceAPI"]

log = logging.getLogger("arctic_rl")
T = TypeVar("T")

MAX_EVENTS_PER_POLL = 64
MAX_LONG_POLL_S = 20.0


@runtime_checkable
class ServiceAPI(Protocol):
    """What the client needs from the service, one method per operation it uses."""

    async def create_job(self, body: CreateJobRequest) -> str: ...
    async def get_job(self, job_id: str) -> Job: ...
    async def list_jobs(self, status: str | None = None) -> list[JobSummary]: ...
    async def cancel_job(self, job_id: str) -> None: ...
    async def wait_job_running(self, job_id: str, timeout: float) -> Job: ...
    async def list_checkpoints(self, job_id: str) -> list[Checkpoint]: ...
    async def delete_checkpoint(self, job_id: str, checkpoint_id: str) -> None: ...
    async def run_chunked(self, job_id: str, operation_id: str, value: Any) -> Any: ...
    async def step(self, job_id: str, body: StepRequest) -> Any: ...
    async def save_checkpoint(self, job_id: str, body: SaveRequest) -> Any: ...
    async def load_checkpoint(self, job_id: str, body: LoadRequest) -> Any: ...
    async def log_probs(self, job_id: str, body: LogProbsRequest) -> Any: ...
    async def sync_weights(self, job_id: str, body: SyncWeightsRequest) -> Any: ...
    async def run_operation(self, job_id: str, body: OperationRequest) -> Any: ...
    async def aclose(self) -> None: ...


async def _answer(call: Awaitable[Response[Any]], *expected: type[T]) -> T:
    """The parsed answer of a generated call, or a clear error when it is outside the contract."""
    return (await _answer_and_id(call, *expected))[0]


async def _answer_and_id(
    call: Awaitable[Response[Any]], *expected: type[T]
) -> tuple[T, str | None]:
    """The parsed answer and its x-snowflake-request-id.

    Error statuses never get here (the HTTP seam raises them); an undocumented success
    status parses to None, an answer of the wrong shape fails in the generated parser.
    """
    from cortex_gs_contract import REQUEST_ID_HEADER

    try:
        response = await call
    except ArcticRLError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise UnexpectedAnswerError(
            f"the service answered outside its contract: {type(exc).__name__}: {exc}",
            code="unexpected_answer",
        ) from exc
    request_id = response.headers.get(REQUEST_ID_HEADER)
    if isinstance(response.parsed, expected):
        return response.parsed, request_id
    raise UnexpectedAnswerError(
        f"the service answered HTTP {response.status_code} outside its contract: "
        f"{response.content[:200]!r}",
        status=response.status_code,
        code="unexpected_answer",
        request_id=request_id,
    )


class CortexService:
    """Cortex GS (or the mock) over HTTP: control plane, JSON and chunked data plane, polls.

    Building one costs nothing but its settings: the HTTP stack and the generated client
    load on the first call (each operation group's module when first used), so a
    training script's start-up does not pay for code it has not reached yet.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        verify_tls: bool = True,
        chunk_bytes: int = 60 * 1024 * 1024,
        poll_timeout: float = 1800.0,
        long_poll_s: float = 10.0,
        hold_submits: bool = True,
        max_retries: int = 10,
        retry_timeout: float = 600.0,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        allow_insecure_http: bool = False,
        progress: ProgressFactory | None = None,
        httpx_transport: httpx.AsyncBaseTransport | None = None,
        token_env: str | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        check_scheme(self.base_url, allow_insecure_http=allow_insecure_http)
        self.poll_timeout = poll_timeout
        self.long_poll_s = long_poll_s
        # Send the proposed wait_s with submits too (a checker of today's contract turns it off).
        self.hold_submits = hold_submits
        self.chunk_bytes = chunk_bytes
        self._progress = progress or ProgressFactory(enabled=False, min_bytes=0)
        self._settings = ClientSettings(
            self.base_url,
            SecretStr(token),
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            verify_tls=verify_tls,
            max_retries=max_retries,
            retry_timeout=retry_timeout,
            max_answer_bytes=max_answer_bytes,
            inner=httpx_transport,
            token_env=token_env,
        )
        self._opened: Client | None = None

    def __repr__(self) -> str:
        return f"CortexService(base_url={self.base_url!r})"

    @property
    def _client(self) -> Client:
        """The generated client over the HTTP seam, opened on first use."""
        if self._opened is None:
            from arctic_rl._http import open_client

            self._opened = open_client(self._settings)
        return self._opened

    def _uploader(self) -> Uploader:
        from arctic_rl._upload import Uploader

        return Uploader(self._client, self.chunk_bytes, self._progress)

    async def aclose(self) -> None:
        if self._opened is not None:
            await self._opened.get_async_httpx_client().aclose()

    # -- control plane ----------------------------------------------------------------

    async def create_job(self, body: CreateJobRequest) -> str:
        from cortex_gs_client.api.jobs import create_job
        from cortex_gs_client.models import CreateJobResponse

        call = create_job.asyncio_detailed(client=self._client, body=body)
        return (await _answer(call, CreateJobResponse)).job_id

    async def get_job(self, job_id: str) -> Job:
        from cortex_gs_client.api.jobs import get_job
        from cortex_gs_client.models import Job

        return await _answer(get_job.asyncio_detailed(job_id, client=self._client), Job)

    async def list_jobs(self, status: str | None = None) -> list[JobSummary]:
        from cortex_gs_client.api.jobs import list_jobs
        from cortex_gs_client.models import JobList, JobState
        from cortex_gs_client.types import UNSET

        from arctic_rl._polling import normalize_state

        state = UNSET if status is None else JobState(normalize_state(status))
        call = list_jobs.asyncio_detailed(client=self._client, status=state)
        return (await _answer(call, JobList)).jobs

    async def get_capacity(self) -> Capacity:
        from cortex_gs_client.api.jobs import get_capacity
        from cortex_gs_client.models import Capacity

        return await _answer(get_capacity.asyncio_detailed(client=self._client), Capacity)

    async def cancel_job(self, job_id: str) -> None:
        """Cancel; today's service answers 200 with an empty body."""
        from cortex_gs_client.api.jobs import cancel_job

        await cancel_job.asyncio_detailed(job_id, client=self._client)

    async def list_checkpoints(self, job_id: str) -> list[Checkpoint]:
        from cortex_gs_client.api.checkpoints import list_checkpoints
        from cortex_gs_client.models import CheckpointList

        call = list_checkpoints.asyncio_detailed(job_id, client=self._client)
        return (await _answer(call, CheckpointList)).checkpoints

    async def delete_checkpoint(self, job_id: str, checkpoint_id: str) -> None:
        from cortex_gs_client.api.checkpoints import delete_checkpoint

        await delete_checkpoint.asyncio_detailed(job_id, checkpoint_id, client=self._client)

    async def wait_job_running(self, job_id: str, timeout: float) -> Job:
        """Poll the job until it runs; a job that ends first raises JobFailedError."""
        from arctic_rl._polling import (
            RUNNING_JOB_STATE,
            TERMINAL_JOB_STATES,
            Backoff,
            normalize_state,
        )

        deadline = time.monotonic() + timeout
        backoff = Backoff()
        with self._progress.wait(f"waiting for job {job_id}") as bar:
            while True:
                job = await self.get_job(job_id)
                state = normalize_state(job.status)
                bar.status(state)
                if state == RUNNING_JOB_STATE:
                    return job
                if state in TERMINAL_JOB_STATES:
                    reason = job.reason or "no reason given"
                    raise JobFailedError(f"job {job_id} is {state}: {reason}", code=state)
                delay = backoff.next()
                if time.monotonic() + delay > deadline:
                    raise RequestTimeoutError(
                        f"job {job_id} still {state} after {timeout:.0f} s", code=state
                    )
                await asyncio.sleep(delay)

    # -- data plane -------------------------------------------------------------------

    async def run_chunked(self, job_id: str, operation_id: str, value: Any) -> Any:
        """Send a DSSST1 value to a chunked operation and return its decoded result."""
        from cortex_gs_client.models import RequestStatus

        answer = await self._uploader().upload(
            job_id, operation_id, value, wait_s=self._submit_wait_s()
        )
        first = (answer, None) if isinstance(answer, RequestStatus) else None
        return await self.wait_request(job_id, answer.request_id, desc=operation_id, first=first)

    async def upload(
        self, job_id: str, operation_id: str, value: Any
    ) -> AcceptedRequest | RequestStatus:
        return await self._uploader().upload(job_id, operation_id, value)

    def _submit_wait_s(self) -> float | Unset:
        """The proposed ``wait_s`` sent with a submit: the long poll's, so a request that
        ends within it comes back with the submit's answer (one round trip, not two)."""
        return _held(self.long_poll_s if self.hold_submits else 0.0)

    async def step(self, job_id: str, body: StepRequest) -> Any:
        from cortex_gs_client.api.training import step

        return await self._submit(job_id, "step", step.asyncio_detailed, body)

    async def save_checkpoint(self, job_id: str, body: SaveRequest) -> Any:
        from cortex_gs_client.api.checkpoints import save_checkpoint

        return await self._submit(job_id, "save", save_checkpoint.asyncio_detailed, body)

    async def load_checkpoint(self, job_id: str, body: LoadRequest) -> Any:
        from cortex_gs_client.api.checkpoints import load_checkpoint

        return await self._submit(job_id, "load", load_checkpoint.asyncio_detailed, body)

    async def log_probs(self, job_id: str, body: LogProbsRequest) -> Any:
        from cortex_gs_client.api.sampling import log_probs

        return await self._submit(job_id, "log-probs", log_probs.asyncio_detailed, body)

    async def sync_weights(self, job_id: str, body: SyncWeightsRequest) -> Any:
        from cortex_gs_client.api.sampling import sync_weights

        return await self._submit(job_id, "sync-weights", sync_weights.asyncio_detailed, body)

    async def run_operation(self, job_id: str, body: OperationRequest) -> Any:
        """An inline operation's answer (200) as it came; an accepted one's (202) result."""
        from cortex_gs_client.api.operations import run_operation
        from cortex_gs_client.models import AcceptedRequest, OperationAnswer

        call = run_operation.asyncio_detailed(job_id, client=self._client, body=body)
        answer = await _answer(call, OperationAnswer, AcceptedRequest)
        if isinstance(answer, OperationAnswer):
            return answer.to_dict()
        return await self.wait_request(job_id, answer.request_id, desc="operation")

    async def _submit(
        self,
        job_id: str,
        desc: str,
        operation: Callable[..., Awaitable[Response[Any]]],
        body: Any,
    ) -> Any:
        """A JSON submit sent with the proposed ``wait_s``, and its result."""
        call = operation(job_id, client=self._client, body=body, wait_s=self._submit_wait_s())
        return await self._accepted(job_id, desc, call)

    async def _accepted(self, job_id: str, desc: str, call: Awaitable[Response[Any]]) -> Any:
        """A submit's result: read from its answer when it finished within ``wait_s``
        (200 RequestStatus), else polled (202 AcceptedRequest)."""
        from cortex_gs_client.models import AcceptedRequest, RequestStatus

        answer, sf_request_id = await _answer_and_id(call, AcceptedRequest, RequestStatus)
        first = (answer, sf_request_id) if isinstance(answer, RequestStatus) else None
        return await self.wait_request(job_id, answer.request_id, desc=desc, first=first)

    async def _poll(
        self, job_id: str, request_id: str, cursor: str | None, wait_s: float
    ) -> tuple[RequestStatus, str | None] | None:
        """One poll and its x-snowflake-request-id; None when the server refused ``wait_s``."""
        from cortex_gs_client.api.requests import get_request
        from cortex_gs_client.models import RequestStatus
        from cortex_gs_client.types import UNSET

        try:
            call = get_request.asyncio_detailed(
                job_id,
                request_id,
                client=self._client,
                cursor=cursor or UNSET,
                max_events=MAX_EVENTS_PER_POLL,
                wait_s=_held(wait_s),
            )
            return await _answer_and_id(call, RequestStatus)
        except (RequestValidationError, BadRequestError):
            if wait_s <= 0:
                raise
            log.info("arctic_rl: server refuses wait_s; polling instead")
            self.long_poll_s = 0.0
            return None

    async def wait_request(
        self,
        job_id: str,
        request_id: str,
        *,
        desc: str = "request",
        first: tuple[RequestStatus, str | None] | None = None,
    ) -> Any:
        """Poll a request to its end, collecting result chunks; return the decoded result.

        ``first``: a status page the submit already answered (and its exchange id), read
        before any poll; a finished request with its whole result needs no poll at all.
        """
        from arctic_rl._polling import Backoff, Finished, Next, RequestTracker

        tracker = RequestTracker(request_id)
        backoff = Backoff()
        deadline = time.monotonic() + self.poll_timeout
        with self._progress.wait(f"{desc} {request_id}") as bar:
            if first is not None:
                outcome = _read_poll(tracker, *first)
                bar.status(tracker.state)
                if isinstance(outcome, Finished):
                    return outcome.value
            while True:
                wait_s = min(self.long_poll_s, max(0.0, deadline - time.monotonic()))
                started = time.monotonic()
                before = tracker.state
                polled = await self._poll(job_id, request_id, tracker.cursor, wait_s)
                if polled is None:
                    continue
                outcome = _read_poll(tracker, *polled)
                bar.status(tracker.state)
                if isinstance(outcome, Finished):
                    return outcome.value
                if outcome is Next.POLL_NOW:
                    continue
                if time.monotonic() > deadline:
                    raise RequestTimeoutError(
                        f"request {request_id} still {tracker.state} "
                        f"after {self.poll_timeout:.0f} s",
                        code=tracker.state,
                    )
                if wait_s > 0 and (
                    tracker.state != before or time.monotonic() - started >= wait_s / 2
                ):
                    continue  # the long poll answered news, or was held: ask again at once
                await asyncio.sleep(backoff.next())


def _held(wait_s: float) -> float | Unset:
    """A long poll's ``wait_s`` as sent: capped at the contract's maximum, UNSET when off."""
    from cortex_gs_client.types import UNSET

    return round(min(wait_s, MAX_LONG_POLL_S), 3) if wait_s > 0 else UNSET


def _read_poll(tracker: RequestTracker, status: RequestStatus, sf_request_id: str | None) -> Any:
    """The tracker's reading of one poll; its errors carry the poll's request id."""
    from arctic_rl.wire import WireError

    try:
        return tracker.read(status)
    except WireError as exc:
        err = ResultFrameError(
            f"request {tracker.request_id}'s result is not a valid DSSST1 frame: {exc.message}",
            code=exc.code,
            request_id=sf_request_id,
        )
        err.wire_code = exc.code
        raise err from exc
    except ArcticRLError as exc:
        exc.request_id = exc.request_id or sf_request_id
        raise
