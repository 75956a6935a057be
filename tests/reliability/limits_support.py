"""The limits tests' mock in its own process and the frames they post."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from cortex_gs_contract import CHUNK_OPERATIONS

from devtools.live_mock import MockApi, request_chunks
from devtools.mock_process import MockProcess

CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "cortex_gs.yaml"


MAX_SEQ_LEN = 256  # what MockApi.create_job gives the training and sampling sub-jobs


def post_frame(api: MockApi, job_id: str, route: str, value: Any) -> httpx.Response:
    """Send ``value`` as the route's small chunks; the final chunk's answer."""
    operation = CHUNK_OPERATIONS[route.replace("-", "_")]
    chunks = request_chunks(
        value, payload_bytes=4096, group=f"g{time.monotonic_ns()}", operation=operation
    )
    answers = api.post_chunks(job_id, route, chunks)
    assert all(a.status_code == 200 for a in answers[:-1]), [a.text for a in answers]
    return answers[-1]


def refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["error_code"] == code, body
    return body


# --------------------------------------------------------------------------- memory
class Process:
    """Memory and threads of a live process, from /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def status(self) -> dict[str, int]:
        """VmRSS, VmHWM (its peak) and VmSize in kB, and Threads."""
        fields = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM", "VmSize", "Threads"):
                fields[name] = int(value.split()[0])  # kB, or a count
        return fields

    def reset_peak(self) -> None:
        """From now on VmHWM is the peak since this call (Linux's ``clear_refs``)."""
        Path(f"/proc/{self.pid}/clear_refs").write_text("5")


@contextmanager
def mock_in_own_process(state_dir: Path, **options: Any) -> Iterator[tuple[MockApi, Process]]:
    """A real mock (``options``: :class:`MockProcess`'s) in its own process, and a client of it."""
    with MockProcess(state_dir, **options) as server:
        assert server.process is not None
        api = MockApi(server)
        try:
            yield api, Process(server.process.pid)
        finally:
            api.close()
