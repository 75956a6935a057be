"""How long the mock keeps what finished requests leave behind, and the 410 of a pruned one.

A finished request's result, events and chunk group are kept ``result_retention_s``
seconds after it ended, and a job keeps at most ``max_finished_requests`` of them
(whichever bound prunes first; requests in flight are never pruned). Pruning runs on the
worker's cleanup thread, never on the event loop, after every ``prune_every`` finished
requests and once at start-up, in batches (:mod:`arctic_rl_mock.store.pruning`).

The ids of pruned requests are remembered for the 24-hour idempotency window, and at
most ``max_pruned_ids`` per job: a poll of one answers ``410 request_expired``, while an
id never issued (or forgotten) answers ``404 request_not_found``. Within that window an
``Idempotency-Key`` or chunk group retried after its request was pruned answers the
first ``202`` again, naming the pruned request (never a second execution).
"""

from __future__ import annotations

import logging
import threading

from cortex_gs_contract import ErrorCode

from arctic_rl_mock.errors import ApiError
from arctic_rl_mock.settings import Settings
from arctic_rl_mock.store import Store
from arctic_rl_mock.store.pruning import Retention

log = logging.getLogger("arctic_rl_mock")


def retention_of(settings: Settings) -> Retention:
    """The store's bounds, from the mock's settings."""
    return Retention(
        keep_s=settings.result_retention_s,
        keep_per_job=settings.max_finished_requests,
        keep_pruned=settings.max_pruned_ids,
        keep_log_lines=settings.max_log_lines,
    )


class Pruner:
    """Counts finished requests and prunes every job's store when a pass is due."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.store = store
        self._retention = retention_of(settings)
        self._every = max(1, settings.prune_every)
        self._finished = 0
        self._lock = threading.Lock()

    def finished(self) -> bool:
        """Count one finished request; whether a pass is due now."""
        with self._lock:
            self._finished += 1
            return self._finished % self._every == 0

    def prune(self) -> int:
        """One pass over every job (blocking: a thread, never the event loop); how many
        requests went. A failed pass is logged; the next one tries again."""
        try:
            pruned = sum(
                self.store.retention.prune_job(job["job_id"], self._retention)
                for job in self.store.jobs.list_jobs()
            )
        except Exception:
            log.exception("a retention pass failed")
            return 0
        if pruned:
            log.debug("retention pruned %d finished request(s)", pruned)
        return pruned


def unknown_request(store: Store, job_id: str, request_id: str) -> ApiError:
    """The answer for a request the store does not hold: 410 when it was pruned, else 404
    (blocking: call it in a thread)."""
    pruned = store.retention.pruned(request_id)
    if pruned is None or pruned.job_id != job_id:
        return ApiError(404, ErrorCode.request_not_found, f"request {request_id} not found")
    return ApiError(
        410,
        ErrorCode.request_expired,
        f"request {request_id} finished and its result was pruned (the mock keeps finished "
        "requests for a limited time and number per job); submit the work again",
        fields={"expired_request_id": request_id},
    )
