"""The client's I/O loop: calls bridged from any loop, cancellation carried across, and a
thread that ends when the loop is stopped, collected or left to the interpreter's exit."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import multiprocessing
import threading

import pytest

from arctic_rl._cortex import CortexService
from arctic_rl._io_loop import IOLoop
from devtools.live_mock import LiveMock

JOIN_S = 10.0


def _thread_of(io: IOLoop) -> threading.Thread:
    """The loop's thread, found by running a call there."""

    async def current() -> threading.Thread:
        return threading.current_thread()

    return io.run(current())


async def test_a_call_runs_on_the_io_loop_and_its_cancellation_reaches_it() -> None:
    io = IOLoop()
    started, cancelled = threading.Event(), threading.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def where() -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    try:
        assert await io.call(where()) is io.loop is not asyncio.get_running_loop()
        call = asyncio.ensure_future(io.call(forever()))
        assert await asyncio.to_thread(started.wait, JOIN_S)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert await asyncio.to_thread(cancelled.wait, JOIN_S)
    finally:
        io.stop()


def test_stop_cancels_what_runs_then_closes_and_ends_the_thread() -> None:
    order: list[str] = []

    async def closing() -> None:
        order.append("closing")

    io = IOLoop(closing=closing)
    thread, loop = _thread_of(io), io.loop
    running = threading.Event()

    async def forever() -> None:
        running.set()
        try:
            await asyncio.Event().wait()
        finally:
            order.append("cancelled")

    pending = asyncio.run_coroutine_threadsafe(forever(), loop)
    assert running.wait(JOIN_S)
    io.stop()
    assert not thread.is_alive() and loop.is_closed()
    assert order == ["cancelled", "closing"]
    assert pending.cancelled()
    assert _thread_of(io) is not thread  # a later call starts a fresh loop
    io.stop()


def test_a_blocking_call_from_the_io_loop_itself_is_refused() -> None:
    io = IOLoop()

    async def blocking_inside() -> None:
        io.run(asyncio.sleep(0))

    try:
        with pytest.raises(RuntimeError, match="own I/O loop"):
            io.run(blocking_inside())
    finally:
        io.stop()


async def test_a_service_never_closed_closes_its_pool_and_thread_when_collected(
    live_mock: LiveMock,
) -> None:
    service = CortexService(live_mock.base_url, live_mock.token)
    await service.get_capacity()
    thread = await asyncio.to_thread(_thread_of, service.io_loop)
    del service
    gc.collect()
    await asyncio.to_thread(thread.join, JOIN_S)
    assert not thread.is_alive()


def test_callers_on_many_threads_share_the_loop() -> None:
    io = IOLoop()

    async def loop_here() -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    async def bridged() -> asyncio.AbstractEventLoop:
        return await io.call(loop_here())

    try:
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            loops = set(pool.map(lambda _: asyncio.run(bridged()), range(8)))
        assert loops == {io.loop}
    finally:
        io.stop()


def _capacity_twice(service: CortexService) -> None:
    asyncio.run(service.get_capacity())
    asyncio.run(service.aclose())


def test_a_forked_child_gets_a_loop_and_connections_of_its_own(live_mock: LiveMock) -> None:
    """The child inherits the service but not its loop thread: it starts its own, and
    opens its own connection rather than writing on the parent's."""
    service = CortexService(live_mock.base_url, live_mock.token)
    try:
        asyncio.run(service.get_capacity())
        child = multiprocessing.get_context("fork").Process(target=_capacity_twice, args=(service,))
        child.start()
        child.join(60)
        if child.is_alive():
            child.kill()
        assert child.exitcode == 0
        asyncio.run(service.get_capacity())
    finally:
        asyncio.run(service.aclose())
