"""The PAT never shows up in logs, reprs or error messages, on either side of the wire.

A full client session (every SDK call, plus authentication failures) runs against the
mock with every logger at DEBUG; then the captured log records, the process's own
stdout/stderr, a subprocess server's combined output, and the reprs and messages of
every object and error involved are searched for the token.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import torch
from cortex_gs_contract import TOKEN_TYPE_HEADER

from arctic_rl import (
    ArcticRLClientConfig,
    ArcticRLError,
    AsyncArcticRLClient,
    AuthenticationError,
    create_arctic_rl_client,
)
from devtools.live_mock import LiveMock
from devtools.mock_process import MockProcess

PAT_ENV = "ARCTIC_RL_SECRETS_PAT"
PROCESSING = {"post": ["logprobs", "entropy"], "loss_fn": "grpo", "config": {}}


def secret() -> str:
    """A token nothing else could contain by accident."""
    return f"pat-{uuid.uuid4().hex}-SECRET"


def config_for(base_url: str, **cortex: Any) -> ArcticRLClientConfig:
    """A Cortex config for ``base_url``; the token is read from PAT_ENV, never stored."""
    settings = {"base_url": base_url, "pat_env": PAT_ENV, "long_poll_s": 2, "progress": True}
    return ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        sampling_gpus=1,
        cortex={**settings, **cortex},
    )


def tensors() -> dict[str, torch.Tensor]:
    """A small training batch (byte-level ids)."""
    ids = torch.randint(32, 127, (2, 8))
    mask = torch.zeros(2, 8, dtype=torch.long)
    mask[:, 4:] = 1
    return {
        "input_ids": ids,
        "attention_mask": torch.ones(2, 8, dtype=torch.long),
        "prompts": ids[:, :4],
        "responses": ids[:, 4:],
        "response_mask": mask,
        "advantages": torch.randn(2, 8),
        "old_log_probs": torch.full((2, 8), -3.0),
    }


async def full_session(base_url: str) -> list[str]:
    """Every SDK call once, plus refused credentials; the texts it produced to search."""
    texts: list[str] = []
    config = config_for(base_url)
    texts.append(repr(config))
    client = await AsyncArcticRLClient.connect(config)
    try:
        texts += [repr(client), repr(client.service)]
        texts.append(str(await client.fwd_bwd(tensors(), processing=PROCESSING)))
        texts.append(str(await client.fwd_no_grad(tensors(), reference_model=True)))
        texts.append(str(await client.step(learning_rate=1e-3)))
        texts.append(str(await client.generate(["hello"], {"max_tokens": 3})))
        texts.append(str(await client.log_probs(["hello"], top_k=2)))
        texts.append(str(await client.sync_weights()))
        saved = await client.save_checkpoint("ckpt-1")  # the server names it
        texts.append(str(saved))
        texts.append(str(await client.load_checkpoint(saved["checkpoint_id"])))
        texts.append(str(await client.list_checkpoints()))
        await client.delete_checkpoint(saved["checkpoint_id"])
        for failing in (client.load_checkpoint("missing"), client.delete_checkpoint("missing")):
            with pytest.raises(ArcticRLError) as caught:
                await failing
            texts += [str(caught.value), repr(caught.value), repr(caught.value.__dict__)]
    finally:
        await client.shutdown()
    # The token is sent but refused: the error must not quote it back.
    with httpx.Client(base_url=base_url, timeout=10) as raw:
        token = config.cortex.read_token().get_secret_value()
        for headers in (
            {"Authorization": f"Bearer {token}", TOKEN_TYPE_HEADER: token},
            {"Authorization": f"Basic {token}"},
            {"Authorization": f"Bearer {token}x", TOKEN_TYPE_HEADER: "PROGRAMMATIC_ACCESS_TOKEN"},
        ):
            texts.append(raw.get("/capacity", headers=headers).text)
    return texts


async def refused_session(base_url: str) -> list[str]:
    """Our token sent to a service that rejects it: the typed error must not quote it."""
    texts = []
    with pytest.raises(AuthenticationError) as caught:
        await AsyncArcticRLClient.connect(config_for(base_url, max_retries=1))
    texts += [str(caught.value), repr(caught.value), repr(caught.value.__dict__)]
    return texts


def legacy_session(base_url: str, *, refused: bool) -> list[str]:
    """The legacy factory (what SkyRL and verl call): its repr, or its refusal."""
    if refused:
        with pytest.raises(AuthenticationError) as caught:
            create_arctic_rl_client(config_for(base_url, max_retries=1))
        return [str(caught.value), repr(caught.value)]
    shim = create_arctic_rl_client(config_for(base_url))
    try:
        return [repr(shim), repr(shim.reconnect_config())]
    finally:
        shim.shutdown()


def assert_clean(token: str, texts: list[str]) -> None:
    """Neither the token nor a recognisable slice of it appears in any text."""
    for text in texts:
        assert token not in text
        assert token[4:20] not in text


def test_token_not_in_logs_reprs_or_errors(
    live_mock_factory: Any,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In process: client and mock log into the same captured handlers at DEBUG."""
    token = secret()
    monkeypatch.setenv(PAT_ENV, token)
    caplog.set_level(logging.DEBUG)
    # The session makes every SDK call, the proposals' too: the mocks serve the full contract.
    mock: LiveMock = live_mock_factory("canned", token=token, service="proposed")
    other: LiveMock = live_mock_factory(
        "canned", token=secret(), service="proposed"
    )  # rejects our token
    texts = asyncio.run(full_session(mock.base_url))
    texts += asyncio.run(refused_session(other.base_url))
    texts += legacy_session(mock.base_url, refused=False)
    texts += legacy_session(other.base_url, refused=True)
    out, err = capfd.readouterr()
    records = [f"{r.name} {r.levelname} {r.getMessage()} {r.args!r}" for r in caplog.records]
    assert len(records) > 20, "the session should have logged something to search"
    assert_clean(token, [caplog.text, out, err, *records, *texts])


def test_token_not_in_a_subprocess_servers_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's whole debug-level output, after a full session against it."""
    token = secret()
    monkeypatch.setenv(PAT_ENV, token)
    # The access log on, every SDK call served (the demo's mock logs at warning).
    server = MockProcess(tmp_path / "state", token=token, service="proposed", log_level="debug")
    with server:
        texts = asyncio.run(full_session(server.base_url))
    output = server.log_file.read_text(errors="replace")
    assert "mock Cortex GS" in output and "/forward-backward" in output  # it did log
    assert_clean(token, [output, *texts])
