"""Request pages against a real store: how often a held submit reads it."""

from __future__ import annotations

import asyncio
from typing import Any

from cortex_gs_contract import RequestState

from mock_server.pages import Outcome, RequestPages
from mock_server.store import Store

RESULT = '{"global_steps":1}'


async def test_a_held_submit_reads_its_request_once_though_it_progressed(tmp_path) -> None:
    """The request starts and ends while the submit's one store read is under way: the
    start (progress) must not wake the submit, and its end hands over what was stored."""
    store = Store(tmp_path)
    store.create_job("job-1", [{"job_type": "training"}], None)
    store.create_request("req-1", "job-1", "step", {"body": {}})
    pages = RequestPages(store)
    pages.bind(asyncio.get_running_loop())
    reads: list[str] = []
    read = store.get_request

    def read_then_run(request_id: str) -> dict[str, Any] | None:
        """The holder's read (a store thread), then what the worker does meanwhile."""
        row = read(request_id)
        reads.append(request_id)
        if len(reads) == 1:
            store.set_request_status(request_id, RequestState.running)
            pages.notify(request_id, None, False)
            at = store.set_request_status(request_id, RequestState.done, result=RESULT)
            assert at is not None
            pages.notify(request_id, Outcome(RequestState.done, at, RESULT, None), True)
        return row

    store.get_request = read_then_run  # type: ignore[method-assign]
    try:
        page = await pages.finished_page("job-1", "req-1", 10.0, 16)
    finally:
        store.close()
    assert page is not None
    assert page.fields["status"] == RequestState.done
    assert page.result == RESULT
    assert reads == ["req-1"]
