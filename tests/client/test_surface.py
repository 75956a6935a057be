"""Package surface: lazy imports, typed errors, response normalisation, on-prem message."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import warnings

import pytest
import torch

import arctic_rl
from arctic_rl import (
    ArcticRLClientConfig,
    BackendNotAvailableError,
    ChunkGroupError,
    JobNotRunningError,
    RateLimitError,
    ServiceUnavailableError,
    create_arctic_rl_client,
)
from arctic_rl._error_answers import error_from_response
from arctic_rl._errors import InvalidRequestError
from arctic_rl._requests import forward_request
from arctic_rl._results import Done, normalize_forward, normalize_generate, normalize_step
from arctic_rl._tracking import normalize_state


def test_import_is_lazy_in_a_fresh_interpreter():
    code = (
        "import sys, arctic_rl\n"
        "heavy = [m for m in ('torch', 'fastapi', 'uvicorn', 'httpx', 'cortex_gs_client')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "arctic_rl.ArcticRLClientConfig; arctic_rl.create_arctic_rl_client\n"
        "assert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# What a training script's start-up must not pay for: building a client (config checked,
# token read) needs neither the HTTP stack, nor yaml (no file was read), nor the generated
# models and poll schedule, which load with the first call.
NOT_AT_START = (
    "torch",
    "numpy",
    "fastapi",
    "httpx",
    "httpcore",
    "yaml",
    "attrs",
    "cortex_gs_models",
    "cortex_gs_client.client",
    "cortex_gs_client.types",
    "arctic_rl._http",
    "arctic_rl._polling",
    "arctic_rl._tracking",
)


def test_first_client_loads_no_heavy_module_in_a_fresh_interpreter():
    code = (
        "import sys, arctic_rl\n"
        "config = arctic_rl.ArcticRLClientConfig(backend='cortex', model_name='m',\n"
        "    cortex={'base_url': 'http://127.0.0.1:9/api/v2/databases/D/schemas/S/'\n"
        "            'cortex-training', 'pat_env': 'SURFACE_TEST_PAT', 'progress': False})\n"
        "client = arctic_rl.ArcticRLClient(config, start=False)\n"
        f"loaded = [m for m in {NOT_AT_START!r} if m in sys.modules]\n"
        "client.shutdown()\n"
        "print(','.join(loaded))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "SURFACE_TEST_PAT": "surface-test-token"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == ""


def test_public_names_resolve():
    for name in arctic_rl.__all__:
        assert getattr(arctic_rl, name) is not None
    with pytest.raises(AttributeError):
        arctic_rl.no_such_thing  # noqa: B018


@pytest.mark.parametrize(
    ("status", "body", "cls"),
    [
        (409, {"code": "chunk_group_restart_required", "message": "m"}, ChunkGroupError),
        (409, {"code": "job_not_running", "message": "m"}, JobNotRunningError),
        (429, {"code": "rate_limited", "message": "m"}, RateLimitError),
        (503, {"code": "unavailable", "message": "m"}, ServiceUnavailableError),
        (422, {"detail": [{"loc": ["body", "x"], "msg": "bad", "type": "t"}]}, InvalidRequestError),
    ],
)
def test_errors_are_typed_and_carry_request_id(status, body, cls):
    err = error_from_response(status, body, {"x-snowflake-request-id": "rid-1", "retry-after": "2"})
    assert isinstance(err, cls) and err.status == status and err.request_id == "rid-1"
    assert "rid-1" in str(err)
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is cls and again.request_id == "rid-1"
    if cls is RateLimitError:
        assert err.retry_after == 2.0


@pytest.mark.parametrize(
    ("raw", "state"),
    [
        ("JOB_STATE_RUNNING", "running"),
        ("REQUEST_STATE_DONE", "completed"),
        ("succeeded", "completed"),
        ("canceled", "cancelled"),
        ("terminated", "terminated"),
        (None, "unknown"),
    ],
)
def test_state_names_normalised(raw, state):
    assert normalize_state(raw) == state


def test_forward_normalisation_aliases_and_tensors():
    out = normalize_forward(
        {
            "avg_loss": 0.5,
            "metrics": {"grad_norm": 1.5},
            "post_process_outputs": {"logprobs": [[0.1]]},
        }
    )
    assert out["loss"] == out["avg_loss"] == out["metrics"]["loss"] == 0.5
    assert out["grad_norm"] == 1.5
    assert isinstance(out["batch"]["logprobs"], torch.Tensor)
    assert out["batch"]["log_probs"] is out["batch"]["logprobs"]
    ngrad = normalize_forward(
        {"model_outputs": {"logprobs": torch.zeros(1, 2), "entropy": [[1.0, 2.0]]}}
    )
    assert isinstance(ngrad["batch"]["entropy"], torch.Tensor) and ngrad["metrics"] == {}


def test_step_normalisation_leaves_missing_metrics_out_and_says_so():
    missing: list[str] = []
    out = normalize_step({"global_steps": 1, "last_lr": 1e-6}, warn=missing.append)
    assert out["metrics"] == {"last_lr": 1e-6} and missing == ["grad_norm"]
    out = normalize_step(
        {"last_lr": [1e-6], "metrics": {"grad_norm": [1.0, 2.0], "kl": None}}, warn=missing.append
    )
    assert out["metrics"] == {"last_lr": [1e-6], "grad_norm": [1.0, 2.0]}
    assert out["grad_norm"] == [1.0, 2.0] and missing == ["grad_norm", "kl"]


def test_forward_metrics_never_hold_none():
    missing: list[str] = []
    out = normalize_forward(
        {"loss": 0.5, "metrics": {"kl_loss": None, "pg_loss": 0.1}}, missing.append
    )
    assert out["metrics"] == {"pg_loss": 0.1, "loss": 0.5} and missing == ["kl_loss"]


def test_legacy_batches_are_shaped_into_one_request():
    tensors = {"input_ids": torch.ones(1, 2, dtype=torch.long)}
    body = forward_request(
        {"batch": tensors, "meta": {"a": 1}, "context": {"c": 2}},
        legacy={
            "post_processors": ["compute_entropy_and_logprobs"],
            "loss_fn": "verl_grpo",
            "b": 3,
        },
    )
    assert body == {
        "args": [],
        "kwargs": tensors,
        "context": {"c": 2},
        "meta": {"a": 1, "b": 3},
        "processing": {"post": ["compute_entropy_and_logprobs"], "loss_fn": "verl_grpo"},
    }


def test_keywords_given_apart_merge_into_the_batch_they_come_with():
    tensors = {"input_ids": torch.ones(1, 2, dtype=torch.long)}
    body = forward_request(
        {"batch": tensors, "processing": {"post": ["a"], "loss_fn": "x"}},
        {"m": 1},
        {"loss_fn": "y"},
        legacy={"meta": {"n": 2}, "context": {"c": 3}, "post_processors": "b"},
    )
    assert body["meta"] == {"m": 1, "n": 2}
    assert body["processing"] == {"post": ["b"], "loss_fn": "y"}
    assert body["context"] == {"c": 3}


def test_cortex_form_batches_pass_through_untouched():
    cortex_form = {
        "args": [],
        "kwargs": {"input_ids": torch.ones(1, 2, dtype=torch.long)},
        "context": {"loss_mask": torch.ones(1, 2)},
        "processing": {"post": ["compute_logprobs"]},
    }
    body = forward_request(cortex_form, legacy={})
    assert body == cortex_form and body["context"] is cortex_form["context"]
    assert body is not cortex_form  # a copy: the client may add reference_model to it


def test_generate_normalisation_returns_a_list():
    out = normalize_generate(
        {"results": [{"text": "a", "token_ids": torch.tensor([1, 2]), "finish_reason": "stop"}]}
    )
    assert out == [{"text": "a", "token_ids": [1, 2], "finish_reason": "stop"}]


async def test_done_is_plain_and_awaitable():
    assert Done(3).value == 3
    assert await Done(3) == 3


def test_on_prem_backend_says_what_to_install(monkeypatch):
    """Unselected, backend "local" goes to the published factory; here its rl extras are
    missing, so the error names the missing packages and both ways out."""
    monkeypatch.delenv("ARCTIC_RL_BACKEND", raising=False)
    for backend in ("local", "dss-platform"):
        with pytest.raises(BackendNotAvailableError, match="rl extras") as info:
            create_arctic_rl_client(ArcticRLClientConfig(model_name="m", backend=backend), None)
        assert "ARCTIC_RL_BACKEND=cortex" in str(info.value) and "ray" in str(info.value)
        assert isinstance(info.value, ImportError)
        assert info.value.__cause__ is None


def test_step_with_grad_norm_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        normalize_step({"last_lr": 1.0, "metrics": {"grad_norm": 0.0}})


def test_the_blocking_twin_has_every_async_method_with_its_signature():
    import inspect

    from arctic_rl import ArcticRLClient, AsyncArcticRLClient

    own = {"connect", "aclose", "shutdown"}  # the constructor connects; shutdown stops the loop
    coroutines = {
        name: method
        for name, method in vars(AsyncArcticRLClient).items()
        if inspect.iscoroutinefunction(method) and not name.startswith("_")
    }
    assert set(coroutines) - own - set(vars(ArcticRLClient)) == set()  # none forgotten
    for name, method in coroutines.items():
        if name in own:
            continue
        full = inspect.signature(method)
        expected = full.replace(parameters=list(full.parameters.values())[1:])
        assert (
            inspect.signature(getattr(ArcticRLClient, name).__get__(object.__new__(ArcticRLClient)))
            == expected
        ), name
        assert getattr(ArcticRLClient, name).__doc__ == method.__doc__
