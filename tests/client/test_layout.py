"""Per-token layouts by convention: PPO invariants at an on-policy first step, per path.

At the first step the policy, the old policy and the reference are the same model, so a
batch whose old and reference log-probs line up with the tokens the loss scores gives
`ppo_kl`, `pg_clipfrac_lower` and `kl_loss` exactly 0 and a ratio of 1 (the policy loss is
then minus the mean advantage). Each batch is built as its framework builds it and sent
to the reference mock over HTTP by a client built the way that framework's path builds it:

- SkyRL (`use_cortex`, then `arctic_platform.rl.create_arctic_rl_client` with
  backend "local", and the Ray task's client from the pickled `reconnect_config()`): the
  `[B, T]` log-prob answer of `fwd_no_grad` goes back as `old_log_probs` (SkyRL's
  `trainer.py`), here also as a clone, detached, moved, made contiguous, row-sliced into
  mini-batches and concatenated from two answers; advantages and masks are `[B, R]`
  left-padded to `[B, T]`.
- verl (the plugin path's convention; the Arctic adapter and `no_padding_2_padding`): old
  and reference log-probs are the answer's values that score the response tokens,
  `[B, R]`, left-padded to `[B, T]` like the advantages and masks (or not padded);
  `rollout_is_weights` `[B, R]` sits in `meta`.
Outside both paths the legacy client refuses a `[B, T]` log-prob input (either
framework's layout); the mock refuses (422) per-token inputs that cannot line up with
`input_ids` / `responses`, sent by the native client, which converts nothing.

A one-token shift must show in the metrics; a layout that cannot be known is refused.
"""

from __future__ import annotations

import asyncio
import importlib
import pickle
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch

import arctic_rl
from arctic_rl import CortexConfig, _shim, create_arctic_rl_client
from arctic_rl._layout import answer_as_input
from arctic_rl.integrations.skyrl import use_cortex

from .conftest import PAT_ENV
from .layout_support import (
    Build,
    Rows,
    advantages,
    answers,
    assert_off_policy,
    assert_on_policy,
    cloned_answers,
    contiguous_copy,
    cortex_settings,
    dense_rows,
    framework_config,
    narrower,
    native_metrics,
    response_scores,
    row_slice,
    skyrl_batch,
    train_metrics,
    verl_batch,
)

PUBLISHED = ("arctic_platform.rl", "arctic_platform.rl.ray_server")


@pytest.fixture
def reference_mock(live_mock_factory: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    mock = live_mock_factory("reference", service="proposed")  # the contract's layout
    monkeypatch.setenv(PAT_ENV, mock.token)
    return mock


@pytest.fixture
def skyrl(reference_mock: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The client SkyRL's driver gets: `use_cortex`, then `arctic_platform.rl`'s factory."""
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    for name in PUBLISHED:
        monkeypatch.delitem(sys.modules, name, raising=False)
    use_cortex(CortexConfig(**cortex_settings(reference_mock)))
    factory = importlib.import_module("arctic_platform.rl").create_arctic_rl_client
    client = factory(framework_config())
    yield client
    client.shutdown()
    for name in PUBLISHED:
        sys.modules.pop(name, None)


@pytest.fixture
def ray_task(skyrl: Any) -> Iterator[Any]:
    """The client of SkyRL's Ray task: a fresh process (no routing) builds it from the
    pickled reconnect config of the driver's client."""
    handed_over = pickle.dumps(skyrl.reconnect_config())
    _shim.route_on_prem_to_cortex(False)
    client = create_arctic_rl_client(pickle.loads(handed_over))
    yield client
    client.shutdown()


@pytest.fixture
def verl(reference_mock: Any) -> Iterator[Any]:
    """The client verl's plugin path builds (`CortexBackend.from_config` routes so)."""
    _shim.route_on_prem_to_cortex(CortexConfig(**cortex_settings(reference_mock)), layout="verl")
    client = create_arctic_rl_client(framework_config())
    yield client
    client.shutdown()


@pytest.fixture
def undeclared(reference_mock: Any) -> Iterator[Any]:
    """The legacy factory called outside both frameworks' paths."""
    client = create_arctic_rl_client(
        framework_config(backend="cortex", cortex=cortex_settings(reference_mock))
    )
    yield client
    client.shutdown()


# -- SkyRL: every [B, T] log-prob input is in the roll layout, whatever carries it -------

COPIES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "echoed": lambda t: t,
    "clone": torch.Tensor.clone,
    "detach": torch.Tensor.detach,
    "view": lambda t: t[:],
    "to-float64": lambda t: t.to(torch.float64),
    "to-copy": lambda t: t.to("cpu", copy=True),
    "contiguous": contiguous_copy,
}


@pytest.mark.parametrize("copy", COPIES.values(), ids=COPIES.keys())
def test_skyrl_answer_in_any_object_is_on_policy(skyrl: Any, copy: Callable[..., Any]) -> None:
    rows = dense_rows()
    metrics = train_metrics(skyrl, lambda r, o, f: skyrl_batch(r, copy(o), copy(f)), rows)
    assert_on_policy(metrics, rows)


def test_skyrl_row_sliced_mini_batches_are_on_policy(skyrl: Any) -> None:
    rows = dense_rows()

    async def run() -> list[tuple[Rows, dict[str, float]]]:
        old, ref = await answers(skyrl, rows)
        done = []
        for start, stop in ((0, 2), (2, 3)):  # SkyRL's mini-batches: rows of one answer
            part = row_slice(rows, start, stop)
            batch = skyrl_batch(part, old[start:stop], ref[start:stop])
            done.append((part, (await skyrl.fwd_bwd(batch))["metrics"]))
        return done

    for part, metrics in asyncio.run(run()):
        assert_on_policy(metrics, part)


def test_skyrl_concatenated_answers_are_on_policy(skyrl: Any) -> None:
    rows = dense_rows()

    async def run() -> dict[str, float]:
        halves = [await answers(skyrl, row_slice(rows, a, b)) for a, b in ((0, 1), (1, 3))]
        old = torch.cat([h[0] for h in halves])
        ref = torch.cat([h[1] for h in halves])
        return (await skyrl.fwd_bwd(skyrl_batch(rows, old, ref)))["metrics"]

    assert_on_policy(asyncio.run(run()), rows)


def test_skyrl_ray_task_reads_the_same_layout(ray_task: Any) -> None:
    rows = dense_rows()
    assert_on_policy(train_metrics(ray_task, cloned_answers, rows), rows)


def test_skyrl_one_token_shift_shows(skyrl: Any) -> None:
    # Already token-aligned, it is read as SkyRL's roll layout and lands one token off.
    rows = dense_rows()
    shifted: Build = lambda r, o, f: skyrl_batch(r, answer_as_input(o), answer_as_input(f))  # noqa: E731
    assert_off_policy(train_metrics(skyrl, shifted, rows), rows)


def test_skyrl_narrower_log_probs_are_refused_naming_the_tensor(skyrl: Any) -> None:
    rows = dense_rows()
    width = rows["input_ids"].shape[1]

    async def run() -> None:
        old, ref = await answers(skyrl, rows)
        batch = skyrl_batch(rows, old, ref)
        batch["batch"]["ref_log_prob"] = ref[:, :-1]  # T - 1 columns: not what SkyRL sends
        await skyrl.fwd_bwd(batch)

    with pytest.raises(arctic_rl.TokenLayoutError) as refused:
        asyncio.run(run())
    message = str(refused.value)
    assert message.startswith(f"ref_log_prob [3, {width - 1}]"), message
    assert "SkyRL's path" in message and "roll" in message and "token-aligned" in message


# -- verl: response-aligned, left-padded or not: the contract's layout, as sent ----------


@pytest.mark.parametrize("padded", [True, False], ids=["left-padded", "response-wide"])
def test_verl_response_aligned_inputs_are_on_policy(verl: Any, padded: bool) -> None:
    def build(rows: Rows, old: torch.Tensor, ref: torch.Tensor) -> dict[str, Any]:
        old_r, ref_r = response_scores(old, rows), response_scores(ref, rows)
        return verl_batch(rows, old_r, ref_r, padded=padded)

    rows = dense_rows()
    assert_on_policy(train_metrics(verl, build, rows), rows)


def test_verl_inputs_one_token_off_show_in_the_metrics(verl: Any) -> None:
    def build(rows: Rows, old: torch.Tensor, ref: torch.Tensor) -> dict[str, Any]:
        shifted = response_scores(old, rows, shift=1), response_scores(ref, rows, shift=1)
        return verl_batch(rows, *shifted)

    rows = dense_rows()
    assert_off_policy(train_metrics(verl, build, rows), rows)


# -- outside both paths ---------------------------------------------------------------


def test_undeclared_legacy_client_refuses_a_full_width_answer(undeclared: Any) -> None:
    with pytest.raises(arctic_rl.TokenLayoutError) as refused:
        train_metrics(undeclared, skyrl_batch)
    message = str(refused.value)
    assert message.startswith("old_log_probs [3, "), message
    assert "SkyRL's layout" in message and "verl's" in message

    def advised(rows: Rows, old: torch.Tensor, ref: torch.Tensor) -> dict[str, Any]:
        batch = skyrl_batch(rows, old, ref)  # the answers without their last column
        batch["batch"].update(old_log_probs=old[:, :-1], ref_log_prob=ref[:, :-1])
        return batch

    rows = dense_rows()
    assert_on_policy(train_metrics(undeclared, advised, rows), rows)


# -- the conversion itself --------------------------------------------------------------


SKYRL_TRAINER = "integrations.arctic_rl.trainer"  # what SkyRL's Arctic entrypoint loads
VERL_ADAPTER = "arctic_platform.integrations.verl.adapter"  # what verl's Arctic backend loads


@pytest.fixture
def launched(reference_mock: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Any]]:
    """ARCTIC_RL_BACKEND=cortex alone: no integration routes; the framework modules
    named are loaded in the process (stand-ins) when the framework builds its client."""
    monkeypatch.setenv("ARCTIC_RL_BACKEND", "cortex")
    built: list[Any] = []

    def build(*loaded: str) -> Any:
        for name in loaded:
            monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
        built.append(
            create_arctic_rl_client(framework_config(cortex=cortex_settings(reference_mock)))
        )
        return built[-1]

    yield build
    for client in built:
        client.shutdown()


def test_launcher_path_in_skyrl_reads_skyrl_layout(launched: Callable[..., Any]) -> None:
    rows = dense_rows()
    assert_on_policy(train_metrics(launched(SKYRL_TRAINER), cloned_answers, rows), rows)


def test_launcher_path_with_both_frameworks_loaded_refuses(launched: Callable[..., Any]) -> None:
    client = launched(SKYRL_TRAINER, VERL_ADAPTER)
    with pytest.raises(arctic_rl.TokenLayoutError, match=r"^old_log_probs \["):
        train_metrics(client, cloned_answers)


def test_answer_as_input_moves_each_score_onto_its_token() -> None:
    answer = torch.tensor([[-1.0, -2.0, -3.0, 0.0]])  # scores tokens 1, 2, 3; last wraps
    assert answer_as_input(answer).tolist() == [[0.0, -1.0, -2.0, -3.0]]


# -- the mock refuses per-token inputs that cannot line up (422, before any work) --------


MISALIGNED: dict[str, tuple[str, str, Callable[[Rows, dict[str, Any]], None]]] = {
    "wider-than-input_ids": (
        "kwargs",
        "old_log_probs",
        lambda r, b: b["batch"].update(old_log_probs=torch.zeros(3, r["input_ids"].shape[1] + 1)),
    ),
    "narrower-than-responses": (
        "kwargs",
        "advantages",
        lambda r, b: b["batch"].update(advantages=narrower(advantages(r["response_mask"]))),
    ),
    "fewer-rows": (
        "kwargs",
        "response_mask",
        lambda r, b: b["batch"].update(response_mask=r["response_mask"][:2]),
    ),
    "weights-in-meta-narrower": (
        "meta",
        "rollout_is_weights",
        lambda r, b: b["meta"].update(rollout_is_weights=narrower(b["meta"]["rollout_is_weights"])),
    ),
    "responses-as-wide-as-input_ids": (
        "kwargs",
        "responses",
        lambda r, b: b["batch"].update(responses=r["input_ids"]),
    ),
}


@pytest.mark.parametrize("case", MISALIGNED.values(), ids=MISALIGNED.keys())
def test_mock_refuses_inputs_that_cannot_line_up(
    reference_mock: Any, case: tuple[str, str, Callable[[Rows, dict[str, Any]], None]]
) -> None:
    section, name, spoil = case

    def build(rows: Rows, old: torch.Tensor, ref: torch.Tensor) -> dict[str, Any]:
        batch = verl_batch(rows, response_scores(old, rows), response_scores(ref, rows))
        spoil(rows, batch)
        return batch

    with pytest.raises(arctic_rl.InvalidRequestError) as refused:
        native_metrics(reference_mock, build, dense_rows())
    assert refused.value.status == 422 and refused.value.code == "validation_error"
    (issue,) = refused.value.details or [None]
    assert issue["loc"] == ["body", section, name] and issue["type"] == "token_layout", issue
    assert name in issue["msg"]
