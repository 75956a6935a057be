"""The one worker thread: builds the backend, then runs queued requests in order.

Torch never runs on the event loop, and requests of a job execute in submission order,
as on a single trainer. The worker also ends each job's ``initializing`` state (building
its model) and releases cancelled jobs. What each request kind does is
:mod:`arctic_rl_mock.services.dispatch`; its result's wire form is
:mod:`arctic_rl_mock.services.results`. A
finished request's outcome goes to the waiters in this process as it was stored.

Backend state survives restarts: each job's lives under ``<state dir>/backend/<job id>``,
committed after every request that changed it and before that request is stored as done.
When the worker starts it restores every ``running`` job before it runs any request; a
job whose state cannot come back is ``failed`` with the reason, never left ``running``
on fresh weights. A request that raised is rolled back (restored to its job's last done
request, which also removes the state it saved) before it is stored as failed, so
nothing a request reported failed did can come back, even once retention has pruned it.
"""

from __future__ import annotations

import logging
import queue
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cortex_gs_contract import ErrorCode, JobState, RequestState

from arctic_rl import wire
from arctic_rl_mock import today
from arctic_rl_mock.backends import Backend, BackendError
from arctic_rl_mock.errors import ApiError, request_error
from arctic_rl_mock.services import results
from arctic_rl_mock.services.dispatch import Dispatch, Input
from arctic_rl_mock.services.pages import Outcome
from arctic_rl_mock.services.retention import Pruner
from arctic_rl_mock.settings import Settings
from arctic_rl_mock.store import Store
from arctic_rl_mock.web import disk_errors

log = logging.getLogger("arctic_rl_mock")

# (request id, how it ended, whether it ended): a request that changed, for its waiters.
Notify = Callable[[str, Outcome | None, bool], None]


def _reason(exc: Exception, doing: str) -> str:
    return getattr(exc, "message", None) or f"{type(exc).__name__} while {doing}"


class Worker:
    """Owns the backend, the request queue and the decoded inputs waiting in it."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        backend_factory: Callable[[], Backend],
        notify: Notify,
    ) -> None:
        self.settings = settings
        self.store = store
        self._backend_factory = backend_factory
        self._notify = notify
        self._dispatch = Dispatch(
            store,
            lambda request_id: notify(request_id, None, False),
            live_shapes=not settings.serves_proposals,
        )
        self._backend: Backend | None = None
        self._backend_ready = threading.Event()
        self._queue: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._inputs: dict[str, Input] = {}
        self._thread: threading.Thread | None = None
        # Removing a finished request's input files (a chunk folder's rmdir takes about a
        # millisecond here) and retention's passes happen beside the worker, not before
        # its next request.
        self._janitor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mock-cleanup")
        self.pruner = Pruner(settings, store)

    # -- the queue -------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._work, name="mock-worker", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float) -> None:
        """Stop after the request being run (blocking: call it off the event loop)."""
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout_s)
        self._janitor.shutdown(wait=True)

    def run_request(self, request_id: str, value: Input | None = None) -> None:
        """Queue a request; ``value`` short-cuts decoding its input again."""
        if value is not None:
            self._inputs[request_id] = value
        self._queue.put(("run", request_id))

    def forget_input(self, request_id: str) -> None:
        """A cancelled request's decoded input is no longer needed."""
        self._inputs.pop(request_id, None)

    def init_job(self, job_id: str) -> None:
        self._queue.put(("init", job_id))

    def release_job(self, job_id: str) -> None:
        self._queue.put(("release", job_id))

    @property
    def backend(self) -> Backend:
        """The backend, once the worker has built it (waits for that)."""
        self._backend_ready.wait()
        if self._backend is None:
            raise BackendError(ErrorCode.unavailable, "the mock's backend failed to start")
        return self._backend

    def _work(self) -> None:
        """Build the backend and restore running jobs, then run queued requests in order."""
        try:
            self._backend = self._backend_factory()
        except Exception:
            log.exception("could not build the %s backend", self.settings.backend)
        finally:
            self._backend_ready.set()
        if self._backend is not None:
            # Without a backend every request fails as unavailable; the saved state stays
            # on disk for a restart that has one.
            self._restore_running_jobs()
        actions = {"release": self._release, "init": self._init_job, "run": self._run}
        while (item := self._queue.get()) is not None:
            action, ident = item
            try:
                actions[action](ident)
            except Exception:  # the worker must survive anything a request does
                log.exception("worker failed on %s %s", action, ident)

    # -- jobs ------------------------------------------------------------------------
    def _release(self, job_id: str) -> None:
        self.backend.release_job(job_id)
        shutil.rmtree(self.store.files.backend_dir(job_id), ignore_errors=True)

    def _fail_job(self, job_id: str, reason: str, from_state: str) -> None:
        if self.store.jobs.set_job_status(job_id, JobState.failed, reason, only_from=(from_state,)):
            self.store.logs.add_log(job_id, f"job failed: {reason}")

    def _init_job(self, job_id: str) -> None:
        """The end of ``initializing``: build the model; a bad start fails the job."""
        job = self.store.jobs.get_job(job_id)
        if job is None or job["status"] != JobState.initializing:
            return
        try:
            self._prepare(job)
        except Exception as exc:
            self._fail_job(job_id, _reason(exc, "initializing"), JobState.initializing)
            return
        self.store.jobs.move_job(job_id, JobState.initializing, JobState.running)

    def _restore_running_jobs(self) -> None:
        """After a restart: each running job's backend state as its last done request left it."""
        for job in self.store.jobs.list_jobs(JobState.running):
            steps = self._restore(job, "restoring the backend state")
            if steps is not None:
                self.store.logs.add_log(
                    job["job_id"], f"backend state restored at global step {steps}"
                )

    def _restore(self, job: dict[str, Any], doing: str) -> int | None:
        """The job's backend state as its last done request left it, and its global step;
        None when that fails (the job then fails, with the reason)."""
        job_id = job["job_id"]
        state_dir = self.store.files.backend_dir(job_id)
        try:
            return self.backend.restore_job(job_id, job["sub_jobs"], state_dir, self._applied)
        except Exception as exc:
            if not isinstance(exc, BackendError):
                log.exception("could not restore job %s", job_id)
            self._fail_job(job_id, _reason(exc, doing), JobState.running)
            return None

    def _applied(self, request_id: str) -> bool:
        """Whether ``request_id``'s backend changes stand: the store holds it as done, or
        no longer holds it (retention prunes only finished requests; a request's state is
        committed just before it is stored as done, and a request that fails is rolled
        back first, which removes the state it saved)."""
        row = self.store.requests.get_request(request_id)
        return row is None or row["status"] == RequestState.done

    def _prepare(self, job: dict[str, Any]) -> None:
        """A new job's backend state, from ``source_checkpoint_info`` when given."""
        job_id = job["job_id"]
        if not self.settings.serves_proposals:
            failure = today.model_load_failure(job["sub_jobs"])
            if failure is not None:
                raise BackendError(ErrorCode.invalid_state, f"model load failed: {failure}")
        self.backend.prepare_job(job_id, job["sub_jobs"], self.store.files.backend_dir(job_id))
        sources = (s.get("source_checkpoint_info") for s in job["sub_jobs"])
        source = next((s for s in sources if s), None)
        if source is not None:
            owner = source.get("source_job_id") or job_id
            directory = self._dispatch.checkpoint(
                owner, source["checkpoint_id"], "source checkpoint"
            )
            self.backend.load_checkpoint(job_id, directory)
            self.backend.commit_job(job_id, None)

    # -- requests --------------------------------------------------------------------
    def _run(self, request_id: str) -> None:
        row = self.store.requests.get_request(request_id)
        if row is None or row["status"] != RequestState.pending:
            return
        pending = (RequestState.pending,)
        started = self.store.requests.set_request_status(
            request_id, RequestState.running, only_from=pending
        )
        if started is None:
            return
        row = {**row, "started_at": started}  # the outcome's pages show when it began
        self._notify(request_id, None, False)
        if self.settings.request_latency_s:
            time.sleep(self.settings.request_latency_s)
        job_id, kind = row["job_id"], row["kind"]
        outcome = None
        try:
            outcome = self._finish(row)
        except (BackendError, wire.WireError, ApiError) as exc:
            code = str(getattr(exc, "code", ErrorCode.internal_error))
            message = getattr(exc, "message", str(exc))
            outcome = self._fail(row, code, message)
            self.store.logs.add_log(job_id, f"request {request_id} ({kind}) failed: {message}")
        except Exception as exc:
            code, message = self._crashed(row, exc)
            outcome = self._fail(row, code, message)
        finally:
            self._inputs.pop(request_id, None)
            self._notify(request_id, outcome, True)
            self._janitor.submit(self.store.files.drop_request_files, job_id, row["input"] or {})
            if self.pruner.finished():
                self._janitor.submit(self.pruner.prune)

    def _crashed(self, row: dict[str, Any], exc: Exception) -> tuple[str, str]:
        """(code, message) a request that raised fails with.

        A storage fault (its result or the backend state could not be written) or any
        other crash rolls the job's backend back to the state of its last done request,
        so the request changed nothing and sending it again applies it once; the job
        goes on (or fails, when even that state cannot come back).
        """
        kind = disk_errors.kind_of(exc)
        if kind is None:
            log.exception("request %s (%s) crashed", row["request_id"], row["kind"])
        else:
            log.warning("request %s (%s): storage fault: %s", row["request_id"], row["kind"], exc)
        self._roll_back(row["job_id"])
        if kind is None:
            return ErrorCode.internal_error, f"{type(exc).__name__} in the backend"
        what = "full" if kind == ErrorCode.storage_full else "failing"
        message = f"the server's storage is {what}; nothing of the request was kept: send it again"
        return kind, message

    def _roll_back(self, job_id: str) -> None:
        """The job's backend state as its last done request left it, in memory and on disk
        (else the job fails)."""
        job = self.store.jobs.get_job(job_id)
        if job is not None:
            self._restore(job, "rolling back the backend state")

    def _fail(self, row: dict[str, Any], code: str, message: str) -> Outcome | None:
        error = request_error(code, message)
        at = self.store.requests.set_request_status(
            row["request_id"], RequestState.failed, error=error
        )
        return None if at is None else Outcome(row, RequestState.failed, at, None, error)

    def _finish(self, row: dict[str, Any]) -> Outcome | None:
        """Run the request on its (running) job and store its result."""
        request_id, job_id, kind = row["request_id"], row["job_id"], row["kind"]
        job = self.store.jobs.get_job(job_id)
        if job is None or job["status"] != JobState.running:
            status = job["status"] if job else "gone"
            raise BackendError(ErrorCode.job_not_running, f"job {job_id} is {status}")
        output = self._dispatch.execute(self.backend, row, self._inputs.pop(request_id, None))
        result, events = results.pack(self.settings, request_id, kind, output)
        # Saved last thing before ``done``: restore trusts only the state of done requests.
        self._commit(job_id, request_id)
        line = f"request {request_id} ({kind}) done"
        at = self.store.requests.set_request_status(
            request_id, RequestState.done, result=result, events=events, log=(job_id, line)
        )
        return (
            None if at is None else Outcome(row, RequestState.done, at, result, None, tuple(events))
        )

    def _commit(self, job_id: str, request_id: str) -> None:
        """Save the request's backend changes; state that cannot be saved fails the job.

        The request's changes already happened in memory: were the job to go on, a
        restart would silently lose them, so it stops here with the reason instead. A
        full or failing disk is the exception: the job rolls back to its saved state and
        only the request fails.
        """
        try:
            self.backend.commit_job(job_id, request_id)
        except OSError as exc:
            if disk_errors.kind_of(exc) is not None:
                raise  # the request fails and the job rolls back (see _crashed)
            reason = f"could not save the backend state ({exc.strerror or type(exc).__name__})"
            self._fail_job(job_id, reason, JobState.running)
            raise BackendError(ErrorCode.internal_error, reason) from exc
