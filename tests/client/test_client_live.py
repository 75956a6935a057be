"""AsyncArcticRLClient against the mock: large results, reconnects, ended jobs, progress."""

from __future__ import annotations

import sys

import pytest
import torch

from arctic_rl import (
    ArcticRLClientConfig,
    ArcticRLError,
    AsyncArcticRLClient,
    JobFailedError,
    JobNotRunningError,
    PayloadTooLargeError,
    RequestFailedError,
    _tracking,
)
from arctic_rl._progress import ProgressFactory
from devtools.batches import train_tensors

from .conftest import PAT_ENV

PROCESSING = {"post": ["logprobs"], "loss_fn": "verl_grpo", "config": {}}


def _cfg(base_url: str, **cortex: object) -> ArcticRLClientConfig:
    return ArcticRLClientConfig(
        backend="remote",
        model_name="tiny-byte-lm",
        training_gpus=1,
        cortex={"base_url": base_url, "pat_env": PAT_ENV, **cortex},
    )


@pytest.fixture
def small_result_mock(live_mock_factory, monkeypatch):
    """A mock that sends anything over 4 KiB as result-chunk events of 4 KiB."""
    mock = live_mock_factory(
        "canned", service="proposed", inline_result_bytes=4096, result_chunk_bytes=4096
    )
    monkeypatch.setenv(PAT_ENV, mock.token)
    return mock


async def test_large_result_reassembled_from_chunk_events(small_result_mock, monkeypatch):
    added: list[int] = []
    original = _tracking.ResultChunks.add

    def counted(self: _tracking.ResultChunks, event: object) -> None:
        added.append(1)
        original(self, event)

    monkeypatch.setattr(_tracking.ResultChunks, "add", counted)
    async with await AsyncArcticRLClient.connect(_cfg(small_result_mock.base_url)) as client:
        batch = train_tensors()
        batch["input_ids"] = batch["input_ids"].repeat(8, 8)  # [16, 128]: ~8 KiB of logprobs
        batch["attention_mask"] = torch.ones_like(batch["input_ids"])
        batch["position_ids"] = torch.arange(128).repeat(16, 1)
        batch["responses"] = batch["input_ids"][:, 8:]
        batch["response_mask"] = torch.ones_like(batch["responses"])
        result = await client.fwd_no_grad(batch, processing=PROCESSING)
        logprobs = result["model_outputs"]["logprobs"]
        assert logprobs.shape[0] == 16 and len(added) > 1


async def test_reconnect_by_job_id_and_ended_jobs(live_mock, monkeypatch):
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    first = await AsyncArcticRLClient.connect(_cfg(live_mock.base_url))
    job_id = first.job_id
    again = await AsyncArcticRLClient.connect(_cfg(live_mock.base_url, job_id=job_id))
    assert again.job_id == job_id and not again.owns_job and again.sub_jobs == first.sub_jobs
    await again.shutdown()  # not the owner: the job keeps running
    assert await first.state() == "running"
    await first.shutdown()  # the owner cancels
    with pytest.raises(JobFailedError):
        await AsyncArcticRLClient.connect(_cfg(live_mock.base_url, job_id=job_id))
    late = AsyncArcticRLClient(_cfg(live_mock.base_url))
    late.job_id = job_id
    with pytest.raises(JobNotRunningError) as info:
        await late.step()
    assert info.value.status == 409 and info.value.request_id
    await late.aclose()


async def test_request_over_body_limit_is_typed(live_mock_factory, monkeypatch):
    mock = live_mock_factory("canned", service="proposed", max_body_bytes=512 * 1024)
    monkeypatch.setenv(PAT_ENV, mock.token)
    # chunk_bytes above the server's limit: the service answers 413, typed.
    async with await AsyncArcticRLClient.connect(
        _cfg(mock.base_url, chunk_bytes=4 * 1024 * 1024, max_retries=1)
    ) as client:
        batch = {**train_tensors(), "extra": torch.zeros(256, 1024)}
        with pytest.raises(PayloadTooLargeError):
            await client.fwd_bwd(batch, processing=PROCESSING)
    # Within the limit the same batch goes through in several chunks.
    async with await AsyncArcticRLClient.connect(
        _cfg(mock.base_url, chunk_bytes=256 * 1024, max_retries=1)
    ) as client:
        assert (await client.fwd_bwd(batch, processing=PROCESSING))["avg_loss"] is not None


def test_progress_is_silent_off_a_terminal(monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert not ProgressFactory(enabled=True, min_bytes=0).enabled
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert not ProgressFactory(enabled=False, min_bytes=0).enabled
    shown = ProgressFactory(enabled=True, min_bytes=1000)
    made: list[tuple[str, int | None, str]] = []
    monkeypatch.setattr(shown, "make_bar", lambda d, t, u: made.append((d, t, u)) or _Bar())
    shown.upload("small", 10).update(10)
    shown.upload("big", 5000).update(5000)
    wait = shown.wait("placing")
    wait.status("pending")  # too early for a bar
    assert made == [("big", 5000, "B")]


class _Bar:
    def update(self, n: float = 1) -> None: ...
    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None: ...
    def close(self) -> None: ...


async def test_failed_request_is_typed(live_mock, monkeypatch):
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    async with await AsyncArcticRLClient.connect(_cfg(live_mock.base_url)) as client:
        with pytest.raises(RequestFailedError) as info:
            await client.fwd_no_grad({"attention_mask": torch.ones(2, 4)}, processing=PROCESSING)
        assert info.value.code == "bad_value" and isinstance(info.value, ArcticRLError)


async def test_step_reports_peak_memory_as_bytes_when_asked(live_mock, monkeypatch):
    # step_peak_memory_log is today's per-job switch; peak_memory is an object of byte counts.
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    cfg = _cfg(live_mock.base_url).model_copy(
        update={"training_config": {"step_peak_memory_log": True}}
    )
    async with await AsyncArcticRLClient.connect(cfg) as client:
        peak = (await client.step())["peak_memory"]
        assert set(peak) == {"gpu_peak", "cpu_peak"}
        assert all(isinstance(v, int) and v >= 0 for v in peak.values()) and peak["cpu_peak"] > 0
    async with await AsyncArcticRLClient.connect(_cfg(live_mock.base_url)) as client:
        assert "peak_memory" not in await client.step()  # off unless the job asks for it
