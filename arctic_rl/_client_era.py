"""Configs of the published package's client era, read as this package's config.

Newer Arctic-Platform adapters build their client config nested: a `backend` object
(`type: onprem` with its transport, or `type: remote` for Cortex), a `training` block
(DeepSpeed settings, checkpoint path, determinism) and a `sampling` block (vLLM
settings, the log-prob engine). Older ones, and this package, use one flat config. Only
plain values cross: the nested config's dump is mapped field by field; a token it may
carry is dropped (this package reads the token from the environment only).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["flatten", "is_nested", "unmapped"]

# nested block -> {their field: our field}
_TRAINING = {
    "ds_config": "ds_config",
    "ds_worker_config": "ds_worker_config",
    "checkpoint_path": "checkpoint_path",
    "full_determinism": "full_determinism",
    "cuda_ipc": "cuda_ipc",
    "low_memory": "low_memory",
}
_SAMPLING = {
    "vllm": "vllm_config",
    "arctic_inference_config": "arctic_inference_config",
    "log_prob_engine": "log_prob_engine",
    "log_prob_ds_config": "log_prob_ds_config",
}
_ON_PREM = {
    "protocol": "comm_protocol",
    "host": "host",
    "port": "port",
    "colocate": "colocate",
    "startup_timeout": "startup_timeout",
}
_CORTEX = ("base_url", "host", "database", "schema", "schema_", "endpoint", "max_retries")
_TOP = (
    "model_name",
    "seed",
    "max_seq_len",
    "training_gpus",
    "sampling_gpus",
    "log_prob_gpus",
    "job_ready_timeout",
)
_JOB_IDS = ("training_job_id", "sampling_job_id", "log_prob_job_id")
_BLOCKS = ("training", "sampling", "backend")
# A remote backend's fields that need no mapping: its kind, its one transport, and the
# token (read from the environment by this package, never taken from a config).
_REMOTE_FIXED = ("type", "protocol", "colocate", "pat")


def is_nested(dump: Mapping[str, Any]) -> bool:
    """Whether a config dump has the nested shape (its `backend` is an object)."""
    return isinstance(dump.get("backend"), Mapping)


def flatten(dump: Mapping[str, Any]) -> dict[str, Any]:
    """A nested config dump as the flat mapping `ArcticRLClientConfig.from_mapping` takes."""
    flat: dict[str, Any] = {k: dump[k] for k in _TOP if dump.get(k) is not None}
    flat.update(_pick(dump.get("training"), _TRAINING))
    flat.update(_pick(dump.get("sampling"), _SAMPLING))
    backend = dump["backend"]
    if backend.get("type") == "remote":
        flat["backend"] = "cortex"
        flat["cortex"] = {
            ("schema" if k == "schema_" else k): backend[k]
            for k in _CORTEX
            if backend.get(k) not in (None, "")
        }
    else:
        flat["backend"] = "local"
        flat.update(_pick(backend, _ON_PREM))
    for key in _JOB_IDS:
        if isinstance(dump.get(key), str):
            flat[key] = dump[key]
    return flat


def unmapped(given: Mapping[str, Any], backend: Mapping[str, Any]) -> list[str]:
    """The dotted names of settings in ``given`` (a dump of what the caller set) that
    `flatten` has no field for; ``backend`` is the full dump's backend block (its kind)."""
    top = {*_TOP, *_JOB_IDS, *_BLOCKS}
    names = [k for k, v in given.items() if k not in top and v is not None]
    names += _unpicked(given.get("training"), _TRAINING, "training")
    names += _unpicked(given.get("sampling"), _SAMPLING, "sampling")
    remote = backend.get("type") == "remote"
    used = (*_CORTEX, *_REMOTE_FIXED) if remote else ("type", *_ON_PREM)
    names += _unpicked(given.get("backend"), used, "backend")
    return names


def _unpicked(block: Any, mapped: Collection[str], where: str) -> list[str]:
    if not isinstance(block, Mapping):
        return []
    return [f"{where}.{k}" for k, v in block.items() if k not in mapped and v is not None]


def _pick(block: Any, names: Mapping[str, str]) -> dict[str, Any]:
    if not isinstance(block, Mapping):
        return {}
    return {ours: block[theirs] for theirs, ours in names.items() if block.get(theirs) is not None}
