"""Helpers of the fidelity tests: jobs as the published client creates them, its frames."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import torch

from arctic_rl import wire
from devtools.live_mock import LiveMock, MockApi

SUB_JOB_DEFAULTS = {
    # What the published client's config.to_cortex() sends with default training settings:
    # no optimizer, no train_batch_size (client/config.py:319-325).
    "sampling": {
        "job_type": "sampling",
        "model_name": "tiny-byte-lm",
        "inference_config": {"max_seq_len": 64, "n_gpus": 1},
    },
    "training": {
        "job_type": "training",
        "model_name": "tiny-byte-lm",
        "training_config": {"max_seq_len": 64, "n_gpus": 1},
    },
}


def create(api: MockApi, *sub_jobs: dict[str, Any], **extra: Any) -> str:
    response = api.http.post("/", json={"sub_job_configs": list(sub_jobs), **extra})
    assert response.status_code == 200, response.text
    job_id = str(response.json()["job_id"])
    api.wait_running(job_id)
    return job_id


def default_job(api: MockApi, **training: Any) -> str:
    tcfg = {**SUB_JOB_DEFAULTS["training"]["training_config"], **training}
    return create(
        api, SUB_JOB_DEFAULTS["sampling"], {**SUB_JOB_DEFAULTS["training"], "training_config": tcfg}
    )


def minimal_frame(seed: int = 0, bsz: int = 2, width: int = 10) -> dict[str, Any]:
    """The service's minimal forward-backward object (spec:519-523): input_ids + labels."""
    ids = torch.randint(0, 256, (bsz, width), generator=torch.Generator().manual_seed(seed))
    labels = torch.roll(ids, -1, dims=-1)
    labels[:, -1] = -100
    return {"args": [], "kwargs": {"input_ids": ids, "labels": labels}}


def published_frame(bsz: int = 2, width: int = 10) -> dict[str, Any]:
    """The shape the published client's integrations send (_cortex_shared.py:154-181)."""
    gen = torch.Generator().manual_seed(7)
    ids = torch.randint(0, 256, (bsz, width), generator=gen)
    loss_mask = torch.zeros(bsz, width, dtype=torch.bool)
    loss_mask[:, width // 2 :] = True
    return {
        "args": (),
        "kwargs": {
            "input_ids": ids,
            "attention_mask": torch.ones(bsz, width, dtype=torch.int64),
            "position_ids": torch.arange(width).repeat(bsz, 1),
        },
        "context": {
            "input_ids": ids,
            "advantages": torch.randn(bsz, width, generator=gen),
            "loss_mask": loss_mask,
        },
        "processing": {
            "post": ["compute_logprobs"],
            "loss_fn": "grpo",
            "config": {"global_batch_size": bsz},
        },
    }


def full_width(logprobs: Any) -> tuple[int, int]:
    """Today's forward-backward log-probs: nested lists, rectangular; their (rows, width)."""
    assert isinstance(logprobs, list) and all(isinstance(row, list) for row in logprobs)
    widths = {len(row) for row in logprobs}
    assert len(widths) == 1, widths
    return len(logprobs), widths.pop()


def bare(api: MockApi, job_id: str, route: str, value: Any) -> dict[str, Any]:
    """POST ``value`` as one bare DSSST1 frame and return the completed result."""
    response = api.http.post(f"/{job_id}/{route}", content=wire.dumps(value))
    assert response.status_code == 202, response.text
    return dict(api.result(job_id, response.json()["request_id"]))


def paged_forward_backward(
    live_mock_factory: Callable[..., LiveMock],
    *,
    result_chunk_bytes: int,
    bsz: int,
    width: int,
    service: str = "today",
) -> tuple[MockApi, str, str]:
    """A finished bare forward-backward on a mock that pages results above 1 KiB."""
    api = MockApi(
        live_mock_factory(
            inline_result_bytes=1024, result_chunk_bytes=result_chunk_bytes, service=service
        )
    )
    job_id = default_job(api, max_seq_len=width)  # the job takes sequences this wide
    frame = wire.dumps(published_frame(bsz=bsz, width=width))
    request_id = api.http.post(f"/{job_id}/forward-backward", content=frame).json()["request_id"]
    api.wait(job_id, request_id)
    return api, job_id, request_id


def op(api: MockApi, job_id: str, operation_type: str, **fields: Any) -> httpx.Response:
    return api.http.post(f"/{job_id}/operation", json={"operation_type": operation_type, **fields})
