"""What a verl process sees of the `cortex` backend, as JSON on stdout.

    python verl_plugin_probe.py import
    python verl_plugin_probe.py drive BASE_URL PAT_ENV

`import`: `import verl` (its bootstrap loads the plugins in VERL_USE_EXTERNAL_MODULES) with
the `arctic_rl` log captured, then what the registries hold (the remote backends and,
where this verl has them, the rollout replicas) and whether anything of the
published `arctic_platform` package was imported. `drive`: the backend built on
the driver from the composed config, re-attached as a worker would, then the calls each
verl interface makes: the pre-merge worker (a registry with `MODULES`) calls from inside
its event loop without `await` and its trainer destroys without `await`; the merged
worker awaits and its trainer destroys through `asyncio.run`. Every warning is recorded.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import sys
import threading
import warnings
from typing import Any

from omegaconf import DictConfig, OmegaConf
from verl_replay import verl_batch

PROMPTS, COMPLETIONS = [[104, 105], [111]], [[33], [107, 33]]
LOG_PROB = {"ref": False, "calculate_entropy": True, "rollout_n": 1, "pad_token_id": 0}


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.getMessage()}")


def _import_verl() -> tuple[Any, list[str]]:
    collect = _Collect()
    logger = logging.getLogger("arctic_rl")
    logger.addHandler(collect)
    logger.setLevel(logging.INFO)
    import verl  # noqa: F401

    try:
        from verl.remote_backend.base import RemoteBackendRegistry
    except ImportError:
        return None, collect.lines
    return RemoteBackendRegistry, collect.lines


def probe_import() -> dict[str, Any]:
    registry, log = _import_verl()
    out: dict[str, Any] = {"log": log, "registry": registry is not None}
    if registry is None:
        return out
    out["modules"] = dict(getattr(registry, "MODULES", {}))
    try:
        out["cortex"] = registry.get("cortex").__name__
    except Exception as exc:
        out["cortex"] = f"{type(exc).__name__}: {exc}"
    out["backends"] = sorted(registry._backends)  # after the lookup (it may import)
    if hasattr(registry, "get_worker"):
        worker = registry.get_worker("cortex")
        out["worker"] = None if worker is None else f"{worker.__module__}.{worker.__name__}"
    out["replica"] = _replica("cortex")
    out["published_imported"] = sorted(m for m in sys.modules if m.startswith("arctic_platform"))
    return out


def _replica(name: str) -> str | None:
    """What verl's agent loop gets for `actor_rollout_ref.rollout.name=NAME` (None: this
    verl has no rollout replicas)."""
    try:
        from verl.workers.rollout.replica import get_rollout_replica_class
    except ImportError:
        return None
    found = get_rollout_replica_class(name)
    return f"{found.__module__}.{found.__name__}"


def compose(base_url: str, pat_env: str) -> DictConfig:
    from arctic_rl.integrations.verl import GROUP_FILE

    cfg = OmegaConf.create(
        {
            "actor_rollout_ref": {
                "model": {"path": "tiny-byte-lm"},
                "rollout": {"n": 2},
                "actor": {
                    "ppo_mini_batch_size": 2,
                    "ppo_epochs": 1,
                    "optim": {"lr": 0.01, "weight_decay": 0.0, "betas": [0.9, 0.999]},
                },
            },
            "data": {"train_batch_size": 2, "max_prompt_length": 8, "max_response_length": 4},
            "trainer": {"remote_backend": "cortex", "default_local_dir": "ckpt"},
            "remote_backend": OmegaConf.load(GROUP_FILE),
        }
    )
    settings = [
        f"remote_backend.cortex.base_url={base_url}",
        f"remote_backend.cortex.pat_env={pat_env}",
        "remote_backend.cortex.database=RL_DB",
        "remote_backend.cortex.schema=PUBLIC",
        "remote_backend.cortex.long_poll_s=1",
        "remote_backend.cortex.progress=false",
    ]
    merged = OmegaConf.merge(cfg, OmegaConf.from_dotlist(settings))
    assert isinstance(merged, DictConfig)
    return merged


async def _fork_worker_calls(worker: Any) -> dict[str, Any]:
    """Inside a running loop, as the pre-merge generic worker's async methods call them."""
    answer = worker.compute_log_prob(verl_batch(PROMPTS, COMPLETIONS), **LOG_PROB)
    await worker.update_weights()
    saved = worker.save_checkpoint()
    return {
        "answer": sorted(answer["model_output"]),
        "answer_type": type(answer).__name__,
        "saved": dict(saved),
    }


async def _merged_worker_calls(worker: Any) -> dict[str, Any]:
    answer = await worker.compute_log_prob(verl_batch(PROMPTS, COMPLETIONS), **LOG_PROB)
    await worker.update_weights()
    saved = await worker.save_checkpoint()
    return {
        "answer": sorted(answer["model_output"]),
        "answer_type": type(answer).__name__,
        "saved": dict(saved),
    }


def probe_drive(base_url: str, pat_env: str) -> dict[str, Any]:
    registry, log = _import_verl()
    fork = hasattr(registry, "MODULES")
    cfg = compose(base_url, pat_env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        backend = registry.get("cortex").from_config(cfg)
        worker = registry.get("cortex").from_config(cfg, handle=backend.reconnect_handle())
        calls = _fork_worker_calls if fork else _merged_worker_calls
        out = asyncio.run(calls(worker))
        out["client"] = type(backend._client).__name__
        out["job_id"] = backend._client.job_id
        out["same_job"] = worker._client.job_id == backend._client.job_id
        if fork:
            worker.destroy()  # the worker's destroy and the trainer's: no await
            backend.destroy()
        else:
            asyncio.run(worker.destroy())
            asyncio.run(backend.destroy())
        out["closed"] = backend._client is None and worker._client is None
        del worker, backend
        gc.collect()
        # Each backend's settling loop (fork-era calls) ends with the backend.
        out["settle_threads"] = [t.name for t in threading.enumerate() if "settle" in t.name]
    out["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    out["log"] = log
    return out


if __name__ == "__main__":
    result = probe_import() if sys.argv[1] == "import" else probe_drive(*sys.argv[2:4])
    print(json.dumps(result, default=str))
