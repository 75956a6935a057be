"""The legacy client against the mock as today's service, over real HTTP, every request kept:
what reaches the service is what today's service runs, and step 1's PPO invariants hold.

Driven as SkyRL drives it: each call on a fresh event loop that is never closed.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from typing import Any

import httpx
import pytest
import torch

from arctic_rl import (
    ArcticRLClient,
    ArcticRLClientConfig,
    CortexService,
    LegacyCortexClient,
    NotServedError,
    ServiceOptions,
    wire,
)
from arctic_rl._forward_op import JSON_CAP
from devtools.batches import skyrl_repack

from .conftest import PAT_ENV

PROMPTS = ["ab", "abc", "a", "abcd"]
N = 2


class Recorder(httpx.AsyncBaseTransport):
    """Real HTTP; every request's path and body kept."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.sent: list[tuple[str, bytes]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = b"".join([part async for part in request.stream])  # type: ignore[union-attr]
        self.sent.append((request.url.path, body))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def bodies(self, suffix: str) -> list[bytes]:
        return [body for path, body in self.sent if path.endswith(suffix)]

    def frame(self, suffix: str) -> Any:
        """The value of the (one) chunked upload sent to a route."""
        return wire.loads(wire.join_chunks(self.bodies(suffix)))


def run(coro: Any) -> Any:
    return asyncio.new_event_loop().run_until_complete(coro)  # SkyRL's pattern


def legacy_client(mock: Any, recorder: Recorder, gpus: int) -> LegacyCortexClient:
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=gpus,
        sampling_gpus=1,
        cortex={"base_url": mock.base_url, "pat_env": PAT_ENV, "progress": False},
    )
    config._token_layout = "skyrl"
    service = CortexService(
        mock.base_url, mock.token, ServiceOptions(long_poll_s=2), httpx_transport=recorder
    )
    return LegacyCortexClient(config, client=ArcticRLClient(config, service=service))


@pytest.fixture
def today_mock(live_mock_factory: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    mock = live_mock_factory("reference")
    monkeypatch.setenv(PAT_ENV, mock.token)
    return mock


def test_a_skyrl_step_reaches_today_as_it_runs_and_pi_old_is_its_own_forward(
    today_mock: Any, caplog: pytest.LogCaptureFixture
) -> None:
    recorder = Recorder()
    with caplog.at_level(logging.INFO, logger="arctic_rl"):
        legacy = legacy_client(today_mock, recorder, gpus=2)
    try:
        said = [r.getMessage() for r in caplog.records if "serves today's" in r.getMessage()]
        assert len(said) == 1 and "is a 404" in said[0]
        aio = legacy.client.aio
        assert aio.service_kind == "today" and not aio.service.serves_proposals
        params = {"n": N, "max_tokens": 6, "temperature": 1.0, "logprobs": 0}
        outputs = run(legacy.generate(prompts=PROMPTS, sampling_params=params))
        sent_params = recorder.frame("/generate")["sampling_params"]
        entries = sent_params if isinstance(sent_params, list) else [sent_params]
        assert entries and all("n" not in entry for entry in entries)
        assert recorder.frame("/generate")["prompts"] == [p for p in PROMPTS for _ in range(N)]
        assert len(outputs) == len(PROMPTS) * N
        prompts = [list(p.encode()) for p in PROMPTS for _ in range(N)]
        responses = [o["token_ids"] for o in outputs]
        sampled = [o["logprobs"] for o in outputs]  # read by id from today's dicts
        assert all(len(lp) == len(r) for lp, r in zip(sampled, responses, strict=True))

        batch = skyrl_repack(prompts, responses)
        forward = {k: batch[k] for k in ("input_ids", "attention_mask", "position_ids")}
        meta = {"temperature": 1.0, "dp_size": 2}
        processing = {"post": ["compute_entropy_and_logprobs"], "loss_fn": None}
        old = run(legacy.fwd_no_grad({"batch": forward, "meta": meta, "processing": processing}))
        logprobs = old["batch"]["logprobs"]
        assert logprobs.shape == batch["input_ids"].shape and old["batch"]["entropy"].isnan().all()

        # The sampler/trainer gap (the integrators' health check): the same tokens' log-probs.
        width_p = max(map(len, prompts))
        gaps = [
            torch.tensor(s) - logprobs[i, width_p - 1 : width_p - 1 + len(s)]
            for i, s in enumerate(sampled)
        ]
        gap = float(torch.cat(gaps).mean())
        assert abs(gap) < 1e-4, gap  # one model samples and scores on the reference backend

        train = {**batch, "old_log_probs": logprobs}
        result = run(
            legacy.fwd_bwd(
                {
                    "batch": train,
                    "meta": {**meta, "actor_config": {"clip_ratio": 0.2}},
                    "processing": {"post": ["apply_temperature"], "loss_fn": "verl_grpo"},
                }
            )
        )
        assert "loss" in result["metrics"]
        assert not recorder.bodies("/forward-no-grad")
        posts = recorder.bodies("/operation")
        assert posts and all(len(b) <= JSON_CAP for b in posts)
        sent = recorder.frame("/forward-backward")
        assert set(sent) == {"args", "kwargs", "context", "processing"}  # no meta, no dp_size
        assert sent["processing"]["loss_fn"] == "grpo"
        assert sent["processing"]["post"] == ["compute_logprobs"]

        # pi_old as sent equals the service's own forward of the rows sent, bit for bit.
        rows = {k: sent["kwargs"][k] for k in ("input_ids", "attention_mask")}
        plain = {"post": ["compute_logprobs"], "loss_fn": None}
        context = {"input_ids": rows["input_ids"]}
        own = run(
            aio.forward({"args": [], "kwargs": rows, "context": context, "processing": plain})
        )
        own_lp = torch.as_tensor(own["model_outputs"]["logprobs"])
        scored = sent["context"]["loss_mask"]  # predicting frame, as the log-probs
        assert int(scored.sum()) == sum(map(len, responses))
        assert torch.equal(sent["context"]["old_log_probs_shifted"][scored], own_lp[scored])
        step = run(legacy.step())
        assert isinstance(step["metrics"], dict)
    finally:
        legacy.shutdown()


def test_a_skyrl_sized_batch_leaves_the_machine_against_today(
    live_mock_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """64 x 4096 is over the proposed cost budget (2^26), which today's service does not
    have: the client sends it, and its forward goes in posts under both caps."""
    mock = live_mock_factory("canned")
    monkeypatch.setenv(PAT_ENV, mock.token)
    recorder = Recorder()
    legacy = legacy_client(mock, recorder, gpus=8)
    try:
        ids = torch.randint(1, 200, (64, 4096))
        mask = torch.ones_like(ids)
        mask[:, :100] = 0  # left padding, as SkyRL's prompts
        batch = {"input_ids": ids, "attention_mask": mask, "position_ids": mask.cumsum(1)}
        old = run(legacy.fwd_no_grad({"batch": batch, "meta": {"temperature": 1.0}}))
        assert old["batch"]["logprobs"].shape == (64, 4096)
        train = {**batch, "loss_mask": mask, "advantages": torch.ones(64, 4096),
                 "old_log_probs": old["batch"]["logprobs"]}  # fmt: skip
        run(legacy.fwd_bwd({"batch": train, "processing": {"loss_fn": "verl_grpo"}}))
        assert recorder.bodies("/forward-backward")
        for body in recorder.bodies("/operation"):
            envelope = json.loads(body)
            frame = base64.b64decode(envelope["payload"]["payload_b64"])
            assert len(body) <= JSON_CAP and wire.loads(frame)["kwargs"]["input_ids"].shape[0] >= 8
    finally:
        legacy.shutdown()


def test_a_service_serving_the_proposals_is_found_once_and_keeps_its_budgets(
    live_mock_factory: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from arctic_rl import InvalidRequestError

    mock = live_mock_factory("canned", service="proposed")
    monkeypatch.setenv(PAT_ENV, mock.token)
    recorder = Recorder()
    with caplog.at_level(logging.INFO, logger="arctic_rl"):
        legacy = legacy_client(mock, recorder, gpus=1)
    try:
        aio = legacy.client.aio
        said = [r.getMessage() for r in caplog.records if "serves the contract's" in r.getMessage()]
        assert aio.service_kind == "proposed" and len(said) == 1
        assert aio.registries.losses is None  # the deployed backend's: left to the service
        run(legacy.step())
        assert _served_idempotency(legacy.client) is True
        ids = torch.ones(64, 4096, dtype=torch.long)
        train = {"input_ids": ids, "attention_mask": ids, "loss_mask": ids,
                 "advantages": torch.ones(64, 4096)}  # fmt: skip
        with pytest.raises(InvalidRequestError) as refused:
            run(legacy.fwd_bwd({"batch": train, "processing": {"loss_fn": "verl_grpo"}}))
        assert refused.value.code == "batch_over_budget" and refused.value.status is None
        assert not recorder.bodies("/forward-backward")
        assert [p for p, _ in recorder.sent].count(recorder.sent[0][0]) == 1  # asked once
        assert recorder.sent[0][0].endswith("/capabilities")
    finally:
        legacy.shutdown()


def test_the_yaml_setting_skips_the_question(
    live_mock_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    mock = live_mock_factory("canned", service="proposed")
    monkeypatch.setenv(PAT_ENV, mock.token)
    recorder = Recorder()
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        cortex={"base_url": mock.base_url, "pat_env": PAT_ENV, "service": "today"},
    )
    service = CortexService(
        mock.base_url, mock.token, ServiceOptions(long_poll_s=2), httpx_transport=recorder
    )
    client = ArcticRLClient(config, service=service)
    try:
        assert client.aio.service_kind == "today"
        assert not recorder.bodies("/capabilities")
        assert _served_idempotency(client) is False
    finally:
        client.shutdown()


def test_log_probs_against_today_is_refused_before_sending(today_mock: Any) -> None:
    """Today's service has no /log-probs (a 404 there): the client says what to use instead."""
    recorder = Recorder()
    legacy = legacy_client(today_mock, recorder, gpus=1)
    try:
        with pytest.raises(NotServedError, match="forward"):
            run(legacy.log_probs(["ab"], top_k=1))
        assert legacy.client.aio.service_kind == "today"
        assert not recorder.bodies("/log-probs")
    finally:
        legacy.shutdown()


def _served_idempotency(client: ArcticRLClient) -> bool:
    return client.aio.service.traits.served_idempotency
