"""Under every network fault, forward-backward and step execute exactly once; when the
retries run out, the client raises one clear typed error.

The client talks to the live mock through :class:`FaultProxy`; "exactly once" is read
from the mock's own store (its request records), not from what the client believes.
The mock serves the proposed ``Idempotency-Key``, and the client is told so
(``cortex.service: proposed``): a step whose answer was lost is sent again with its key.
Against a service that does not serve it, see ``tests/hardening/test_outcome_unknown.py``.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from hardening.support import executed, store_rows

from arctic_rl import (
    APIConnectionError,
    ArcticRLClientConfig,
    ArcticRLError,
    AsyncArcticRLClient,
    InsufficientStorageError,
    RateLimitError,
    ServiceUnavailableError,
)
from devtools.batches import CHUNK_BYTES, big_batch
from devtools.faults import CODES, Fault, FaultProxy
from devtools.live_mock import LiveMock

PAT_ENV = "ARCTIC_RL_FAULTS_PAT"
FWD, STEP = b"/forward-backward", b"/step"
PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
READ_TIMEOUT = 0.75
Session = Callable[..., Any]
# A read timeout the delay/stall faults overrun (the 2 s long polls must outlast it).
SHORT_TIMEOUT = {"read_timeout": READ_TIMEOUT}


@pytest.fixture
def mock_service() -> str:
    """The live mock serves the proposals (``Idempotency-Key`` above all) these tests rest on."""
    return "proposed"


@pytest.fixture
def session(live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """``async with session(*faults, **cortex) as (client, proxy)``: a client via a proxy."""
    monkeypatch.setenv(PAT_ENV, live_mock.token)

    @asynccontextmanager
    async def open_session(
        *faults: Fault, **cortex: Any
    ) -> AsyncIterator[tuple[AsyncArcticRLClient, FaultProxy]]:
        async with FaultProxy(live_mock.port, *faults) as proxy:
            settings = {
                "base_url": proxy.url(live_mock.base_url, live_mock.port),
                "pat_env": PAT_ENV,
                "long_poll_s": 2,
                "chunk_bytes": CHUNK_BYTES,
                "read_timeout": READ_TIMEOUT * 8,
                "progress": False,
                "service": "proposed",
                **cortex,
            }
            config = ArcticRLClientConfig(
                backend="cortex", model_name="tiny-byte-lm", training_gpus=1, cortex=settings
            )
            client = await AsyncArcticRLClient.connect(config)
            try:
                yield client, proxy
            finally:
                await client.shutdown(cancel=False)

    return open_session


def test_the_batch_travels_as_three_chunks() -> None:
    """The scenarios' ``skip=2`` lands on the final chunk only if this holds."""
    from arctic_rl import wire

    value = {"args": [], "kwargs": big_batch(), "meta": {}, "processing": PROCESSING}
    enveloped = wire.Chunking("request_chunk", CHUNK_BYTES, bare_max_bytes=0)
    assert [chunk.total for chunk in wire.iter_chunks(value, enveloped)] == [3, 3, 3]


# name -> (the fault, extra cortex settings); each is applied to forward-backward and step.
SCENARIOS: dict[str, tuple[Callable[[bytes], Fault], dict[str, Any]]] = {
    "cut in the request head": (lambda m: Fault(m, "cut_request", at=40), {}),
    "cut in the first body": (lambda m: Fault(m, "cut_request", at=1500), {}),
    "cut in a later chunk": (lambda m: Fault(m, "cut_request", at=20_000, skip=1), {}),
    "answer lost": (lambda m: Fault(m, "cut_response", at=0, skip=2), {}),
    "answer cut mid-head": (lambda m: Fault(m, "cut_response", at=25, skip=2), {}),
    "request delayed past the timeout": (
        lambda m: Fault(m, "delay", seconds=READ_TIMEOUT * 2, skip=2),
        SHORT_TIMEOUT,
    ),
    "answer stalled past the timeout": (
        lambda m: Fault(m, "stall", seconds=READ_TIMEOUT * 2, skip=2),
        SHORT_TIMEOUT,
    ),
    "503 with Retry-After": (lambda m: Fault(m, "status", status=503, retry_after=0, times=2), {}),
    "429 with Retry-After": (lambda m: Fault(m, "status", status=429, retry_after=1), {}),
}


async def _forward_backward(client: Any) -> None:
    result = await client.fwd_bwd(big_batch(), processing=PROCESSING)
    assert result["avg_loss"] is not None


async def _step(client: Any) -> None:
    step = await client.step()
    assert step["global_steps"] == 1


# operation -> (its route, the fault's skip when fixed (None: the scenario's), the call)
CALLS: dict[str, tuple[bytes, int | None, Callable[[Any], Awaitable[None]]]] = {
    "forward_backward": (FWD, None, _forward_backward),  # as the scenario says (chunks)
    "step": (STEP, 0, _step),  # one POST per step: the first one is the one to hit
}


@pytest.mark.parametrize("operation", list(CALLS))
@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_runs_once_under_fault(
    session: Session, scenario: str, operation: str, live_mock: LiveMock
) -> None:
    """A multi-chunk forward-backward or an optimizer step survives the fault; the mock
    ran it once."""
    make_fault, cortex = SCENARIOS[scenario]
    target, skip, call = CALLS[operation]
    fault = make_fault(target)
    if skip is not None:
        fault.skip = skip
    async with session(fault, **cortex) as (client, proxy):
        await call(client)
        await proxy.idle()  # a delayed copy may still be on its way to the server
        assert fault.hits >= 1, "the fault never fired"
        assert executed(live_mock.state_dir, client.job_id, operation) == 1


async def test_job_creation_is_not_duplicated_when_the_answer_is_lost(
    session: Session, live_mock: LiveMock
) -> None:
    """create_job carries an Idempotency-Key, so a retry returns the same job."""
    marker = f"POST {live_mock.settings.prefix}/ HTTP".encode()
    async with session(Fault(marker, "cut_response")) as (client, proxy):
        assert proxy.hits == 1
        jobs = store_rows(live_mock.state_dir, "SELECT job_id FROM jobs")
        assert jobs == [(client.job_id,)]


EXHAUSTED: dict[str, tuple[Fault, type[ArcticRLError], int | None]] = {
    "503 forever": (Fault(FWD, "status", status=503, times=math.inf), ServiceUnavailableError, 503),
    "429 forever": (Fault(FWD, "status", status=429, times=math.inf), RateLimitError, 429),
    "507 forever": (
        Fault(FWD, "status", status=507, times=math.inf),
        InsufficientStorageError,
        507,
    ),
    "every upload cut": (Fault(FWD, "cut_request", at=0, times=math.inf), APIConnectionError, None),
}


@pytest.mark.parametrize("case", list(EXHAUSTED))
async def test_exhausted_retries_raise_one_typed_error(
    session: Session, case: str, live_mock: LiveMock
) -> None:
    """After the retry budget: one ArcticRLError subclass with status, code and request id."""
    fault, error_type, status = EXHAUSTED[case]
    async with session(fault, max_retries=3) as (client, _):
        with pytest.raises(error_type) as caught:
            await client.fwd_bwd(big_batch(), processing=PROCESSING)
        assert fault.hits == 3
        assert executed(live_mock.state_dir, client.job_id, "forward_backward") == 0
    error = caught.value
    assert error.status == status
    if status is not None:
        assert error.code == CODES[status]
        assert error.request_id and error.request_id.startswith("proxy-")
        assert str(status) in str(error) and error.request_id in str(error)


async def test_step_whose_answers_are_always_lost_ran_once(
    session: Session, live_mock: LiveMock
) -> None:
    """Every answer to step is cut: the client gives up with a connection error, and the
    service applied the step exactly once (each retry replayed the Idempotency-Key)."""
    fault = Fault(STEP, "cut_response", times=math.inf)
    async with session(fault, max_retries=3) as (client, _):
        with pytest.raises(APIConnectionError):
            await client.step()
        assert fault.hits == 3
        assert executed(live_mock.state_dir, client.job_id, "step") == 1
