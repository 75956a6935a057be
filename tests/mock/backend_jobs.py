"""The sub-jobs a backend test prepares: a training and a sampling one on the tiny model."""

from __future__ import annotations

from typing import Any


def sub_jobs(seed: int = 0, lr: float = 1e-2, **training: Any) -> list[dict[str, Any]]:
    tcfg = {"optimizer": {"lr": lr}, "max_seq_len": 64, "train_batch_size": 4, "n_gpus": 1}
    return [
        {
            "job_type": "training",
            "model_name": "m",
            "seed": seed,
            "training_config": {**tcfg, **training},
        },
        {
            "job_type": "sampling",
            "model_name": "m",
            "inference_config": {"max_seq_len": 64, "n_gpus": 1},
        },
    ]
