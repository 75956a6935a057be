"""Cost budgets: a request whose shape multiplies into too much work is refused before any.

The per-field limits bound each dimension; the budgets in the contract's limits table bound
their product (rows x width² of a forward batch, prompts x n x max_tokens of a generation).
The mock refuses a request just over a budget with 422 and the budget's code, before the
backend sees it (so it allocates nothing), and runs one just under; the client refuses
the same before it uploads a byte.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import torch
import yaml
from arctic_rl_mock.settings import Settings
from hardening.support import store_rows

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient, InvalidRequestError, wire
from arctic_rl._budgets import MAX_BATCH_COST, MAX_GENERATION_TOKENS
from devtools.faults import FaultProxy
from devtools.live_mock import LiveMock, MockApi
from reliability.limits_support import (
    CONTRACT,
    MAX_SEQ_LEN,
    Process,
    mock_in_own_process,
    post_frame,
    refused,
)

MiB = 1024 * 1024
PAT_ENV = "ARCTIC_RL_BUDGET_TEST_PAT"
T = TypeVar("T")


def batch(rows: int, width: int) -> dict[str, Any]:
    """A GRPO batch of ``rows`` x ``width`` tokens."""
    ids = torch.randint(0, 256, (rows, width), generator=torch.Generator().manual_seed(rows))
    return {
        "args": [],
        "kwargs": {
            "input_ids": ids,
            "attention_mask": torch.ones_like(ids),
            "responses": ids[:, width // 2 :],
            "response_mask": torch.ones(rows, width - width // 2, dtype=torch.int64),
            "advantages": torch.randn(rows, width - width // 2),
            "old_log_probs": torch.full((rows, width - width // 2), -6.0),
        },
        "meta": {},
        "processing": {"loss_fn": "grpo", "config": {}},
    }


def generation(prompts: int, n: int, max_tokens: int) -> dict[str, Any]:
    return {"prompts": ["hi"] * prompts, "sampling_params": {"n": n, "max_tokens": max_tokens}}


def with_peak_growth(server: Process, call: Callable[[], T]) -> tuple[T, int]:
    """``call()``'s answer, and how far above its resident size the mock's process peaked
    meanwhile, in kB (from that process's own high-water mark, reset first)."""
    before = server.status()["VmRSS"]
    server.reset_peak()
    answer = call()
    return answer, server.status()["VmHWM"] - before


def test_the_budgets_are_in_the_contracts_limits_table() -> None:
    contract = yaml.safe_load(CONTRACT.read_text())
    prose = contract["info"]["description"]
    assert f"| {MAX_BATCH_COST} (2^26) | `422 batch_over_budget` |" in prose
    assert f"| {MAX_GENERATION_TOKENS} (2^22) | `422 generation_over_budget` |" in prose
    settings = Settings(state_dir=Path("unused"))
    assert (settings.max_batch_cost, settings.max_generation_tokens) == (
        MAX_BATCH_COST,
        MAX_GENERATION_TOKENS,
    )
    for code in ("batch_over_budget", "generation_over_budget"):
        assert code in contract["components"]["schemas"]["ErrorCode"]["enum"]


@pytest.mark.parametrize("route", ["forward-backward", "forward-no-grad"])
def test_a_batch_just_over_the_budget_is_refused_before_any_work(
    tmp_path: Path, route: str
) -> None:
    """The reference backend at the contract's budget: one row more than it allows (about
    6 GiB of activations) is refused, and the mock's process did not grow."""
    with mock_in_own_process(tmp_path / "state", backend="reference", service="proposed") as (
        api,
        server,
    ):
        job_id = api.create_job()
        rows = MAX_BATCH_COST // MAX_SEQ_LEN**2 + 1
        value = batch(rows, MAX_SEQ_LEN)
        answer, grown_kb = with_peak_growth(server, lambda: post_frame(api, job_id, route, value))
        body = refused(answer, 422, "batch_over_budget")
        assert grown_kb < 256 * 1024
        assert str(MAX_BATCH_COST) in body["message"]
        assert body["details"][0]["type"] == "batch_over_budget"
        state_dir = api.mock.state_dir
        assert not store_rows(state_dir, "SELECT 1 FROM requests WHERE job_id = ?", job_id)
        assert not any((state_dir / "chunks" / job_id).glob("*/*.bin"))


def test_a_batch_just_under_a_budget_runs(live_mock_factory: Callable[..., LiveMock]) -> None:
    api = MockApi(live_mock_factory("reference", service="proposed", max_batch_cost=4 * 16**2))
    job_id = api.create_job()
    refused(post_frame(api, job_id, "forward-backward", batch(5, 16)), 422, "batch_over_budget")
    result = api.run_frame(job_id, "forward-backward", batch(4, 16))
    assert math.isfinite(result["avg_loss"])
    api.close()


def test_a_generation_just_over_the_budget_is_refused(tmp_path: Path) -> None:
    with mock_in_own_process(tmp_path / "state", service="proposed") as (api, server):
        job_id = api.create_job()
        prompts, n = 1024, 64  # each at its own limit
        max_tokens = MAX_GENERATION_TOKENS // (prompts * n) + 1
        value = generation(prompts, n, max_tokens)

        def send_both() -> list[httpx.Response]:
            bare = api.http.post(f"/{job_id}/generate", content=wire.dumps(value))
            return [bare, api.http.post(f"/{job_id}/generate-stream", content=json.dumps(value))]

        answers, grown_kb = with_peak_growth(server, send_both)
        assert grown_kb < 256 * 1024
        for answer in answers:
            refused(answer, 422, "generation_over_budget")


def test_a_generation_just_under_a_budget_runs(
    live_mock_factory: Callable[..., LiveMock],
) -> None:
    api = MockApi(live_mock_factory(service="proposed", max_generation_tokens=4 * 2 * 8))
    job_id = api.create_job()
    over = api.http.post(f"/{job_id}/generate", content=wire.dumps(generation(4, 2, 9)))
    refused(over, 422, "generation_over_budget")
    # A missing n counts once, a missing max_tokens as the mock's default (16).
    default = api.http.post(f"/{job_id}/generate", content=wire.dumps({"prompts": ["a"] * 5}))
    refused(default, 422, "generation_over_budget")
    result = api.run(job_id, "generate-stream", generation(4, 2, 8))
    assert result == {"completed": 4, "failed": 0}
    answer = api.http.post(f"/{job_id}/generate", content=wire.dumps(generation(4, 2, 8)))
    assert answer.status_code == 202, answer.text
    api.close()


async def test_the_client_checks_the_budgets_before_it_uploads(
    live_mock_factory: Callable[..., LiveMock], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused by the client itself: not one byte of either request reaches the service."""
    live_mock = live_mock_factory(service="proposed")  # the budgets are a proposal
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    async with FaultProxy(live_mock.port) as proxy:  # no faults: it records what passes
        base_url = proxy.url(live_mock.base_url, live_mock.port)
        config = ArcticRLClientConfig(
            backend="cortex",
            model_name="tiny-byte-lm",
            training_gpus=1,
            cortex={"base_url": base_url, "pat_env": PAT_ENV, "progress": False},
        )
        client = await AsyncArcticRLClient.connect(config)
        try:
            width = 2048
            rows = MAX_BATCH_COST // width**2 + 1
            with pytest.raises(InvalidRequestError) as wide:
                await client.fwd_bwd(batch(rows, width)["kwargs"])
            with pytest.raises(InvalidRequestError) as many:
                await client.generate(["hi"] * 1024, {"n": 64, "max_tokens": 65})
        finally:
            await client.shutdown(cancel=False)
    assert (wide.value.code, many.value.code) == ("batch_over_budget", "generation_over_budget")
    assert wide.value.status is None  # no answer: the client's own refusal
    assert str(MAX_BATCH_COST) in str(wide.value)
    sent = b" ".join(proxy.forwarded)
    assert b"/forward-backward" not in sent and b"/generate" not in sent
    assert proxy.forwarded  # the proxy did see the job's creation and polls
