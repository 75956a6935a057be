"""`AsyncArcticRLClient`: the client of one Cortex job.

The async client owns one Cortex job: it creates it from config (or reconnects to an
existing one), waits until it runs, and exposes the training and sampling calls. Its
blocking twin, `ArcticRLClient`, is in `_blocking`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self

from arctic_rl._batch_checks import check_sampling_params, check_training_batch
from arctic_rl._checkpoint_calls import CheckpointCalls
from arctic_rl._config import ArcticRLClientConfig
from arctic_rl._errors import ArcticRLError, ConfigError, NotFoundError, NotServedError
from arctic_rl._protocol import ServiceAPI
from arctic_rl._request_models import present, request_model
from arctic_rl._requests import (
    build_create_job_request,
    forward_request,
    job_of,
    plain_params,
    plain_tokens,
    start_from_checkpoint,
    sub_job_ids,
    todays_job,
)
from arctic_rl._service_setup import cortex_service
from arctic_rl._services import (
    PROPOSED,
    TODAY,
    Registries,
    ServiceKind,
    announce,
    contract_schemas,
    registries_of,
)
from arctic_rl._sources import resolve_config
from arctic_rl._timing import TIMING_KEY

if TYPE_CHECKING:
    pass

__all__ = ["AsyncArcticRLClient", "build_create_job_request"]

log = logging.getLogger("arctic_rl")
# Cancelling the job at close or exit is best effort within this many seconds: a process
# whose service has gone away ends in seconds, not after the whole retry budget.
CLOSE_CANCEL_S = 5.0


class AsyncArcticRLClient(CheckpointCalls):
    """One Cortex job, driven asynchronously. Use `await AsyncArcticRLClient.connect(cfg)`.

    Per-token inputs are sent as given, so they must be in the contract's layout
    (docs/layout.md): token-aligned and right-justified, column `j` of a `[B, w]` tensor
    belonging to `input_ids[:, T - w + j]`. Answers (`logprobs`, `entropy`) come back in
    the roll layout, column `i` scoring `input_ids[:, i + 1]`: sent back as
    `old_log_probs` they need moving one column right (or their last column dropped).

    Against today's service (`service_kind`, found once when the job starts) it sends what
    that service runs and converts nothing: a loss or post-processor it does not register
    (`registries`) and a sampling ``n`` are refused before sending, and `fwd_no_grad`
    goes through its ``forward`` operation, split by rows.
    """

    def __init__(
        self,
        config: ArcticRLClientConfig,
        *,
        service: ServiceAPI | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.config, self.config_sources = resolve_config(config, environ)
        if not self.config.is_cortex:
            raise ConfigError(
                f"AsyncArcticRLClient talks to Cortex; backend is {self.config.backend!r} "
                f"(set backend: cortex in the yaml)"
            )
        self.service: ServiceAPI = service or cortex_service(self.config.cortex, environ)
        self.job_id: str | None = None
        self.sub_jobs: dict[str, str] = {}
        self.owns_job = False
        self._last_timing: dict[str, float] = {}
        self.service_kind: ServiceKind | None = None
        # Set by the legacy client: its callers hard-code a job config today's image cannot
        # load (attn_implementation), so the config is lowered rather than refused.
        self.lowers_job_config = False

    def __repr__(self) -> str:
        return f"AsyncArcticRLClient(job_id={self.job_id!r}, service={self.service!r})"

    @classmethod
    async def connect(
        cls,
        config: ArcticRLClientConfig,
        *,
        service: ServiceAPI | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Self:
        """Build the client and create or reconnect its job, waiting until it runs."""
        client = cls(config, service=service, environ=environ)
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

    async def detect_service(self) -> ServiceKind:
        """Which service this is, found once per client (``cortex.service``, else the
        proposed capabilities route) and said in one log line."""
        if self.service_kind is None:
            setting = self.config.cortex.service
            if setting == "auto":
                proposals = await self.service.probe_proposals()
                how = "its capabilities route " + ("answers" if proposals else "is a 404")
            else:
                proposals, how = setting == PROPOSED, f"cortex.service is {setting}"
            self.service.serving(proposals)
            self.service_kind = PROPOSED if proposals else TODAY
            contract_schemas()  # what the checks before each call read, loaded now
            announce(self.service_kind, getattr(self.service, "base_url", "the service"), how)
        return self.service_kind

    @property
    def registries(self) -> Registries:
        """The losses and post-processors the service registers (today's, by name)."""
        if self.service_kind is None:
            raise ConfigError("the client has not asked its service yet: `await start()` first")
        return registries_of(self.service_kind)

    async def start(
        self,
        *,
        job_id: str | None = None,
        source_checkpoint: Mapping[str, str] | None = None,
        load_optimizer_states: bool = True,
    ) -> dict[str, Any]:
        """Reconnect when the config (or `job_id`) names a job; otherwise create one, from
        `source_checkpoint` ({checkpoint_id, source_job_id}) when given. Wait until running."""
        await self.detect_service()
        cfg = self.config
        named = cfg.cortex.job_id or job_of(cfg.training_job_id or cfg.sampling_job_id)
        job_id = job_id or named
        if job_id is None:
            from cortex_gs_client.models import CreateJobRequest

            fields = build_create_job_request(cfg)
            if self.service_kind == TODAY:
                fields = todays_job(fields, lower=self.lowers_job_config)
            if source_checkpoint is not None:
                start_from_checkpoint(fields, source_checkpoint, load_optimizer_states)
            job_id = await self.service.create_job(request_model(CreateJobRequest, fields))
            self.owns_job = True
            log.info("arctic_rl: created Cortex job %s", job_id)
        elif job_id == named and not cfg._reconnecting:
            log.warning(
                "arctic_rl: attaching to existing Cortex job %s, which keeps the weights its "
                "last run left (Cortex has no reset): load a checkpoint to resume, or leave "
                "cortex.job_id unset to start fresh",
                job_id,
            )
        else:
            log.info("arctic_rl: reconnecting to Cortex job %s", job_id)
        self.job_id = job_id
        job = await self.service.wait_job_running(job_id, cfg.job_ready_timeout)
        self.sub_jobs = sub_job_ids(job)
        return job.to_dict()

    def _require_job_id(self) -> str:
        if self.job_id is None:
            raise ConfigError("the client has no job yet: call `await client.start()` first")
        return self.job_id

    async def get_job(self) -> dict[str, Any]:
        return (await self.service.get_job(self._require_job_id())).to_dict()

    async def state(self) -> str:
        """The job's normalised state (running, cancelled, terminated, ...)."""
        from arctic_rl._tracking import normalize_state

        return normalize_state((await self.service.get_job(self._require_job_id())).status)

    async def cancel(self) -> dict[str, Any]:
        """Cancel the job and return it as it then stands (the cancel itself answers nothing)."""
        await self.service.cancel_job(self._require_job_id())
        return await self.get_job()

    async def shutdown(self, *, cancel: bool | None = None) -> None:
        """Close the connection; cancel the job if this client created it (configurable),
        best effort within `CLOSE_CANCEL_S` seconds, saying in one line how it went."""
        if cancel is None:
            cancel = self.owns_job and self.config.cortex.cancel_on_shutdown
        try:
            if cancel and self.job_id is not None:
                await self._cancel_at_close(self.job_id)
        finally:
            await self.aclose()

    async def _cancel_at_close(self, job_id: str) -> None:
        try:
            async with asyncio.timeout(CLOSE_CANCEL_S):
                await self.service.cancel_job(job_id)
        except (TimeoutError, ArcticRLError) as exc:
            reason = str(exc) or f"no answer within {CLOSE_CANCEL_S:g} s"
            log.warning(
                "arctic_rl: job %s was not cancelled at close (best effort, %g s): %s; "
                "it may still run: cancel it once the service answers",
                job_id,
                CLOSE_CANCEL_S,
                reason,
            )
        else:
            log.info("arctic_rl: cancelled job %s at close", job_id)

    async def aclose(self) -> None:
        await self.service.aclose()

    # -- answers ------------------------------------------------------------------------

    @property
    def last_timing(self) -> dict[str, float]:
        """The ``timing/*`` figures of the last training or sampling call to finish (empty
        before one has; docs/timing.md says what each one measures)."""
        return dict(self._last_timing)

    def _answer(self, result: Any) -> dict[str, Any]:
        """A data-plane answer as a plain dict; its figures (``"timing"``) are kept as the
        last call's."""
        answer = dict(result or {})
        self._last_timing = answer.get(TIMING_KEY) or {}
        return answer

    # -- training -----------------------------------------------------------------------

    async def fwd_bwd(
        self,
        batch: Mapping[str, Any],
        *,
        meta: Mapping[str, Any] | None = None,
        processing: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Forward and backward on the training sub-job (gradients accumulate until step).

        ``batch``: tensors, or a batch in any form `forward_request` reads; per-token
        inputs in the contract's token-aligned layout (see the class doc), never converted."""
        value = forward_request(batch, meta, processing)
        job_id = self._require_job_id()
        check_training_batch(value)
        self.registries.check(value.get("processing"))
        return self._answer(await self.service.run_chunked(job_id, "forward_backward", value))

    async def fwd_no_grad(
        self,
        batch: Mapping[str, Any],
        *,
        reference_model: bool = False,
        meta: Mapping[str, Any] | None = None,
        processing: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Forward only: log-probs of the policy, or of the reference model (against
        today's service: its ``forward`` operation on the training sub-job, or on the
        log_probability sub-job, which holds the reference model)."""
        value = forward_request(batch, meta, processing)
        job_id = self._require_job_id()
        self.registries.check(value.get("processing"))
        if self.service_kind == TODAY:
            return await self.forward(value, sub_job_id=self._forward_target(reference_model))
        value["reference_model"] = bool(reference_model)
        return self._answer(await self.service.run_chunked(job_id, "forward_no_grad", value))

    def _forward_target(self, reference_model: bool) -> str | None:
        if not reference_model:
            return self.sub_jobs.get("training")
        target = self.sub_jobs.get("log_prob")
        if target is None:
            raise NotServedError(
                "today's Cortex service has no reference-model forward on a job without a "
                "log_probability sub-job: create the job with log_prob_gpus > 0, or turn off "
                "what reads the reference (use_kl_loss, use_kl_in_reward)",
                code="not_served",
            )
        return target

    async def forward(
        self, body: Mapping[str, Any], *, sub_job_id: str | None = None
    ) -> dict[str, Any]:
        """Today's ``forward`` operation: ``body`` (Cortex form, sent as given) split by rows
        under its size caps, each part at least as many rows as training GPUs; the parts'
        answers joined, as ``{"model_outputs", "metrics"}``."""
        from arctic_rl._forward_op import send_forward

        job_id = self._require_job_id()
        min_rows = max(1, self.config.training_gpus)
        return self._answer(await send_forward(self.service, job_id, body, sub_job_id, min_rows))

    async def step(self, learning_rate: float | None = None) -> dict[str, Any]:
        from cortex_gs_client.models import StepRequest

        body = request_model(StepRequest, present(learning_rate=learning_rate))
        return self._answer(await self.service.step(self._require_job_id(), body))

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
        params = plain_params(sampling_params)
        check_sampling_params(params)
        if self.service_kind == TODAY and _names_n(params):
            raise NotServedError(
                "today's Cortex service has no sampling parameter n (it fails a request that "
                "names one): send each prompt n times",
                code="not_served",
            )
        value: dict[str, Any] = {
            "prompts": [p if isinstance(p, str) else list(p) for p in prompts],
            "sampling_params": params,
            "strict": strict,
            **present(routing_key=routing_key),
        }
        job_id = self._require_job_id()
        return self._answer(await self.service.run_chunked(job_id, "generate", value))

    async def log_probs(
        self,
        prompts: Sequence[str | Sequence[int]],
        completions: Sequence[str | Sequence[int]] | None = None,
        top_k: int = 1,
    ) -> dict[str, Any]:
        from cortex_gs_client.models import LogProbsRequest

        if self.service_kind == TODAY:
            raise NotServedError(
                "today's Cortex service has no log-probs route: score the tokens with the "
                "`forward` operation instead (`forward`, or `fwd_no_grad` on the legacy client)",
                code="not_served",
            )
        fields: dict[str, Any] = {"prompts": [plain_tokens(p) for p in prompts], "top_k": top_k}
        if completions is not None:
            fields["completions"] = [plain_tokens(c) for c in completions]
        body = request_model(LogProbsRequest, fields)
        return self._answer(await self.service.log_probs(self._require_job_id(), body))

    async def sync_weights(
        self,
        *,
        weight_format: str | None = None,
        source_sub_job_id: str | None = None,
        target_sub_job_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """Push the trained weights to the sampling sub-jobs."""
        from cortex_gs_client.models import OperationRequest, SyncWeightsRequest
        from cortex_gs_contract import ErrorCode

        fields = present(
            weight_format=weight_format,
            source_sub_job_id=source_sub_job_id,
            target_sub_job_ids=None if target_sub_job_ids is None else list(target_sub_job_ids),
        )
        job_id = self._require_job_id()
        try:
            body = request_model(SyncWeightsRequest, fields)
            return self._answer(await self.service.sync_weights(job_id, body))
        except NotFoundError as exc:
            if exc.code == ErrorCode.job_not_found:
                raise
            # An older service without the route: the same work as a weight-sync operation.
            op = request_model(
                OperationRequest, {"operation_type": "weight-sync", "payload": fields}
            )
            return self._answer(await self.service.run_operation(job_id, op))


def _names_n(params: Any) -> bool:
    entries = params if isinstance(params, list) else [params]
    return any(isinstance(entry, Mapping) and "n" in entry for entry in entries)
