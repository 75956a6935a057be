"""Every contract operation has its mock handler, client call, shim entry and a test.

The operations are the contract's (``cortex_gs_contract.OPERATIONS``, generated from
``openapi/cortex_gs.yaml``). Where one of the four is missing on purpose, the tables
below say why; a new operation fails here until each part exists or has its reason
(docs/contributing.md has the checklist).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest
from cortex_gs_contract import OPERATIONS

from arctic_rl import LegacyCortexClient

ROOT = Path(__file__).resolve().parents[2]

NO_CLIENT_CALL = {
    "get_experiment_run": "it locates execution logs for download; training never reads them",
    "export_checkpoint": "download links for a checkpoint's files: a step after training",
    "generate_stream": "the frameworks read whole completions, which generate answers",
}
"""Operations the SDK does not call, and why."""

SHIM_ENTRY: dict[str, str] = {
    "create_job": "create_arctic_rl_client",
    "cancel_job": "shutdown",
    "forward_backward": "fwd_bwd",
    "forward_no_grad": "fwd_no_grad",
    "step": "step",
    "save_checkpoint": "save_checkpoint",
    "load_checkpoint": "load_checkpoint",
    "generate": "generate",
    "log_probs": "log_probs",
    "sync_weights": "sync_weights",
}
"""The legacy method (or the factory) that reaches each operation."""

NO_SHIM_ENTRY = {
    "list_jobs": "SkyRL and verl hold one job; the SDK client lists jobs",
    "get_capacity": "capacity is for operators and the contract-check kit",
    "get_job": "read by the factory while it waits for the job to run",
    "get_request": "polled by every data-plane call until its result is in",
    "run_operation": "sync_weights falls back to it on a service without the route",
    "list_checkpoints": "the legacy surface names checkpoints, it never lists them",
    "delete_checkpoint": "the legacy surface never deletes; the SDK client does",
    "get_experiment_run": NO_CLIENT_CALL["get_experiment_run"],
    "export_checkpoint": NO_CLIENT_CALL["export_checkpoint"],
    "generate_stream": NO_CLIENT_CALL["generate_stream"],
}
"""Operations no legacy method reaches directly, and why."""

_NOT_BEHAVIOUR_TESTS = ("contract", "review")
"""Test folders that enumerate the contract rather than exercise an operation."""


def _generated_calls() -> set[str]:
    """Operation functions the SDK imports from the generated client (statically)."""
    found: set[str] = set()
    for path in (ROOT / "arctic_rl").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "cortex_gs_client.api."
            ):
                found.update(alias.name for alias in node.names)
    return found


def _behaviour_tests() -> dict[Path, str]:
    tests = ROOT / "tests"
    return {
        path: path.read_text()
        for path in tests.rglob("test_*.py")
        if path.relative_to(tests).parts[0] not in _NOT_BEHAVIOUR_TESTS
    }


def _path_tail(path: str) -> str:
    """The operation's last literal path piece (``:export``, ``experiment-run``)."""
    return re.split(r"[/}]", path)[-1] or path


def test_the_tables_name_only_contract_operations() -> None:
    named = {*NO_CLIENT_CALL, *SHIM_ENTRY, *NO_SHIM_ENTRY}
    assert named <= set(OPERATIONS)
    assert not set(SHIM_ENTRY) & set(NO_SHIM_ENTRY)


@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_the_mock_handles_it(operation_id: str) -> None:
    area = importlib.import_module(f"mock_server.routers.{OPERATIONS[operation_id].tag}")
    assert callable(getattr(area, operation_id, None)), f"no mock handler {operation_id}"


@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_the_client_calls_it_or_says_why_not(operation_id: str) -> None:
    calls = _generated_calls()
    assert (operation_id in calls) != (operation_id in NO_CLIENT_CALL), (
        f"{operation_id}: call it from arctic_rl (a static import of the generated "
        f"operation) or give the reason in NO_CLIENT_CALL, not both"
    )


@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_the_shim_reaches_it_or_says_why_not(operation_id: str) -> None:
    import arctic_rl

    entry = SHIM_ENTRY.get(operation_id)
    if entry is None:
        assert operation_id in NO_SHIM_ENTRY, f"{operation_id}: no shim entry and no reason"
        return
    owner = arctic_rl if entry == "create_arctic_rl_client" else LegacyCortexClient
    assert callable(getattr(owner, entry, None)), f"{operation_id}: {entry} is gone"


@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_a_test_exercises_it(operation_id: str) -> None:
    tail = _path_tail(OPERATIONS[operation_id].path)
    needles = (operation_id, tail) if len(tail) > 8 or tail.startswith(":") else (operation_id,)
    users = [p for p, text in _behaviour_tests().items() if any(n in text for n in needles)]
    assert users, f"no test outside tests/contract and tests/review names {operation_id}"
