"""Test hooks arm only on request: ``python -m devtools.mock_hooks``, for one app.

A shell that kept a test variable exported (``CORTEX_GS_MOCK_CRASH_AT``, ``_DEPART``,
``_STORAGE_FAULT``) must not make the product's ``python -m arctic_rl_mock`` fail on
purpose: it serves normally; the development tools' launcher arms the same variables.
In one process, each app has its own hooks (``app.state.hooks``): starting another app
neither arms nor disarms the first.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import torch

from devtools.live_mock import MockApi, request_chunks, serving_in_process
from devtools.mock_hooks import DEPART_ENV, STORAGE_FAULT_ENV, crashpoints
from devtools.mock_process import MockProcess, http_of, running_job, wait_done

ARMING = {
    crashpoints.ENV: "request_committed",
    DEPART_ENV: "wrong-status",
    STORAGE_FAULT_ENV: "EIO:0",
}


def test_the_variables_alone_arm_nothing_and_the_launcher_arms_them(
    mock: MockProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in ARMING.items():
        monkeypatch.setenv(name, value)
    mock.start(test_hooks=False)
    with http_of(mock) as http:
        assert http.get("/capacity").status_code == 200  # no departure
        job_id = running_job(http)  # its state was written: no failing disk
        step = http.post(f"/{job_id}/step", json={})  # past request_committed
        assert step.status_code == 202, step.text
        assert wait_done(http, job_id, step.json()["request_id"])["status"] == "done"
    assert mock.process is not None and mock.process.poll() is None
    mock.stop()

    mock.start(test_hooks=True)
    with http_of(mock) as http:
        assert http.get("/capacity").status_code == 203  # the departure
        with pytest.raises(httpx.TransportError):  # the crash point: no answer comes
            http.post(f"/{job_id}/step", json={})
    assert mock.wait_crashed() == crashpoints.EXIT_STATUS, mock.log()


def test_each_app_has_its_own_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mock with a failing disk, then one started after it with test hooks on and
    nothing armed: the first still fails its writes, the second does not."""
    monkeypatch.setenv(STORAGE_FAULT_ENV, "EIO:4096")  # a job's state fits, a chunk does not
    with serving_in_process(tmp_path / "failing", test_hooks=True) as failing:
        monkeypatch.delenv(STORAGE_FAULT_ENV)
        with serving_in_process(tmp_path / "healthy", test_hooks=True) as healthy:
            assert failing.app.state.hooks is not healthy.app.state.hooks
            answers = {}
            for name, live in (("failing", failing), ("healthy", healthy)):
                api = MockApi(live)
                job_id = api.create_job()
                # A chunk's write overlaps the next upload: its failure answers that one.
                chunks = request_chunks(torch.zeros(16384), payload_bytes=16384)[:2]
                sent = api.post_chunks(job_id, "forward-backward", chunks)
                answers[name] = [(a.status_code, a.json().get("error_code")) for a in sent]
                api.close()
    ok = (200, None)
    assert answers == {"failing": [ok, (503, "storage_error")], "healthy": [ok, ok]}
