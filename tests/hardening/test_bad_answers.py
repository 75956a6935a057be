"""Every answer outside the contract is one typed error carrying the request id, and a
retried status is retried whatever its body or Retry-After looks like.

Each case is a small server on loopback answering what a broken gateway or service
might: JSON nested past the parser's recursion limit, bad base64 in a finished poll, a
``Retry-After`` date in the ``-0000`` zone, a 503 whose body holds a 5000-digit integer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from arctic_rl import (
    BadRequestError,
    ResultFrameError,
    UnexpectedAnswerError,
)
from arctic_rl._cortex import CortexService
from arctic_rl._options import ServiceOptions

from .hostile import TOKEN, HostileServer, Request, whole

NESTED = b"[" * 100_000 + b"]" * 100_000
HUGE_INT = b'{"message": "busy", "code": ' + b"9" * 5000 + b"}"
CAPACITY = b'{"available_gpus": 8, "total_gpus": 8}'
BAD_B64 = (
    b'{"request_id": "r", "status": "done", "result": {"content_type": '
    b'"application/octet-stream", "encoding": "base64", "wire_format": "DSSST1", '
    b'"payload_b64": "!not*base64="}}'
)


def once_then_ok(first: bytes) -> Callable[[Request, asyncio.StreamWriter, int], Awaitable[bool]]:
    """Answers ``first`` (raw bytes) to the first request, then the capacity."""

    async def answer(request: Request, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(first if n == 1 else whole(CAPACITY))
        return True

    return answer


async def call(server: HostileServer, method: str, *args: Any) -> Any:
    cortex = CortexService(
        server.base_url, TOKEN, ServiceOptions(retry_timeout=10.0, long_poll_s=0)
    )
    try:
        return await asyncio.wait_for(getattr(cortex, method)(*args), 30)
    finally:
        await cortex.aclose()


async def test_deeply_nested_json_in_a_success_is_an_unexpected_answer() -> None:
    async with HostileServer(once_then_ok(whole(NESTED))) as server:
        with pytest.raises(UnexpectedAnswerError) as caught:
            await call(server, "get_job", "j")
    assert caught.value.request_id == "hostile-rid-1"


async def test_deeply_nested_json_in_an_error_is_the_typed_error() -> None:
    async with HostileServer(once_then_ok(whole(NESTED, "400 Bad Request"))) as server:
        with pytest.raises(BadRequestError) as caught:
            await call(server, "get_job", "j")
    assert caught.value.request_id == "hostile-rid-1"


async def test_bad_base64_in_a_finished_poll_is_a_result_frame_error() -> None:
    async with HostileServer(once_then_ok(whole(BAD_B64))) as server:
        with pytest.raises(ResultFrameError) as caught:
            await call(server, "wait_request", "j", "r")
    assert caught.value.request_id == "hostile-rid-1"


def http_date_minus_zero(seconds: float) -> str:
    """An HTTP date ``seconds`` from now, its zone written ``-0000`` (no zone known)."""
    when = datetime.now(UTC) + timedelta(seconds=seconds)
    return format_datetime(when.replace(tzinfo=None)).replace("+0000", "-0000")


@pytest.mark.parametrize("status", ["503 Service Unavailable", "429 Too Many Requests"])
async def test_a_retry_after_date_in_the_minus_zero_zone_is_retried(status: str) -> None:
    date = http_date_minus_zero(1)
    assert date.endswith("-0000")
    first = whole(b'{"message": "busy"}', status, f"retry-after: {date}")
    async with HostileServer(once_then_ok(first)) as server:
        capacity = await call(server, "get_capacity")
    assert capacity.to_dict()["available_gpus"] == 8
    assert len(server.requests) == 2


async def test_a_503_whose_body_holds_a_5000_digit_integer_is_retried() -> None:
    first = whole(HUGE_INT, "503 Service Unavailable", "retry-after: 0")
    async with HostileServer(once_then_ok(first)) as server:
        capacity = await call(server, "get_capacity")
    assert capacity.to_dict()["available_gpus"] == 8
    assert len(server.requests) == 2
