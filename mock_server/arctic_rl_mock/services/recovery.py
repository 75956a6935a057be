"""What a restart does with the requests the previous process left unfinished.

A request that was ``running`` when the process died goes back to ``pending`` and runs
again, in its old place in the queue. That is safe because nothing of a run is kept
before it is ``done``: the backend commits a request's state first, tagged with the
request's id, and its restore trusts only the state of requests the store holds as
``done`` (a run cut in between is rolled back); the result, its events and ``done`` are
one transaction. So the re-run starts from the state before the first one, and a client
polling the request across the restart sees it end once, as if nothing had happened.

A ``streaming`` request (generate-stream: ``streaming`` from its start, before its first
event) is never re-run: its events are consumed when read, and a re-run could hand them
out again. Each one a restart cut fails (``internal_error``, saying so), whether or not
its events were read, and only it; the client submits it again.

A save cut mid-write leaves its checkpoint's staging folder: removed here (the save's
request runs again, or failed and is sent again).
"""

from __future__ import annotations

from cortex_gs_contract import ErrorCode, RequestState

from arctic_rl_mock.errors import request_error
from arctic_rl_mock.store import Store

# The error of a streamed request a restart cut (see the module docstring).
INTERRUPTED_MESSAGE = (
    "generate-stream was interrupted by a service restart (a stream is never run twice, "
    "its events may have been read); submit it again"
)


def resume_interrupted(store: Store) -> list[str]:
    """Put the requests a restart cut back in the queue; the pending ids, oldest first."""
    store.files.drop_staging()
    running = (RequestState.running,)
    for request_id in store.requests.requests_in(running):
        store.requests.set_request_status(request_id, RequestState.pending, only_from=running)
    streaming = (RequestState.streaming,)
    error = request_error(ErrorCode.internal_error, INTERRUPTED_MESSAGE)
    for request_id in store.requests.requests_in(streaming):
        store.requests.set_request_status(
            request_id, RequestState.failed, error=error, only_from=streaming
        )
    return store.requests.requests_in((RequestState.pending,))
