"""`CortexService`: Cortex GS over HTTP, the `ServiceAPI` the client is built on.

`CortexService` calls the generated operation functions (``cortex_gs_client.api``) by
static import with typed request models, and reads their parsed answers. Retries, error
mapping and idempotency keys are not here: they live in the service transport (`_http`),
which every request crosses. Chunked uploads (generated binary operations too) are `_upload`'s,
polling is `_polling`'s.

Callers may await it from any event loop or thread: its connection pool, its retry state
(whether the service has answered this client once) and its poll schedule live on its own
I/O loop (`_io_loop.IOLoop`), to which each public coroutine method is bridged
(`on_io_loop_methods`): one hop each way, whatever loop calls.

One model family on the wire: the generated client's attrs models. They are what the
generated operation functions take and return, and they keep unknown keys
(``additional_properties``), which the contract's open request bodies need; the pydantic
models (``cortex_gs_models``) stay the mock's, which validates strictly.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from arctic_rl._answers import parsed, parsed_and_id
from arctic_rl._calls import CallKey, CallRegistry, Identity, json_digest
from arctic_rl._connection import Connection
from arctic_rl._endpoint import ClientSettings, ServiceTraits, check_scheme, proxy_for
from arctic_rl._errors import (
    NotFoundError,
)
from arctic_rl._io_loop import IOLoop, on_io_loop_methods
from arctic_rl._options import ServiceOptions
from arctic_rl._progress import ProgressFactory
from arctic_rl._timing import timed
from arctic_rl._waits import Waits

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

    from arctic_rl._polling import PollPlanner
    from arctic_rl._upload import Uploader

__all__ = ["CortexService"]

log = logging.getLogger("arctic_rl")

# A submit's answer (and its x-snowflake-request-id), and the wait_s it was sent with.
_Submitted = tuple[tuple["AcceptedRequest | RequestStatus", str | None], "float | Unset"]


@on_io_loop_methods
class CortexService(Waits):
    """Cortex GS (or the mock) over HTTP: control plane, JSON and chunked data plane, polls.

    Building one costs nothing but its settings (``options``; a `CortexConfig` gives its
    own with `CortexConfig.service_options`): the HTTP stack and the generated client load
    on the first call (each operation group's module when first used), and the poll
    schedule when the first request is polled, so a training script's start-up does not
    pay for code it has not reached yet.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        options: ServiceOptions | None = None,
        *,
        hold_submits: bool = True,
        served_idempotency: bool = False,
        token_env: str | None = None,
        httpx_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.options = options = options or ServiceOptions()
        check_scheme(self.base_url, allow_insecure_http=options.allow_insecure_http)
        # Send the proposed wait_s with submits too (a checker of today's contract turns it off).
        self.hold_submits = hold_submits
        self._progress = ProgressFactory(options.progress, options.progress_min_bytes)
        self._settings = ClientSettings(
            self.base_url,
            SecretStr(token),
            options,
            inner=httpx_transport,
            token_env=token_env,  # the variable the token came from, named in a 401
            proxy=None
            if httpx_transport is not None
            else proxy_for(self.base_url, allow_insecure_proxy=options.allow_insecure_proxy),
            traits=ServiceTraits(served_idempotency=served_idempotency),
        )
        self._connection = Connection(self._settings)
        self.io_loop = IOLoop(closing=self._connection.aclose)
        self._planner: PollPlanner | None = None
        # Whether the service serves the contract's proposals (None: not asked yet). Its
        # cost budgets are checked before an upload only when it does.
        self.serves_proposals: bool | None = None
        self._calls = CallRegistry()  # what an interrupted call leaves for its retry

    def __repr__(self) -> str:
        return f"CortexService(base_url={self.base_url!r})"

    @property
    def traits(self) -> ServiceTraits:
        """What this client knows of its service (whether it serves Idempotency-Key, ...);
        its transport reads them at every call."""
        return self._settings.traits

    @property
    def _client(self) -> Client:
        """The generated client over the service transport (opened on the first call)."""
        return self._connection.client()

    @property
    def polls(self) -> PollPlanner:
        """When requests are polled (what was learned of the service's durations)."""
        if self._planner is None:
            from arctic_rl._polling import PollPlanner

            self._planner = PollPlanner(self.options.poll)
        return self._planner

    def _uploader(self) -> Uploader:
        from arctic_rl._upload import Uploader

        budgets = self.serves_proposals is not False
        chunk_bytes = self.options.chunk_bytes
        return Uploader(self._client, chunk_bytes, self._progress, self.polls, self._calls, budgets)

    async def aclose(self) -> None:
        """Close the connection pool and end the I/O loop's thread (a later call opens new
        ones); calls still running there are cancelled and raise `ClientClosedError`. The
        caller waits the few milliseconds that takes. On the loop itself, as the blocking
        client's calls run, the other calls and the pool: the loop cannot join its own
        thread, so that caller stops it."""
        if self.io_loop.is_current():
            await self.io_loop.begin_close()
            await self._connection.aclose()
        else:
            self.io_loop.stop()  # cancels what still runs there, then closes the pool

    # -- which service ----------------------------------------------------------------

    async def probe_proposals(self) -> bool:
        """Ask the proposed capabilities route: True when it answers (the service serves
        the proposals), False on today's 404. Any other failure is raised."""
        from cortex_gs_client.api.jobs import get_capabilities

        try:  # the transport raises for any error
            await get_capabilities.asyncio_detailed(client=self._client)
        except NotFoundError:
            return False
        return True

    def serving(self, proposals: bool) -> None:
        """Record which service this is: its budgets and its retries follow."""
        self.serves_proposals = proposals
        self.traits.served_idempotency = proposals

    # -- control plane ----------------------------------------------------------------

    async def create_job(self, body: CreateJobRequest) -> str:
        from cortex_gs_client.api.jobs import create_job
        from cortex_gs_client.models import CreateJobResponse

        call = create_job.asyncio_detailed(client=self._client, body=body)
        return (await parsed(call, CreateJobResponse)).job_id

    async def get_job(self, job_id: str) -> Job:
        from cortex_gs_client.api.jobs import get_job
        from cortex_gs_client.models import Job

        return await parsed(get_job.asyncio_detailed(job_id, client=self._client), Job)

    async def list_jobs(self, status: str | None = None) -> list[JobSummary]:
        from cortex_gs_client.api.jobs import list_jobs
        from cortex_gs_client.models import JobList, JobState
        from cortex_gs_client.types import UNSET

        from arctic_rl._tracking import normalize_state

        state = UNSET if status is None else JobState(normalize_state(status))
        call = list_jobs.asyncio_detailed(client=self._client, status=state)
        return (await parsed(call, JobList)).jobs

    async def get_capacity(self) -> Capacity:
        from cortex_gs_client.api.jobs import get_capacity
        from cortex_gs_client.models import Capacity

        return await parsed(get_capacity.asyncio_detailed(client=self._client), Capacity)

    async def cancel_job(self, job_id: str) -> None:
        """Cancel; today's service answers 200 with an empty body."""
        from cortex_gs_client.api.jobs import cancel_job

        await cancel_job.asyncio_detailed(job_id, client=self._client)

    async def list_checkpoints(self, job_id: str) -> list[Checkpoint]:
        from cortex_gs_client.api.checkpoints import list_checkpoints
        from cortex_gs_client.models import CheckpointList

        call = list_checkpoints.asyncio_detailed(job_id, client=self._client)
        return (await parsed(call, CheckpointList)).checkpoints

    async def delete_checkpoint(self, job_id: str, checkpoint_id: str) -> None:
        from cortex_gs_client.api.checkpoints import delete_checkpoint

        await delete_checkpoint.asyncio_detailed(job_id, checkpoint_id, client=self._client)

    # -- data plane -------------------------------------------------------------------

    @timed  # inside the class's bridge: the call is timed on the I/O loop, where it runs
    async def run_chunked(self, job_id: str, operation_id: str, value: Any) -> Any:
        """Send a DSSST1 value to a chunked operation and return its decoded result; an
        interrupted identical call is taken over (`_calls`), its chunk group reused."""

        uploader = self._uploader()
        frame = uploader.frame(operation_id, value)

        async def submit(identity: Identity, wait_s: float | Unset) -> _Submitted:
            upload = uploader.upload(
                job_id, operation_id, frame, group_id=identity.key, wait_s=wait_s
            )
            return (await upload, None), wait_s

        key = CallKey(operation_id, job_id, frame.sha256())
        return await self._calls.run(key, self._attached(job_id, operation_id, submit))

    async def upload(
        self, job_id: str, operation_id: str, value: Any
    ) -> AcceptedRequest | RequestStatus:
        uploader = self._uploader()
        return await uploader.upload(job_id, operation_id, uploader.frame(operation_id, value))

    def _submit_wait_s(self, job_id: str) -> float | Unset:
        """The proposed ``wait_s`` sent with a submit: the long poll's, so a request that
        ends within it comes back with the submit's answer (one round trip, not two)."""
        from arctic_rl._polling import held_wait_s

        wanted = self.options.long_poll_s if self.hold_submits else 0.0
        return held_wait_s(self.polls.long_poll_s(job_id, wanted))

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

    @timed
    async def run_operation(self, job_id: str, body: OperationRequest | bytes) -> Any:
        """An inline operation's answer (200) as it came; an accepted one's (202) result.
        ``body`` may come as its JSON text already built (a forward's base64 frame, tens of
        MiB that the HTTP stack would otherwise serialise once more)."""
        from cortex_gs_client.api.operations import run_operation
        from cortex_gs_client.models import AcceptedRequest, OperationAnswer

        if isinstance(body, bytes):
            call = self._connection.post_operation_json(job_id, body)
        else:
            call = run_operation.asyncio_detailed(job_id, client=self._client, body=body)
        answer = await parsed(call, OperationAnswer, AcceptedRequest)
        if isinstance(answer, OperationAnswer):
            return answer.to_dict()
        return await self.wait_request(job_id, answer.request_id, desc="operation")

    @timed
    async def _submit(
        self,
        job_id: str,
        desc: str,
        operation: Callable[..., Awaitable[Response[Any]]],
        body: Any,
    ) -> Any:
        """A JSON submit sent with the proposed ``wait_s``, and its result: read from its
        answer when it finished within ``wait_s`` (200 RequestStatus), else polled (202
        AcceptedRequest). An interrupted identical call is taken over (`_calls`): its
        request polled, or the submit resent under its Idempotency-Key."""
        from cortex_gs_client.models import AcceptedRequest, RequestStatus

        from arctic_rl._polling import send_with_wait_s

        async def submit(identity: Identity, wait_s: float | Unset) -> _Submitted:
            async def send(
                held: float | Unset,
            ) -> tuple[AcceptedRequest | RequestStatus, str | None]:
                call = operation(
                    job_id,
                    client=self._client,
                    body=body,
                    wait_s=held,
                    idempotency_key=identity.key,
                )
                return await parsed_and_id(call, AcceptedRequest, RequestStatus)

            return await send_with_wait_s(self.polls, job_id, wait_s, send)

        key = CallKey(desc, job_id, json_digest(body))
        return await self._calls.run(key, self._attached(job_id, desc, submit))

    def _attached(
        self,
        job_id: str,
        desc: str,
        submit: Callable[[Identity, float | Unset], Awaitable[_Submitted]],
    ) -> Callable[[Identity], Awaitable[Any]]:
        """The call under an identity (`_calls`): submitted unless the service accepted it
        already, then its result, read from the submit's answer when it finished within
        ``wait_s`` (200 RequestStatus), else polled."""
        from cortex_gs_client.models import RequestStatus

        async def attached(identity: Identity) -> Any:
            first = None
            if identity.request_id is None:
                started = time.monotonic()
                (answer, sf_request_id), wait_s = await submit(
                    identity, self._submit_wait_s(job_id)
                )
                identity.request_id = answer.request_id
                if isinstance(answer, RequestStatus):
                    first = (answer, sf_request_id)
                else:
                    self.polls.submitted(job_id, wait_s, time.monotonic() - started)
            return await self.wait_request(job_id, identity.request_id, desc=desc, first=first)

        return attached
