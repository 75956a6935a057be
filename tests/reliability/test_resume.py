"""Resume through the SDK: `save_checkpoint(folder)`, `load_checkpoint(folder)` and
`delete_checkpoint(folder)` on real HTTP against the mock's reference backend (a tiny
LM that really trains), driven as the frameworks drive the client."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from arctic_rl import (
    ArcticRLClientConfig,
    AsyncArcticRLClient,
    CheckpointIdentityError,
    CheckpointMismatchError,
    create_arctic_rl_client,
)
from arctic_rl._resume import IDENTITY_FILE
from devtools.batches import train_tensors

PAT_ENV = "ARCTIC_RESUME_TEST_PAT"
PROCESSING = {"post": ["logprobs"], "loss_fn": "verl_grpo", "config": {}}


def _config(mock: Any, **fields: Any) -> ArcticRLClientConfig:
    cortex = {"base_url": mock.base_url, "pat_env": PAT_ENV, "long_poll_s": 2, "progress": False}
    return ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        sampling_gpus=1,
        cortex=cortex,
        **fields,
    )


@pytest.fixture
def reference(live_mock_factory: Any, mock_service: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The reference mock serving the proposals: the steps use ``verl_grpo``."""
    mock = live_mock_factory("reference", service=mock_service)
    monkeypatch.setenv(PAT_ENV, mock.token)
    return mock


async def _train_step(client: AsyncArcticRLClient) -> dict[str, Any]:
    """One forward-backward and step; the figures that must repeat on a resume."""
    forward = await client.fwd_bwd(train_tensors(), processing=PROCESSING)
    step = await client.step()
    return {"loss": forward["loss"], "metrics": step["metrics"], "steps": step["global_steps"]}


async def _listed(client: AsyncArcticRLClient, job_id: str) -> list[str]:
    return [c.to_dict()["checkpoint_id"] for c in await client.service.list_checkpoints(job_id)]


def _identity(folder: Path) -> dict[str, Any]:
    return json.loads((folder / IDENTITY_FILE).read_text())


def _rewrite(folder: Path, **changes: Any) -> None:
    (folder / IDENTITY_FILE).write_text(json.dumps({**_identity(folder), **changes}))


async def test_save_records_the_identity_only_once_the_service_saved(
    live_mock_factory: Any, mock_service: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    mock = live_mock_factory("reference", service=mock_service, request_latency_s=0.5)
    monkeypatch.setenv(PAT_ENV, mock.token)
    folder = tmp_path / "global_step_3" / "actor"
    store = sqlite3.connect(f"file:{mock.state_dir / 'mock.sqlite3'}?mode=ro", uri=True)
    async with await AsyncArcticRLClient.connect(_config(mock)) as client:
        saving = asyncio.ensure_future(client.save_checkpoint(folder, global_step=3))
        deadline = time.monotonic() + 60
        query = "SELECT status FROM requests WHERE kind = 'save_checkpoint'"
        while store.execute(query).fetchone() != ("running",):
            assert time.monotonic() < deadline and not saving.done()
            await asyncio.sleep(0.01)
        # The service is saving: nothing names the checkpoint yet.
        assert not (folder / IDENTITY_FILE).exists()
        saved = await saving
        identity = _identity(folder)
        assert identity["checkpoint_id"] in await _listed(client, client.job_id)
        assert identity == {
            "job_id": client.job_id,
            "checkpoint_id": saved["checkpoint_id"],
            "global_step": 3,
            "service_step": 0,
            "model_name": "tiny-byte-lm",
            "base_url": mock.base_url,
            "format": 1,
        }
        assert sorted(p.name for p in folder.iterdir()) == [IDENTITY_FILE]  # no temp left
    store.close()
    assert mock.token not in (folder / IDENTITY_FILE).read_text()


async def test_load_into_the_running_job_repeats_the_steps_after_the_save(
    reference: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "global_step_1"
    async with await AsyncArcticRLClient.connect(_config(reference)) as client:
        await _train_step(client)
        await client.save_checkpoint(folder, global_step=1)
        after_save = [await _train_step(client) for _ in range(2)]
        loaded = await client.load_checkpoint(folder)
        assert loaded == {
            "global_step": 1,
            "service_step": 1,
            "job_id": client.job_id,
            "checkpoint_id": _identity(folder)["checkpoint_id"],
        }
        again = [await _train_step(client) for _ in range(2)]
    assert [s["steps"] for s in again] == [2, 3]  # carries on from the checkpoint's step
    assert again == after_save


async def test_load_after_the_job_is_gone_restores_into_a_new_or_running_job(
    reference: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "global_step_2"
    first = await AsyncArcticRLClient.connect(_config(reference))
    for _ in range(2):
        await _train_step(first)
    await first.save_checkpoint(folder, global_step=2)
    expected = await _train_step(first)
    await first.shutdown()  # cancels the job the checkpoint belongs to
    assert await first.state() == "cancelled"

    # A client not started yet: a new job made from the checkpoint.
    fresh = AsyncArcticRLClient(_config(reference))
    loaded = await fresh.load_checkpoint(folder)
    assert fresh.owns_job and fresh.job_id not in (None, first.job_id)
    assert (loaded["global_step"], loaded["service_step"], loaded["job_id"]) == (
        2,
        2,
        first.job_id,
    )
    assert await _train_step(fresh) == expected
    await fresh.shutdown()

    # The legacy client (its job made at creation): loads the other job's checkpoint.
    legacy = create_arctic_rl_client(_config(reference))
    assert (await legacy.load_checkpoint(str(folder)))["service_step"] == 2
    aio = legacy.client.aio
    assert await _train_step(aio) == expected
    legacy.shutdown()


async def test_a_folder_without_identity_or_from_another_model_is_refused(
    reference: Any, tmp_path: Path
) -> None:
    saved = tmp_path / "global_step_1"
    async with await AsyncArcticRLClient.connect(_config(reference)) as client:
        await _train_step(client)
        with pytest.raises(CheckpointIdentityError, match="no Cortex checkpoint identity"):
            await client.load_checkpoint(tmp_path / "global_step_9")
        await client.save_checkpoint(saved, global_step=1)
        _rewrite(saved, model_name="Qwen/Qwen3-0.6B")
        with pytest.raises(CheckpointIdentityError, match=r"Qwen/Qwen3-0\.6B"):
            await client.load_checkpoint(saved)
        (saved / IDENTITY_FILE).write_text("{not json")
        with pytest.raises(CheckpointIdentityError, match="unreadable"):
            await client.load_checkpoint(saved)
        # Nothing was reset: the job trains on from its own step.
        assert (await _train_step(client))["steps"] == 2
    fresh = AsyncArcticRLClient(_config(reference))
    with pytest.raises(CheckpointIdentityError):
        await fresh.load_checkpoint(tmp_path / "global_step_9")
    assert fresh.job_id is None  # no job was created for a folder naming none
    await fresh.aclose()


async def test_a_service_step_other_than_the_recorded_one_is_an_error(
    reference: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "global_step_1"
    async with await AsyncArcticRLClient.connect(_config(reference)) as client:
        await _train_step(client)
        await client.save_checkpoint(folder, global_step=1)
        _rewrite(folder, service_step=5)
        with pytest.raises(CheckpointMismatchError, match="records service step 5"):
            await client.load_checkpoint(folder)


async def test_retention_deletes_the_service_checkpoint(reference: Any, tmp_path: Path) -> None:
    legacy = create_arctic_rl_client(_config(reference))
    aio = legacy.client.aio
    folders = [tmp_path / f"global_step_{n}" / "actor" for n in (1, 2)]
    for n, folder in enumerate(folders, 1):
        await _train_step(aio)
        await legacy.save_checkpoint(str(folder), global_step=n)
    ids = [_identity(f)["checkpoint_id"] for f in folders]
    assert await _listed(aio, legacy.job_id) == ids
    await legacy.delete_checkpoint(str(folders[0]))
    assert await _listed(aio, legacy.job_id) == ids[1:]
    await legacy.delete_checkpoint(str(folders[0]))  # already gone: still fine
    with pytest.raises(CheckpointIdentityError):
        await legacy.delete_checkpoint(str(tmp_path / "never_saved"))
    legacy.shutdown()


def test_a_checkpoint_id_still_names_a_service_checkpoint(reference: Any) -> None:
    legacy = create_arctic_rl_client(_config(reference))

    def run(coro: Any) -> Any:  # SkyRL's way: a fresh loop per call, never closed
        return asyncio.new_event_loop().run_until_complete(coro)

    saved = run(legacy.save_checkpoint())
    assert (
        run(legacy.load_checkpoint(saved["checkpoint_id"]))["checkpoint_id"]
        == saved["checkpoint_id"]
    )
    run(legacy.delete_checkpoint(saved["checkpoint_id"]))
    assert run(_listed(legacy.client.aio, legacy.job_id)) == []
    legacy.shutdown()


async def test_attaching_a_fresh_run_to_an_existing_job_says_so_once(
    reference: Any, caplog: pytest.LogCaptureFixture
) -> None:
    owner = await AsyncArcticRLClient.connect(_config(reference))
    named = _config(reference)
    named.cortex.job_id = owner.job_id
    with caplog.at_level(logging.WARNING, logger="arctic_rl"):
        attached = await AsyncArcticRLClient.connect(named)
        legacy = create_arctic_rl_client(_config(reference))
        again = create_arctic_rl_client(legacy.reconnect_config())  # the same run: silent
    warned = [r.getMessage() for r in caplog.records if "keeps the weights" in r.getMessage()]
    assert warned == [
        f"arctic_rl: attaching to existing Cortex job {owner.job_id}, which keeps the weights "
        "its last run left (Cortex has no reset): load a checkpoint to resume, or leave "
        "cortex.job_id unset to start fresh"
    ]
    assert again.job_id == legacy.job_id
    await attached.shutdown()
    legacy.shutdown()
    await owner.shutdown()
