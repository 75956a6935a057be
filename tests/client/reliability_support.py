"""The reliability tests' client config, shared with the error-remedy tests."""

from __future__ import annotations

from typing import Any

from arctic_rl import ArcticRLClientConfig

PAT_ENV = "ARCTIC_RL_RELIABILITY_PAT"


def config(base_url: str, **cortex: Any) -> ArcticRLClientConfig:
    return ArcticRLClientConfig(
        backend="cortex",
        model_name="m",
        training_gpus=1,
        cortex={
            "base_url": base_url,
            "pat_env": PAT_ENV,
            "progress": False,
            "long_poll_s": 0,
            "max_retries": 2,
            **cortex,
        },
    )
