"""The legacy surface SkyRL and verl already call, served by the Cortex client.

`create_arctic_rl_client(config, server_state=None)` keeps the old factory's signature.
For Cortex it returns `LegacyCortexClient`, whose methods and response keys are exactly
what the two integrations read (see integrations.md), so neither framework changes a line.
Its async methods may be awaited on any event loop, in any thread (SkyRL runs each call
on a fresh loop it never closes, verl from plain threads): the client's I/O (its one
connection pool, retry state and poll schedule) lives on the client's own I/O loop, which
every call reaches in one hop. The factory's job creation and `shutdown`, which are
synchronous, run there too, through the blocking client.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import os
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arctic_rl import _client_era
from arctic_rl._blocking import ArcticRLClient
from arctic_rl._config import (
    CORTEX_BACKENDS,
    ArcticRLClientConfig,
    CortexConfig,
)
from arctic_rl._config_check import warn_dropped
from arctic_rl._errors import BackendNotAvailableError, ConfigError
from arctic_rl._layout import Convention, convention_named, loaded_framework
from arctic_rl._legacy_keys import LEGACY_FLAT_KEYS
from arctic_rl._lowering import Notes, answered, lower_forward, lower_forward_backward
from arctic_rl._requests import forward_request, plain_params
from arctic_rl._results import (
    Done,
    normalize_forward,
    normalize_generate,
    normalize_step,
    tensors_in,
)
from arctic_rl._routing import ROUTER
from arctic_rl._sampling_lowering import fan_out, sampled_logprobs
from arctic_rl._services import TODAY
from arctic_rl._sources import effective_backend

if TYPE_CHECKING:
    from arctic_rl._client import AsyncArcticRLClient

__all__ = [
    "LegacyCortexClient",
    "create_arctic_rl_client",
    "normalize_forward",
    "normalize_generate",
    "normalize_step",
    "route_on_prem_to_cortex",
]

log = logging.getLogger("arctic_rl")

# The published package's factory and config (its rl extras bring the on-prem servers).
_ON_PREM_FACTORY = "arctic_platform.rl.client"
_ON_PREM_CONFIG = "arctic_platform.rl.config"
# The published flat config's keys folded into ours (the cortex_* block, max_seq_len).
_LEGACY_FLAT = frozenset({*LEGACY_FLAT_KEYS, "max_seq_len"})
_ON_PREM_HINT = (
    "backend {backend!r} runs the on-prem Arctic RL servers, which this package does not "
    "ship ({reason}): install arctic-platform with its rl extras for it, or select Cortex "
    "(ARCTIC_RL_BACKEND=cortex or ARCTIC_BACKEND=cortex, or backend: cortex with a cortex: block "
    "in the yaml)"
)


def route_on_prem_to_cortex(cortex: CortexConfig | bool = True, layout: str | None = None) -> None:
    """Serve `backend="local"` configs from Cortex in this process (see `CortexRouter.route`)."""
    ROUTER.route(cortex, layout)


def create_arctic_rl_client(config: Any, server_state: Any = None) -> Any:
    """The legacy factory: a Cortex-backed client, or the published on-prem one.

    `config` may be this package's config, a mapping, or the published package's config
    (SkyRL and verl build that one when it is installed).
    """
    cortex = _cortex_config(config)
    if cortex is None:
        return _on_prem_client(config, server_state)
    return LegacyCortexClient(cortex, server_state)


def _adopt(config: Any) -> tuple[ArcticRLClientConfig, list[str]]:
    """This package's config for what a caller passed, and the settings of a framework's
    own config it has no field for (refused when the caller wrote them: yaml, kwargs)."""
    if isinstance(config, ArcticRLClientConfig):
        return config, []
    dump = getattr(config, "model_dump", None)
    if callable(dump):  # the published config: flat (same field names) or nested
        plain = dump()
        if _client_era.is_nested(plain):
            flat = _client_era.flatten(plain)
            dropped = _client_era.unmapped(dump(exclude_unset=True), plain["backend"])
        else:
            known = ArcticRLClientConfig.model_fields.keys() | _LEGACY_FLAT
            flat = {k: v for k, v in plain.items() if k in known}
            dropped = sorted(plain.keys() - known)
        return ArcticRLClientConfig.from_mapping(flat, origin="framework"), dropped
    if isinstance(config, Mapping):
        return ArcticRLClientConfig.from_mapping(config, origin="explicit"), []
    raise ConfigError(f"expected an ArcticRLClientConfig or a mapping, got {type(config)}")


def _cortex_config(config: Any) -> ArcticRLClientConfig | None:
    """The config to serve from Cortex, or None when it stays on-prem."""
    ours, dropped = _adopt(config)
    if ours.backend not in CORTEX_BACKENDS:
        routed = ROUTER.active and ours.backend == "local"
        if not routed and effective_backend(ours) not in CORTEX_BACKENDS:
            return None
    warn_dropped(dropped, f"{type(config).__module__}.{type(config).__qualname__}")
    if ours.backend in CORTEX_BACKENDS:
        return ours
    cortex = ours.model_copy(update={"backend": "cortex"})
    cortex._origin = ours._origin
    if "cortex" not in ours.model_fields_set:
        settings = ROUTER.settings()
        if settings is not None:
            cortex.cortex = settings
    return cortex


def _on_prem_client(config: Any, server_state: Any) -> Any:
    backend = getattr(config, "backend", None) or "local"
    try:
        factory = importlib.import_module(_ON_PREM_FACTORY).create_arctic_rl_client
        if isinstance(config, ArcticRLClientConfig | Mapping):
            published = importlib.import_module(_ON_PREM_CONFIG).ArcticRLClientConfig
            fields = _adopt(config)[0].model_dump(exclude={"cortex"})
            config = published.model_validate(fields)
    except ImportError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BackendNotAvailableError(
            _ON_PREM_HINT.format(backend=backend, reason=reason)
        ) from None
    return factory(config, server_state)


class LegacyCortexClient:
    """The object both integrations hold: job ids, data-plane calls, no-op colocation."""

    def __init__(
        self,
        config: ArcticRLClientConfig,
        server_state: Any = None,
        *,
        client: ArcticRLClient | None = None,
    ) -> None:
        self._config = config
        self._server_state = server_state
        if client is None:
            client = ArcticRLClient(config, start=False)
            client.aio.lowers_job_config = True
            client.start()
        self._client = client
        self._warned_none: set[str] = set()
        # How log-prob inputs are read: the convention the config carries (a reconnect
        # copy), else the routing integration's, else the loaded framework's.
        named = config._token_layout or ROUTER.layout or loaded_framework()
        self._layout: Convention = convention_named(named)
        self._notes = Notes()  # what the lowering onto today's service said, once each
        if self._client.aio.owns_job and self._client.aio.config.cortex.cancel_on_shutdown:
            atexit.register(self._release_at_exit)

    def __repr__(self) -> str:
        return f"LegacyCortexClient(job_id={self._client.job_id!r})"

    # -- identity -----------------------------------------------------------------------

    @property
    def config(self) -> ArcticRLClientConfig:
        """The config this client was built from (both published legacy clients expose it)."""
        return self._config

    @property
    def client(self) -> ArcticRLClient:
        """The underlying blocking client (its `.aio` is the async one)."""
        return self._client

    @property
    def job_id(self) -> str | None:
        return self._client.job_id

    def _sub_job(self, kind: str) -> str | None:
        return self._client.sub_jobs.get(kind)

    @property
    def training_job_id(self) -> str:
        return _required(self._sub_job("training"), "training")

    @property
    def sampling_job_id(self) -> str:
        return _required(self._sub_job("sampling"), "sampling")

    @property
    def log_prob_job_id(self) -> str | None:
        return self._sub_job("log_prob")

    def reconnect_config(self) -> ArcticRLClientConfig:
        """A picklable config that makes another process attach to this job."""
        job_id = self._client.job_id
        if job_id is None:
            raise ValueError("no Cortex job to reconnect to")
        copy = self._config.reconnect_copy(job_id, dict(self._client.sub_jobs))
        copy._token_layout = self._layout.name
        return copy

    def get_server_state(self) -> Any:
        return self._server_state

    # -- data plane ---------------------------------------------------------------------

    @property
    def _aio(self) -> AsyncArcticRLClient:
        return self._client.aio

    @property
    def last_timing(self) -> dict[str, float]:
        """The last call's ``timing/*`` figures (also in the metrics of the calls that have
        them: forwards and step)."""
        return self._aio.last_timing

    @property
    def _lowers(self) -> bool:
        """Whether requests are lowered onto today's service (docs/layout.md)."""
        return self._aio.service_kind == TODAY

    @property
    def _min_rows(self) -> int:
        return max(1, self._aio.config.training_gpus)

    async def fwd_bwd(
        self, batch: Mapping[str, Any], processing: Mapping[str, Any] | None = None, **legacy: Any
    ) -> dict[str, Any]:
        body = self._layout.to_contract(
            forward_request(batch, processing=processing, legacy=legacy)
        )
        if not self._lowers:
            return self._answered(await self._aio.fwd_bwd(body))
        lowered = lower_forward_backward(body, min_rows=self._min_rows, notes=self._notes)
        result = dict(await self._aio.fwd_bwd(lowered.body))
        outputs = result.get("post_process_outputs") or {}
        result["post_process_outputs"] = answered(lowered, outputs, self._notes, required=False)
        return self._answered(result)

    async def fwd_no_grad(
        self, batch: Mapping[str, Any], reference_model: bool = False, **legacy: Any
    ) -> dict[str, Any]:
        body = forward_request(batch, legacy=legacy)
        if not self._lowers:
            return self._answered(
                await self._aio.fwd_no_grad(body, reference_model=reference_model)
            )
        lowered = lower_forward(body, min_rows=self._min_rows, notes=self._notes)
        result = dict(await self._aio.fwd_no_grad(lowered.body, reference_model=reference_model))
        result["model_outputs"] = answered(lowered, result["model_outputs"], self._notes)
        return self._answered(result)

    def _answered(self, result: Mapping[str, Any]) -> dict[str, Any]:
        """The callers' form of a forward's result."""
        return normalize_forward(result, warn=self._warn_none_once)

    async def step(self, learning_rate: float | None = None, **_legacy: Any) -> dict[str, Any]:
        result = await self._aio.step(learning_rate)
        return normalize_step(result, warn=self._warn_none_once)

    async def generate(
        self, prompts: Sequence[Any], sampling_params: Any = None, **legacy: Any
    ) -> list[dict[str, Any]]:
        routing = {k: legacy.pop(k) for k in ("routing_key", "strict") if k in legacy}
        if legacy:  # old callers passed sampling knobs as keywords
            base = sampling_params if isinstance(sampling_params, Mapping) else {}
            sampling_params = {**base, **legacy}
        if not self._lowers:
            return normalize_generate(await self._aio.generate(prompts, sampling_params, **routing))
        params = plain_params(sampling_params)
        prompts, params, key = fan_out(prompts, params, routing.get("routing_key"), self._notes)
        if key is not None:
            routing["routing_key"] = key
        outputs = normalize_generate(await self._aio.generate(prompts, params, **routing))
        for entry in outputs:
            if entry.get("logprobs") is not None:
                entry["logprobs"] = sampled_logprobs(entry)
        return outputs

    async def log_probs(
        self, prompts: Sequence[Any], completions: Sequence[Any] | None = None, top_k: int = 1
    ) -> dict[str, Any]:
        result = await self._aio.log_probs(prompts, completions, top_k)
        return tensors_in(result, ("logprobs", "top_k_token_ids"))

    async def sync_weights(
        self, cuda_ipc: bool | None = None, low_memory: bool | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """cuda_ipc/low_memory tune on-prem transfers; Cortex moves weights itself."""
        if self._sub_job("sampling") is None:
            return {}
        known = _known(kwargs, ("weight_format", "source_sub_job_id", "target_sub_job_ids"))
        return await self._aio.sync_weights(**known)

    async def save_checkpoint(
        self,
        folder: str | os.PathLike[str] | None = None,
        *,
        global_step: int | None = None,
        checkpoint_type: str | None = None,
        **legacy: Any,
    ) -> dict[str, Any]:
        """Given a framework's folder: a resumable Cortex checkpoint recorded there (see
        `AsyncArcticRLClient.save_checkpoint`). On-prem callers' paths and tags are
        ignored: Cortex names and stores checkpoints itself."""
        known = _known(legacy, ("checkpoint_id",))
        return await self._aio.save_checkpoint(
            folder, global_step=global_step, checkpoint_type=checkpoint_type, **known
        )

    async def load_checkpoint(
        self, checkpoint: str | os.PathLike[str], **kwargs: Any
    ) -> dict[str, Any]:
        """A folder `save_checkpoint(folder)` recorded, or a service checkpoint id."""
        names = ("source_job_id", "target_sub_job_id", "load_optimizer_states")
        return await self._aio.load_checkpoint(checkpoint, **_known(kwargs, names))

    async def delete_checkpoint(self, checkpoint: str | os.PathLike[str]) -> None:
        """Delete the service checkpoint a folder records (retention), or one by id."""
        await self._aio.delete_checkpoint(checkpoint)

    # -- colocation: training and sampling never share GPUs on Cortex ---------------------

    def _noop(self, *_args: Any, **_kwargs: Any) -> Done[None]:
        return Done(None)

    sleep_inference = wake_inference = reset_prefix_cache = _noop
    sleep_training = wake_training = sleep_log_prob = wake_log_prob = _noop
    empty_training_cache = _noop

    def weight_norm(self) -> Done[float | None]:
        """No Cortex route reports it; None (awaitable too) rather than a crash."""
        return Done(None)

    def shutdown(self) -> Done[None]:
        """Close (and cancel a job we created); works called plainly and with `await`."""
        atexit.unregister(self._release_at_exit)
        self._client.shutdown()
        return Done(None)

    def _release_at_exit(self) -> None:
        """SkyRL's driver never shuts the client it created down: when its process ends,
        cancel the job (configurable with cortex.cancel_on_shutdown) so it stops running;
        best effort within a few seconds (`AsyncArcticRLClient.shutdown`), so a process
        whose service has gone away still ends at once."""
        try:
            self._client.shutdown()
        except Exception as exc:  # the process is ending: say so, never raise
            log.warning("arctic_rl: could not cancel job %s at exit: %s", self.job_id, exc)

    def _warn_none_once(self, key: str) -> None:
        if key not in self._warned_none:
            self._warned_none.add(key)
            warnings.warn(
                f"the Cortex result carries no {key}; it is left out of metrics "
                f"(callers reduce every metric with np.mean, which fails on None)",
                RuntimeWarning,
                stacklevel=3,
            )


def _known(kwargs: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """Keep the keywords Cortex understands; note (once per call) the on-prem-only ones."""
    ignored = sorted(set(kwargs) - set(names))
    if ignored:
        log.debug("arctic_rl: ignoring on-prem-only arguments %s on Cortex", ignored)
    return {k: v for k, v in kwargs.items() if k in names}


def _required(value: str | None, kind: str) -> str:
    if value is None:
        raise ValueError(f"no {kind} sub-job on this Cortex job")
    return value
