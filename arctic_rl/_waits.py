"""How a `CortexService` waits: for its job to run, and for a request to end (polled,
long-polled where the service holds polls), within the caller's timeout."""

from __future__ import annotations

import asyncio
import functools
import time
from typing import TYPE_CHECKING, Any

from arctic_rl._answers import parsed_and_id, read_poll
from arctic_rl._errors import (
    BadRequestError,
    InvalidRequestError,
    JobFailedError,
    RequestTimeoutError,
)
from arctic_rl._io_loop import on_io_loop_methods

if TYPE_CHECKING:
    from cortex_gs_client.models import Job, RequestStatus

    from arctic_rl._cortex import CortexService
    from arctic_rl.wire import AssemblyPool

__all__ = ["Waits"]

MAX_EVENTS_PER_POLL = 64


@on_io_loop_methods
class Waits:
    """The waits of `CortexService` (a mixin: it polls with the service's client, poll
    planner and progress), each public one bridged to the service's I/O loop."""

    @functools.cached_property
    def _result_pool(self) -> AssemblyPool:
        """What this client's result frames are assembled with, from call to call: the
        pages of a released result, the hashing threads (made on first use, so building a
        client loads no codec)."""
        from arctic_rl.wire import AssemblyPool

        return AssemblyPool()

    async def wait_job_running(self: CortexService, job_id: str, timeout: float) -> Job:
        """Poll the job until it runs; a job that ends first raises JobFailedError. The
        timeout bounds the whole wait, a poll that hangs included."""
        from arctic_rl._polling import PollPause
        from arctic_rl._tracking import RUNNING_JOB_STATE, TERMINAL_JOB_STATES, normalize_state

        state = "unknown"
        pause = PollPause(self.options.poll)
        with self._progress.wait(f"waiting for job {job_id}") as bar:
            try:
                async with asyncio.timeout(timeout):
                    while True:
                        job = await self.get_job(job_id)
                        state = normalize_state(job.status)
                        bar.status(state)
                        if state == RUNNING_JOB_STATE:
                            return job
                        if state in TERMINAL_JOB_STATES:
                            reason = job.reason or "no reason given"
                            raise JobFailedError(f"job {job_id} is {state}: {reason}", code=state)
                        await asyncio.sleep(pause.next())
            except TimeoutError:
                raise RequestTimeoutError(
                    f"job {job_id} still {state} after {timeout:.0f} s", code=state
                ) from None

    async def _poll(
        self: CortexService, job_id: str, request_id: str, cursor: str | None, wait_s: float
    ) -> tuple[RequestStatus, str | None] | None:
        """One poll and its x-snowflake-request-id; None when the server refused ``wait_s``."""
        from cortex_gs_client.api.requests import get_request
        from cortex_gs_client.models import RequestStatus
        from cortex_gs_client.types import UNSET

        from arctic_rl._polling import held_wait_s

        try:
            call = get_request.asyncio_detailed(
                job_id,
                request_id,
                client=self._client,
                cursor=cursor or UNSET,
                max_events=MAX_EVENTS_PER_POLL,
                wait_s=held_wait_s(wait_s),
            )
            return await parsed_and_id(call, RequestStatus)
        except (InvalidRequestError, BadRequestError):
            if wait_s <= 0:
                raise
            self.polls.no_long_poll(job_id, "refuses")
            return None

    async def wait_request(
        self: CortexService,
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
        from arctic_rl._polling import poll_once
        from arctic_rl._tracking import Finished, RequestTracker

        tracker = RequestTracker(request_id, self._result_pool)
        timeout = self.options.poll_timeout
        plan = self.polls.request(job_id, desc, self.options.long_poll_s)
        deadline = time.monotonic() + timeout
        with self._progress.wait(f"{desc} {request_id}") as bar:
            if first is not None:
                outcome = read_poll(tracker, *first)
                bar.status(tracker.state)
                if isinstance(outcome, Finished):
                    plan.finished(first[0])
                    return outcome.value
            try:
                async with asyncio.timeout(timeout):  # a hung poll too
                    while True:
                        outcome = await poll_once(self._poll, plan, tracker, deadline)
                        bar.status(tracker.state)
                        if isinstance(outcome, Finished):
                            return outcome.value
                        if time.monotonic() > deadline:
                            raise TimeoutError
            except TimeoutError:
                raise RequestTimeoutError(
                    f"request {request_id} still {tracker.state} after {timeout:.0f} s",
                    code=tracker.state,
                ) from None
