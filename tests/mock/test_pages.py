"""Request pages against a real store: how often a submit held for its request reads it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from arctic_rl_mock.services.pages import Outcome, RequestPages
from arctic_rl_mock.store import Store
from cortex_gs_contract import RequestState

RESULT = '{"global_steps":1}'


def _store_with_a_request(tmp_path: Path) -> Store:
    store = Store(tmp_path)
    store.jobs.create_job("job-1", [{"job_type": "training"}], None)
    store.requests.create_request("req-1", "job-1", "step", {"body": {}})
    return store


async def test_a_held_submit_reads_its_request_once_though_it_progressed(tmp_path) -> None:
    """The request (not queued through this process's pages, as after a restart) starts
    and ends while the submit's one store read is under way: the start (progress) must
    not wake the submit, and its end hands over what was stored."""
    store = _store_with_a_request(tmp_path)
    pages = RequestPages(store)
    pages.bind(asyncio.get_running_loop())
    reads: list[str] = []
    read = store.requests.get_request

    def read_then_run(request_id: str) -> dict[str, Any] | None:
        """The holder's read (a store thread), then what the worker does meanwhile."""
        row = read(request_id)
        reads.append(request_id)
        if len(reads) == 1:
            store.requests.set_request_status(request_id, RequestState.running)
            pages.notify(request_id, None, False)
            at = store.requests.set_request_status(request_id, RequestState.done, result=RESULT)
            assert at is not None
            ended = Outcome(dict(row or {}), RequestState.done, at, RESULT, None)
            pages.notify(request_id, ended, True)
        return row

    store.requests.get_request = read_then_run  # type: ignore[method-assign]
    try:
        page = await pages.finished_page("job-1", "req-1", 10.0, 16)
    finally:
        store.close()
    assert page is not None
    assert page.fields["status"] == RequestState.done
    assert page.result == RESULT
    assert reads == ["req-1"]


async def test_a_submit_held_for_a_request_queued_here_reads_no_store(tmp_path) -> None:
    """Queued here (`expect`), the request's end reaches the held submit from the worker
    (a thread), with the row it ran from: the page is built without a store read."""
    store = _store_with_a_request(tmp_path)
    pages = RequestPages(store)
    pages.bind(asyncio.get_running_loop())
    pages.expect("req-1")
    row = store.requests.get_request("req-1")
    assert row is not None
    read = store.requests.get_request
    reads: list[str] = []

    def counted(request_id: str) -> dict[str, Any] | None:
        reads.append(request_id)
        return read(request_id)

    def worker() -> None:
        store.requests.set_request_status("req-1", RequestState.running)
        pages.notify("req-1", None, False)
        at = store.requests.set_request_status("req-1", RequestState.done, result=RESULT)
        assert at is not None
        pages.notify("req-1", Outcome(row, RequestState.done, at, RESULT, None), True)

    store.requests.get_request = counted  # type: ignore[method-assign]
    held = asyncio.ensure_future(pages.finished_page("job-1", "req-1", 10.0, 16))
    try:
        await asyncio.to_thread(worker)
        page = await held
    finally:
        store.close()
    assert page is not None
    assert page.fields["status"] == RequestState.done
    assert page.fields["created_at"] == row["created_at"]
    assert page.result == RESULT
    assert reads == []
