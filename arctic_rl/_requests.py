"""Request bodies built from what callers pass: the job to create, forward batches, prompts.

Kept apart from the client so that the translation of the frameworks' legacy fields into
Cortex's shapes can be read (and tested) on its own.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arctic_rl._config import ArcticRLClientConfig
from arctic_rl._config_check import warn_dropped
from arctic_rl._errors import NotServedError

if TYPE_CHECKING:
    from cortex_gs_client.models import Job

__all__ = [
    "build_create_job_request",
    "forward_request",
    "job_of",
    "plain_params",
    "plain_tokens",
    "start_from_checkpoint",
    "sub_job_ids",
    "todays_job",
]

log = logging.getLogger("arctic_rl")
# Today's image ships FlashAttention 3 only: any other implementation fails at model load.
TODAY_ATTENTION = "flash_attention_3"

DEFAULT_OPTIMIZER_NAME = "AdamW"
DEFAULT_LR = 1e-6
DEFAULT_MAX_SEQ_LEN = 4096
_OPTIMIZER_FIELDS = ("lr", "weight_decay", "betas")
_DS_USED = ("train_batch_size", "gradient_clipping", "optimizer")  # DeepSpeed's keys read


def build_create_job_request(config: ArcticRLClientConfig) -> dict[str, Any]:
    """Translate the legacy fields into a CreateJobRequest.

    SkyRL and verl put `training_config = {optimizer: {lr, weight_decay, betas,
    gradient_clipping?}, max_length, training_horizon, lr_scheduler, ...}` next to a
    DeepSpeed `ds_config` (`train_batch_size`, `gradient_clipping`, `optimizer: {type,
    params}`). Cortex wants `optimizer: {name, lr, weight_decay, betas}`, `max_seq_len`,
    `train_batch_size`, `gradient_clipping` (only when clipping) and `n_gpus`; other
    keys pass through, None values are left out. Settings with no place in the request
    (most of DeepSpeed's, the DeepSpeed worker's, Arctic Inference's, and an engine's
    settings when it has no GPUs) are named in one WARNING.
    """
    warn_dropped(_dropped(config), "the client config")
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


def todays_job(body: dict[str, Any], *, lower: bool) -> dict[str, Any]:
    """``body`` as today's image loads it: an attention implementation other than
    FlashAttention 3 (SkyRL hard-codes FlashAttention 2, verl's adapter eager) fails at
    model load, so it is refused before the job is created, or, when ``lower`` (the legacy
    client, whose callers cannot choose), replaced by FlashAttention 3 in one log line."""
    for sub in body.get("sub_job_configs") or ():
        training = sub.get("training_config")
        attention = (training or {}).get("attn_implementation")
        if attention is None or attention == TODAY_ATTENTION:
            continue
        if not lower:
            raise NotServedError(
                f"today's Cortex image cannot load attn_implementation {attention!r}: it ships "
                f"FlashAttention 3 only; set attn_implementation: {TODAY_ATTENTION} (or leave "
                "it out)",
                code="not_served",
            )
        log.info(
            "arctic_rl: attn_implementation %r is sent as %s (today's image ships FlashAttention "
            "3 only; the same attention, another kernel)",
            attention,
            TODAY_ATTENTION,
        )
        training["attn_implementation"] = TODAY_ATTENTION
    return body


def _dropped(config: ArcticRLClientConfig) -> list[str]:
    """The dotted names of the nested settings `build_create_job_request` does not use."""
    ds = config.ds_config or {}
    optimizer = ds.get("optimizer") if isinstance(ds.get("optimizer"), Mapping) else {}
    params = optimizer.get("params") if isinstance(optimizer.get("params"), Mapping) else {}
    unused: list[tuple[str, Mapping[str, Any] | None, tuple[str, ...]]] = [
        ("ds_config", ds, _DS_USED),
        ("ds_config.optimizer", optimizer, ("type", "params")),
        ("ds_config.optimizer.params", params, _OPTIMIZER_FIELDS),
        ("ds_worker_config", config.ds_worker_config, ()),
        ("arctic_inference_config", config.arctic_inference_config, ()),
    ]
    if config.sampling_gpus <= 0:
        unused.append(("vllm_config", config.vllm_config, ()))
    if config.log_prob_gpus <= 0:
        unused.append(("log_prob_ds_config", config.log_prob_ds_config, ()))
    return [
        f"{where}.{key}"
        for where, block, used in unused
        for key, value in (block or {}).items()
        if key not in used and value is not None
    ]


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


_PROCESSING_KEYS = frozenset({"post", "loss_fn", "config"})


def forward_request(
    batch: Mapping[str, Any],
    meta: Mapping[str, Any] | None = None,
    processing: Mapping[str, Any] | None = None,
    *,
    legacy: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """ForwardBackwardBatch / ForwardNoGradBatch: {args, kwargs, meta, processing[, context]}.

    The one place a forward batch is shaped, from any form callers pass: bare tensors;
    the frameworks' ``{"batch", "meta", "processing"[, "context"]}``; or a batch already
    in Cortex form (it has `kwargs`), kept as it is. ``meta`` and ``processing`` given
    apart are merged in, and so are the old keywords in ``legacy``: `meta=`, `context=`,
    `processing=`, `post`/`loss_fn`/`config`, `post_processors=` (-> processing.post);
    the rest go to meta.
    """
    if isinstance(batch.get("kwargs"), Mapping):
        body = dict(batch)
    elif isinstance(batch.get("batch"), Mapping):
        body = {"args": [], "kwargs": dict(batch["batch"]), "meta": {}, "processing": {}}
        extra = {k: batch.get(k) for k in ("meta", "processing", "context")}
        _merge(body, {k: v for k, v in extra.items() if v})
    else:
        body = {"args": [], "kwargs": dict(batch), "meta": {}, "processing": {}}
    folded = _folded(legacy or {})
    _merge(body, {"meta": meta, "processing": processing})
    _merge(body, folded)
    return body


def _folded(legacy: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The old keywords, sorted into the meta, processing and context they stand for."""
    parts: dict[str, dict[str, Any]] = {"meta": {}, "processing": {}, "context": {}}
    for key, value in legacy.items():
        if key in ("meta", "context", "processing") and isinstance(value, Mapping):
            parts[key].update(value)
        elif key == "post_processors":
            parts["processing"]["post"] = [value] if isinstance(value, str) else list(value)
        elif key in _PROCESSING_KEYS:
            parts["processing"][key] = value
        else:
            parts["meta"][key] = value
    return parts


def _merge(body: dict[str, Any], parts: Mapping[str, Mapping[str, Any] | None]) -> None:
    """Merge each non-empty part into the body's mapping of that name (later keys win)."""
    for name, part in parts.items():
        if part:
            body[name] = {**(body.get(name) or {}), **part}


def plain_tokens(value: Any) -> Any:
    return value if isinstance(value, str) else [int(t) for t in value]


def plain_params(params: Any) -> Any:
    """vLLM SamplingParams objects or dicts -> plain dicts (JSON-able, no pickles)."""
    if params is None:
        return {}
    if isinstance(params, Mapping):
        return dict(params)
    if isinstance(params, Sequence) and not isinstance(params, str):
        return [plain_params(p) for p in params]
    fields = getattr(params, "__struct_fields__", None) or vars(params)
    return {name: getattr(params, name) for name in fields if not name.startswith("_")}


# Sub-job kinds as they appear in sub-job ids, keyed by the job_type the service reports.
_KIND_BY_JOB_TYPE = {"training": "training", "sampling": "sampling", "log_probability": "log_prob"}


def start_from_checkpoint(
    body: dict[str, Any], source: Mapping[str, str], load_optimizer_states: bool
) -> None:
    """Start a create-job body's training sub-job from a saved checkpoint."""
    for sub in body["sub_job_configs"]:
        if sub["job_type"] == "training":
            sub["source_checkpoint_info"] = dict(source)
            sub["training_config"]["load_optimizer_states"] = load_optimizer_states


def job_of(sub_job_id: str | None) -> str | None:
    """`{job_id}:{kind}:{index}` -> job_id (a bare job id passes through)."""
    return sub_job_id.split(":", 1)[0] if sub_job_id else None


def sub_job_ids(job: Job) -> dict[str, str]:
    """The job's sub-job ids by kind (training, sampling, log_prob)."""
    ids: dict[str, str] = {}
    for sub in job.to_dict().get("sub_jobs") or []:
        kind = _KIND_BY_JOB_TYPE.get(str(sub.get("job_type")), str(sub.get("job_type")))
        ids.setdefault(kind, str(sub.get("sub_job_id")))
    return ids
