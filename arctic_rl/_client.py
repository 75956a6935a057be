"""`AsyncArcticRLClient` (the real client) and `ArcticRLClient` (a blocking wrapper).

The async client owns one Cortex job: it creates it from config (or reconnects to an
existing one), waits until it runs, and exposes the training and sampling calls. The
blocking client runs the async one on a private event-loop thread, so it works from
plain scripts and from code that already runs its own event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import uuid
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, Self, TypeVar

from arctic_rl._config import ArcticRLClientConfig, CortexConfig, resolve_config
from arctic_rl._errors import ConfigError, NotFoundError
from arctic_rl._progress import ProgressFactory
from arctic_rl._transport import CortexTransport, Transport, normalize_state

__all__ = ["ArcticRLClient", "AsyncArcticRLClient", "build_create_job_request"]

log = logging.getLogger("arctic_rl")
T = TypeVar("T")

# Sub-job kinds as they appear in sub-job ids, keyed by the job_type the service reports.
_KIND_BY_JOB_TYPE = {"training": "training", "sampling": "sampling", "log_probability": "log_prob"}
DEFAULT_OPTIMIZER_NAME = "AdamW"
DEFAULT_LR = 1e-6
DEFAULT_MAX_SEQ_LEN = 4096
_OPTIMIZER_FIELDS = ("lr", "weight_decay", "betas")


def build_create_job_request(config: ArcticRLClientConfig) -> dict[str, Any]:
    """Translate the legacy fields into a CreateJobRequest.

    SkyRL and verl put `training_config = {optimizer: {lr, weight_decay, betas,
    gradient_clipping?}, max_length, training_horizon, lr_scheduler, ...}` next to a
    DeepSpeed `ds_config` (`train_batch_size`, `gradient_clipping`, `optimizer: {type,
    params}`). Cortex wants `optimizer: {name, lr, weight_decay, betas}`, `max_seq_len`,
    `train_batch_size`, `gradient_clipping` (only when clipping) and `n_gpus`; other
    keys pass through, None values are left out.
    """
    training = {k: v for k, v in (config.training_config or {}).items() if v is not None}
    ds = config.ds_config or {}
    max_length = training.pop("max_length", None)
    max_seq_len = int(training.pop("max_seq_len", None) or max_length or DEFAULT_MAX_SEQ_LEN)
    optimizer = _optimizer(training.pop("optimizer", None), ds.get("optimizer"))
    clipping = optimizer.pop("gradient_clipping", None)
    clipping = training.pop("gradient_clipping", clipping)
    if clipping is None:
        clipping = ds.get("gradient_clipping")
    training_config: dict[str, Any] = {
        "optimizer": optimizer,
        "max_seq_len": max_seq_len,
        "train_batch_size": int(
            training.pop("train_batch_size", 0) or ds.get("train_batch_size") or 1
        ),
        "n_gpus": max(1, config.training_gpus),
        **training,
    }
    if clipping is not None and float(clipping) > 0:
        training_config["gradient_clipping"] = float(clipping)
    common = {"model_name": config.model_name, "seed": config.seed}
    subs: list[dict[str, Any]] = [
        {"job_type": "training", **common, "training_config": training_config}
    ]
    for job_type, gpus, extra in (
        ("sampling", config.sampling_gpus, config.vllm_config),
        ("log_probability", config.log_prob_gpus, config.log_prob_ds_config),
    ):
        if gpus > 0:
            inference = {k: v for k, v in (extra or {}).items() if v is not None}
            seq = inference.pop("max_model_len", None) or inference.pop("max_seq_len", None)
            inference_config = {"max_seq_len": int(seq or max_seq_len), "n_gpus": gpus, **inference}
            subs.append({"job_type": job_type, **common, "inference_config": inference_config})
    body: dict[str, Any] = {"sub_job_configs": subs}
    if config.cortex.experiment_name:
        body["experiment_name"] = config.cortex.experiment_name
    return body


def _optimizer(framework: Any, deepspeed: Any) -> dict[str, Any]:
    """`{name, lr, weight_decay, betas}` from the framework's optimizer or DeepSpeed's.

    DeepSpeed's block is `{type, params: {lr, betas, eps, weight_decay}}`; the frameworks'
    has the fields flat and no name. The framework's wins field by field.
    """
    ds = dict(deepspeed or {})
    params = dict(ds.get("params") or {})
    given = dict(framework or {})
    name = given.pop("name", None) or given.pop("type", None) or ds.get("type")
    out: dict[str, Any] = {"name": str(name or DEFAULT_OPTIMIZER_NAME)}
    for key in _OPTIMIZER_FIELDS:
        value = given.pop(key, params.get(key))
        if value is not None:
            out[key] = list(value) if key == "betas" else value
    out.setdefault("lr", DEFAULT_LR)
    out.update({k: v for k, v in given.items() if v is not None})
    return out


class AsyncArcticRLClient:
    """One Cortex job, driven asynchronously. Use `await AsyncArcticRLClient.connect(cfg)`."""

    def __init__(
        self,
        config: ArcticRLClientConfig,
        *,
        transport: Transport | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.config, self.config_sources = resolve_config(config, environ)
        if not self.config.is_cortex:
            raise ConfigError(
                f"AsyncArcticRLClient talks to Cortex; backend is {self.config.backend!r} "
                f"(set backend: cortex in the yaml)"
            )
        self.transport: Transport = transport or _cortex_transport(self.config.cortex, environ)
        self.job_id: str | None = None
        self.sub_jobs: dict[str, str] = {}
        self.owns_job = False

    def __repr__(self) -> str:
        return f"AsyncArcticRLClient(job_id={self.job_id!r}, transport={self.transport!r})"

    @classmethod
    async def connect(
        cls,
        config: ArcticRLClientConfig,
        *,
        transport: Transport | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Self:
        """Build the client and create or reconnect its job, waiting until it runs."""
        client = cls(config, transport=transport, environ=environ)
        try:
            await client.start()
        except BaseException:
            await client.aclose()
            raise
        return client

    async def __aenter__(self) -> Self:
        if self.job_id is None:
            await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.shutdown()

    # -- job lifecycle ------------------------------------------------------------------

    async def start(self) -> dict[str, Any]:
        """Reconnect when the config names a job; otherwise create one. Wait until running."""
        cfg = self.config
        job_id = cfg.cortex.job_id or _job_of(cfg.training_job_id or cfg.sampling_job_id)
        if job_id is None:
            key = uuid.uuid4().hex  # one key for this logical creation, reused by retries
            job_id = await self.transport.create_job(
                build_create_job_request(cfg), idempotency_key=key
            )
            self.owns_job = True
            log.info("arctic_rl: created Cortex job %s", job_id)
        else:
            log.info("arctic_rl: reconnecting to Cortex job %s", job_id)
        self.job_id = job_id
        job = await self.transport.wait_job_running(job_id, cfg.job_ready_timeout)
        self.sub_jobs = _sub_job_ids(job)
        return job

    @property
    def _job(self) -> str:
        if self.job_id is None:
            raise ConfigError("the client has no job yet: call `await client.start()` first")
        return self.job_id

    async def get_job(self) -> dict[str, Any]:
        return await self.transport.get_job(self._job)

    async def state(self) -> str:
        """The job's normalised state (running, cancelled, terminated, ...)."""
        return normalize_state((await self.get_job()).get("status"))

    async def cancel(self) -> dict[str, Any]:
        """Cancel the job and return it as it then stands (the cancel itself answers nothing)."""
        await self.transport.cancel_job(self._job)
        return await self.get_job()

    async def shutdown(self, *, cancel: bool | None = None) -> None:
        """Close the connection; cancel the job if this client created it (configurable)."""
        if cancel is None:
            cancel = self.owns_job and self.config.cortex.cancel_on_shutdown
        try:
            if cancel and self.job_id is not None:
                await self.transport.cancel_job(self.job_id)
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        await self.transport.aclose()

    # -- training -----------------------------------------------------------------------

    async def fwd_bwd(
        self,
        batch: Mapping[str, Any],
        *,
        meta: Mapping[str, Any] | None = None,
        processing: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Forward and backward on the training sub-job (gradients accumulate until step)."""
        value = _forward_request(batch, meta, processing)
        return dict(await self.transport.call_binary(self._job, "forward-backward", value))

    async def fwd_no_grad(
        self,
        batch: Mapping[str, Any],
        *,
        reference_model: bool = False,
        meta: Mapping[str, Any] | None = None,
        processing: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Forward only: log-probs of the policy, or of the reference model."""
        value = _forward_request(batch, meta, processing)
        value["reference_model"] = bool(reference_model)
        return dict(await self.transport.call_binary(self._job, "forward-no-grad", value))

    async def step(self, learning_rate: float | None = None) -> dict[str, Any]:
        body = {} if learning_rate is None else {"learning_rate": learning_rate}
        return dict(await self.transport.call_json(self._job, "step", body))

    # -- sampling -----------------------------------------------------------------------

    async def generate(
        self,
        prompts: Sequence[str | Sequence[int]],
        sampling_params: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        routing_key: str | None = None,
        strict: bool = False,
    ) -> dict[str, Any]:
        """Sample completions; the result holds `results`, one entry per prompt."""
        value: dict[str, Any] = {
            "prompts": [p if isinstance(p, str) else list(p) for p in prompts],
            "sampling_params": _plain_params(sampling_params),
            "strict": strict,
        }
        if routing_key is not None:
            value["routing_key"] = routing_key
        return dict(await self.transport.call_binary(self._job, "generate", value))

    async def log_probs(
        self,
        prompts: Sequence[str | Sequence[int]],
        completions: Sequence[str | Sequence[int]] | None = None,
        top_k: int = 1,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"prompts": [_plain(p) for p in prompts], "top_k": top_k}
        if completions is not None:
            body["completions"] = [_plain(c) for c in completions]
        return dict(await self.transport.call_json(self._job, "log-probs", body))

    async def sync_weights(
        self,
        *,
        weight_format: str | None = None,
        source_sub_job_id: str | None = None,
        target_sub_job_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """Push the trained weights to the sampling sub-jobs."""
        body: dict[str, Any] = {}
        if weight_format is not None:
            body["weight_format"] = weight_format
        if source_sub_job_id is not None:
            body["source_sub_job_id"] = source_sub_job_id
        if target_sub_job_ids is not None:
            body["target_sub_job_ids"] = list(target_sub_job_ids)
        try:
            return dict(await self.transport.call_json(self._job, "sync-weights", body))
        except NotFoundError as exc:
            if exc.code == "job_not_found":
                raise
            # An older service without the route: the same work as a weight-sync operation.
            op = {"operation_type": "weight-sync", "payload": body}
            return dict(await self.transport.call_json(self._job, "operation", op) or {})

    # -- checkpoints --------------------------------------------------------------------

    async def save_checkpoint(
        self, checkpoint_id: str | None = None, checkpoint_type: str | None = None
    ) -> dict[str, Any]:
        body = {
            k: v
            for k, v in {"checkpoint_id": checkpoint_id, "checkpoint_type": checkpoint_type}.items()
            if v is not None
        }
        return dict(await self.transport.call_json(self._job, "save", body))

    async def load_checkpoint(
        self,
        checkpoint_id: str,
        *,
        source_job_id: str | None = None,
        target_sub_job_id: str | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"checkpoint_id": checkpoint_id}
        if source_job_id is not None:
            body["source_job_id"] = source_job_id
        if target_sub_job_id is not None:
            body["target_sub_job_id"] = target_sub_job_id
        return dict(await self.transport.call_json(self._job, "load", body))

    async def list_checkpoints(self) -> list[dict[str, Any]]:
        return await self.transport.list_checkpoints(self._job)

    async def delete_checkpoint(self, checkpoint_id: str) -> None:
        await self.transport.delete_checkpoint(self._job, checkpoint_id)


def _cortex_transport(cortex: CortexConfig, environ: Mapping[str, str] | None) -> CortexTransport:
    return CortexTransport(
        cortex.url(),
        cortex.read_token(environ).get_secret_value(),
        connect_timeout=cortex.connect_timeout,
        read_timeout=cortex.read_timeout,
        verify_tls=cortex.verify_tls,
        chunk_bytes=cortex.chunk_bytes,
        poll_timeout=cortex.poll_timeout,
        long_poll_s=cortex.long_poll_s,
        max_retries=cortex.max_retries,
        retry_timeout=cortex.retry_timeout,
        progress=ProgressFactory(cortex.progress, cortex.progress_min_bytes),
    )


def _forward_request(
    batch: Mapping[str, Any],
    meta: Mapping[str, Any] | None,
    processing: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """ForwardBackwardBatch / ForwardNoGradBatch: {args, kwargs, meta, processing}.

    A batch already in that form (it has `kwargs`; `context` and the rest are kept)
    passes through; `meta` and `processing` given separately are merged into it.
    """
    if isinstance(batch.get("kwargs"), Mapping):
        value = dict(batch)
        if meta:
            value["meta"] = {**(value.get("meta") or {}), **meta}
        if processing:
            value["processing"] = {**(value.get("processing") or {}), **processing}
        return value
    return {
        "args": [],
        "kwargs": dict(batch),
        "meta": dict(meta or {}),
        "processing": dict(processing or {}),
    }


def _plain(value: Any) -> Any:
    return value if isinstance(value, str) else [int(t) for t in value]


def _plain_params(params: Any) -> Any:
    """vLLM SamplingParams objects or dicts -> plain dicts (JSON-able, no pickles)."""
    if params is None:
        return {}
    if isinstance(params, Mapping):
        return dict(params)
    if isinstance(params, Sequence) and not isinstance(params, str):
        return [_plain_params(p) for p in params]
    fields = getattr(params, "__struct_fields__", None) or vars(params)
    return {name: getattr(params, name) for name in fields if not name.startswith("_")}


def _job_of(sub_job_id: str | None) -> str | None:
    """`{job_id}:{kind}:{index}` -> job_id (a bare job id passes through)."""
    return sub_job_id.split(":", 1)[0] if sub_job_id else None


def _sub_job_ids(job: Mapping[str, Any]) -> dict[str, str]:
    ids: dict[str, str] = {}
    for sub in job.get("sub_jobs") or []:
        kind = _KIND_BY_JOB_TYPE.get(str(sub.get("job_type")), str(sub.get("job_type")))
        ids.setdefault(kind, str(sub.get("sub_job_id")))
    return ids


class _LoopThread:
    """A private event loop on a daemon thread: blocking callers submit coroutines to it."""

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
        transport: Transport | None = None,
        environ: Mapping[str, str] | None = None,
        start: bool = True,
    ) -> None:
        self._loop = _LoopThread()
        try:
            self.aio: AsyncArcticRLClient = self._loop.run(
                _build(config, transport, environ, start)
            )
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

    def fwd_bwd(self, batch: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._loop.run(self.aio.fwd_bwd(batch, **kwargs))

    def fwd_no_grad(self, batch: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._loop.run(self.aio.fwd_no_grad(batch, **kwargs))

    def step(self, learning_rate: float | None = None) -> dict[str, Any]:
        return self._loop.run(self.aio.step(learning_rate))

    def generate(
        self, prompts: Sequence[Any], sampling_params: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._loop.run(self.aio.generate(prompts, sampling_params, **kwargs))

    def log_probs(
        self, prompts: Sequence[Any], completions: Any = None, top_k: int = 1
    ) -> dict[str, Any]:
        return self._loop.run(self.aio.log_probs(prompts, completions, top_k))

    def sync_weights(self, **kwargs: Any) -> dict[str, Any]:
        return self._loop.run(self.aio.sync_weights(**kwargs))

    def save_checkpoint(
        self, checkpoint_id: str | None = None, checkpoint_type: str | None = None
    ) -> dict[str, Any]:
        return self._loop.run(self.aio.save_checkpoint(checkpoint_id, checkpoint_type))

    def load_checkpoint(self, checkpoint_id: str, **kwargs: Any) -> dict[str, Any]:
        return self._loop.run(self.aio.load_checkpoint(checkpoint_id, **kwargs))

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
    transport: Transport | None,
    environ: Mapping[str, str] | None,
    start: bool,
) -> AsyncArcticRLClient:
    if start:
        return await AsyncArcticRLClient.connect(config, transport=transport, environ=environ)
    return AsyncArcticRLClient(config, transport=transport, environ=environ)
