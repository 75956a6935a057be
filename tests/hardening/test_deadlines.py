"""Every exchange has a deadline, and every wait ends within its budget.

A server that answers one body byte every 0.3 s never trips a per-read timeout; the
client must still give up within its read, retry and poll timeouts. The bounds here are
generous (`BOUND_S`, many times the settings): a client without deadlines runs on past
them, and `asyncio.wait_for` turns that into a failure.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import stamina

from arctic_rl import APIConnectionError, RequestTimeoutError, ServiceUnavailableError
from arctic_rl._cortex import CortexService
from arctic_rl._options import ServiceOptions

from .hostile import TOKEN, HostileServer, Request, trickle, whole

BOUND_S = 20.0  # far past every setting below; the case still ran at 25 s
SLOW_BODY = b'{"job_id": "j", "status": "running"}' + b" " * 4000  # ~20 minutes at 0.3 s a byte


async def trickling(request: Request, writer: asyncio.StreamWriter, n: int) -> bool:
    return await trickle(writer, SLOW_BODY)


def service(base_url: str, **settings: Any) -> CortexService:
    settings = {"connect_timeout": 1.0, "long_poll_s": 1.0, "progress": False, **settings}
    return CortexService(base_url, TOKEN, ServiceOptions(**settings))


async def test_a_trickled_get_job_ends_within_read_and_retry_timeouts() -> None:
    async with HostileServer(trickling) as server:
        cortex = service(server.base_url, read_timeout=1.0, retry_timeout=2.0, poll_timeout=3.0)
        try:
            with pytest.raises(APIConnectionError) as caught:
                await asyncio.wait_for(cortex.get_job("j"), BOUND_S)
        finally:
            await cortex.aclose()
    assert "ReadTimeout" in str(caught.value)
    assert "no whole answer" in str(caught.value)


async def test_a_trickled_poll_ends_at_the_poll_timeout() -> None:
    """Read and retry timeouts far longer than the poll timeout: only it can end the wait."""
    async with HostileServer(trickling) as server:
        cortex = service(server.base_url, read_timeout=60.0, retry_timeout=60.0, poll_timeout=2.0)
        try:
            with pytest.raises(RequestTimeoutError) as caught:
                await asyncio.wait_for(cortex.wait_request("j", "r"), BOUND_S)
        finally:
            await cortex.aclose()
    assert "request r still" in str(caught.value)
    assert server.requests and all("/j/requests/r" in r.path for r in server.requests)


async def test_a_trickled_job_wait_ends_at_the_job_ready_timeout() -> None:
    async with HostileServer(trickling) as server:
        cortex = service(server.base_url, read_timeout=60.0, retry_timeout=60.0)
        try:
            with pytest.raises(RequestTimeoutError) as caught:
                await asyncio.wait_for(cortex.wait_job_running("j", 2.0), BOUND_S)
        finally:
            await cortex.aclose()
    assert "job j still" in str(caught.value)


async def retry_after_20(request: Request, writer: asyncio.StreamWriter, n: int) -> bool:
    body = b'{"message": "busy", "code": 503}'
    writer.write(whole(body, "503 Service Unavailable", "retry-after: 20"))
    return True


@pytest.mark.parametrize("retry_timeout", [2.0, 600.0], ids=["retry-budget", "first-contact"])
async def test_a_retry_after_past_the_budget_gives_up_at_once(retry_timeout: float) -> None:
    """Retry-After: 20 against a 2 s retry budget, or a first contact's 5 s: no wait, one try."""
    async with HostileServer(retry_after_20) as server:
        cortex = service(server.base_url, retry_timeout=retry_timeout)
        try:
            with pytest.raises(ServiceUnavailableError):
                await asyncio.wait_for(cortex.get_capacity(), BOUND_S / 2)
        finally:
            await cortex.aclose()
    assert len(server.requests) == 1


async def test_stamina_waits_what_the_budget_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """The retry loop's scheduled waits, as the retry hooks see them, stay in the budget."""
    waits: list[float] = []
    stamina.instrumentation.set_on_retry_hooks([lambda details: waits.append(details.wait_for)])

    async def always_busy(request: Request, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(whole(b'{"message": "busy"}', "503 Service Unavailable"))
        return True

    try:
        async with HostileServer(always_busy) as server:
            cortex = service(server.base_url, retry_timeout=1.5)
            try:
                with pytest.raises(ServiceUnavailableError):
                    await asyncio.wait_for(cortex.get_capacity(), BOUND_S)
            finally:
                await cortex.aclose()
    finally:
        stamina.instrumentation.set_on_retry_hooks(None)
    assert waits and sum(waits) <= 1.5
