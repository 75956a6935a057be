"""`ArcticRLClient`: the blocking twin of `AsyncArcticRLClient`, on a private loop thread.

Every blocking method, and every async shim method (`_shim.LegacyCortexClient`), reaches
the async client through one path: `_LoopThread.submit` (see its docstring for why the
thread is there at all).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, Self, TypeVar

from arctic_rl._client import AsyncArcticRLClient
from arctic_rl._config import ArcticRLClientConfig
from arctic_rl._service import ServiceAPI

__all__ = ["ArcticRLClient"]

T = TypeVar("T")


class _LoopThread:
    """A private event loop on a daemon thread; blocking callers and shims submit to it.

    Worth its thread hop: the legacy factory is synchronous, and frameworks call the client
    from several event loops over its life (SkyRL runs its loop under `asyncio.run` inside
    a Ray task, verl from plain threads), while an httpx connection pool belongs to the one
    loop it was opened on. So the pool lives on this loop of its own, and every call, from
    any thread or loop, reaches the async client through `submit`.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="arctic-rl-loop", daemon=True
        )
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("a blocking ArcticRLClient call was made from its own loop")
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.submit(coro).result()

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=5)
        if not self.loop.is_running():
            self.loop.close()


class ArcticRLClient:
    """Blocking twin of AsyncArcticRLClient for scripts and synchronous frameworks."""

    def __init__(
        self,
        config: ArcticRLClientConfig,
        *,
        service: ServiceAPI | None = None,
        environ: Mapping[str, str] | None = None,
        start: bool = True,
    ) -> None:
        self._loop = _LoopThread()
        try:
            self.aio: AsyncArcticRLClient = self._loop.run(_build(config, service, environ, start))
        except BaseException:
            self._loop.stop()
            raise

    def __repr__(self) -> str:
        return f"ArcticRLClient(job_id={self.job_id!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    @property
    def job_id(self) -> str | None:
        return self.aio.job_id

    @property
    def sub_jobs(self) -> dict[str, str]:
        return self.aio.sub_jobs

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule a coroutine of `self.aio` on the private loop (for async shims)."""
        return self._loop.submit(coro)

    def fwd_bwd(
        self,
        batch: Mapping[str, Any],
        *,
        meta: Mapping[str, Any] | None = None,
        processing: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        return self._loop.run(self.aio.fwd_bwd(batch, meta=meta, processing=processing))

    def fwd_no_grad(
        self,
        batch: Mapping[str, Any],
        *,
        reference_model: bool = False,
        meta: Mapping[str, Any] | None = None,
        processing: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        coro = self.aio.fwd_no_grad(
            batch, reference_model=reference_model, meta=meta, processing=processing
        )
        return self._loop.run(coro)

    def step(self, learning_rate: float | None = None) -> dict[str, Any]:
        return self._loop.run(self.aio.step(learning_rate))

    def generate(
        self,
        prompts: Sequence[str | Sequence[int]],
        sampling_params: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        routing_key: str | None = None,
        strict: bool = False,
    ) -> dict[str, Any]:
        coro = self.aio.generate(prompts, sampling_params, routing_key=routing_key, strict=strict)
        return self._loop.run(coro)

    def log_probs(
        self,
        prompts: Sequence[str | Sequence[int]],
        completions: Sequence[str | Sequence[int]] | None = None,
        top_k: int = 1,
    ) -> dict[str, Any]:
        return self._loop.run(self.aio.log_probs(prompts, completions, top_k))

    def sync_weights(
        self,
        *,
        weight_format: str | None = None,
        source_sub_job_id: str | None = None,
        target_sub_job_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        coro = self.aio.sync_weights(
            weight_format=weight_format,
            source_sub_job_id=source_sub_job_id,
            target_sub_job_ids=target_sub_job_ids,
        )
        return self._loop.run(coro)

    def save_checkpoint(
        self, checkpoint_id: str | None = None, checkpoint_type: str | None = None
    ) -> dict[str, Any]:
        return self._loop.run(self.aio.save_checkpoint(checkpoint_id, checkpoint_type))

    def load_checkpoint(
        self,
        checkpoint_id: str,
        *,
        source_job_id: str | None = None,
        target_sub_job_id: str | None = None,
    ) -> dict[str, Any]:
        coro = self.aio.load_checkpoint(
            checkpoint_id, source_job_id=source_job_id, target_sub_job_id=target_sub_job_id
        )
        return self._loop.run(coro)

    def list_checkpoints(self) -> list[dict[str, Any]]:
        return self._loop.run(self.aio.list_checkpoints())

    def delete_checkpoint(self, checkpoint_id: str) -> None:
        self._loop.run(self.aio.delete_checkpoint(checkpoint_id))

    def get_job(self) -> dict[str, Any]:
        return self._loop.run(self.aio.get_job())

    def cancel(self) -> dict[str, Any]:
        return self._loop.run(self.aio.cancel())

    def shutdown(self, *, cancel: bool | None = None) -> None:
        """Finish with the job (see AsyncArcticRLClient.shutdown) and stop the loop thread."""
        if self._loop.loop.is_closed():
            return
        try:
            self._loop.run(self.aio.shutdown(cancel=cancel))
        finally:
            self._loop.stop()


async def _build(
    config: ArcticRLClientConfig,
    service: ServiceAPI | None,
    environ: Mapping[str, str] | None,
    start: bool,
) -> AsyncArcticRLClient:
    if start:
        return await AsyncArcticRLClient.connect(config, service=service, environ=environ)
    return AsyncArcticRLClient(config, service=service, environ=environ)
