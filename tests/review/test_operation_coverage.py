"""Every contract operation has its mock handler, client call, shim entry and a test.

The operations are the contract's (``cortex_gs_contract.OPERATIONS``, generated from
``openapi/cortex_gs.yaml``). Where one of the three is missing on purpose, the tables
below say why; a new operation fails here until each part exists or has its reason
(docs/contributing.md has the checklist). That a test exercises each one is read from
what was sent: the last test drives every operation against the live mock, through the
SDK where it calls the operation and by hand where it does not, and a recording
transport under the client keeps each request and its answer; every operation must have
gone out and come back with one of its documented successes.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from cortex_gs_client.models import OperationRequest
from cortex_gs_contract import OPERATIONS, Operation

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient, LegacyCortexClient, wire
from arctic_rl._cortex import CortexService
from arctic_rl._options import ServiceOptions
from devtools.batches import train_tensors
from devtools.live_mock import LiveMock, request_chunks

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
    "get_capabilities": "the client asks it once to learn which service it talks to; "
    "the frameworks never see it",
    "abandon_chunk_group": "the client abandons the uploads its cut calls left when a job has "
    "no room for another; the frameworks never see chunk groups",
}
"""Operations no legacy method reaches directly, and why."""

PAT_ENV = "ARCTIC_RL_COVERAGE_PAT"


@pytest.fixture
def mock_service() -> str:
    """Every operation is driven, the proposed ones too: the mock serves the proposals."""
    return "proposed"


class Recording(httpx.AsyncBaseTransport):
    """Real HTTP; each request's (method, path) and its answer's status are kept in ``log``
    (shared, so that the SDK's client and a hand-made one record into one list)."""

    def __init__(self, log: list[tuple[str, str, int]]) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.log = log

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        self.log.append((request.method, request.url.path, response.status_code))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def _route_pattern(operation: Operation) -> re.Pattern[str]:
    """The operation's path under any prefix; ``{param}`` is one path segment."""
    literal = [re.escape(part) for part in re.split(r"\{[^}]+\}", operation.path)]
    return re.compile(".*-training" + "[^/:]+".join(literal) + "$")


def _operation_of(method: str, path: str) -> str | None:
    """The contract operation a request was, the most literal route first (``/capacity``
    before ``/{job_id}``)."""
    by_literal = sorted(OPERATIONS.values(), key=lambda op: -len(re.sub(r"\{[^}]+\}", "", op.path)))
    for operation in by_literal:
        if operation.method == method and _route_pattern(operation).match(path):
            return operation.operation_id
    return None


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


def test_the_tables_name_only_contract_operations() -> None:
    named = {*NO_CLIENT_CALL, *SHIM_ENTRY, *NO_SHIM_ENTRY}
    assert named <= set(OPERATIONS)
    assert not set(SHIM_ENTRY) & set(NO_SHIM_ENTRY)


@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_the_mock_handles_it(operation_id: str) -> None:
    area = importlib.import_module(f"arctic_rl_mock.routers.{OPERATIONS[operation_id].tag}")
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


async def _drive_every_operation(live: LiveMock, log: list[tuple[str, str, int]]) -> None:
    """Each operation once, for real: the SDK's calls, then by hand what it never calls."""
    options = ServiceOptions(long_poll_s=2.0)
    service = CortexService(live.base_url, live.token, options, httpx_transport=Recording(log))
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        sampling_gpus=1,
        cortex={"base_url": live.base_url, "pat_env": PAT_ENV},
    )
    client = await AsyncArcticRLClient.connect(config, service=service)
    try:
        job_id = str(client.job_id)
        await client.fwd_bwd(train_tensors(), processing={"loss_fn": "grpo", "config": {}})
        await client.fwd_no_grad({"input_ids": train_tensors()["input_ids"]})
        await client.step()
        saved = await client.save_checkpoint()
        await client.load_checkpoint(saved["checkpoint_id"])
        await client.generate(["hi"], {"max_tokens": 2})
        await client.log_probs(["hi"], ["yo"])
        await client.sync_weights()
        await client.get_job()
        await service.list_jobs()
        await service.get_capacity()
        reset = {"operation_type": "reset-prefix-cache", "payload": {}}
        await service.run_operation(job_id, OperationRequest.from_dict(reset))
        await _by_hand(live, log, job_id, saved["checkpoint_id"])
        await client.list_checkpoints()
        await client.delete_checkpoint(saved["checkpoint_id"])
    finally:
        await client.shutdown(cancel=True)


async def _by_hand(
    live: LiveMock, log: list[tuple[str, str, int]], job_id: str, checkpoint_id: str
) -> None:
    """The operations of ``NO_CLIENT_CALL``, through the same kind of recording transport."""
    async with httpx.AsyncClient(
        transport=Recording(log), base_url=live.base_url, headers=live.headers()
    ) as http:
        await http.get(f"/{job_id}/experiment-run")
        await http.post(f"/{job_id}/checkpoints/{checkpoint_id}:export")
        body = json.dumps({"prompts": ["hi"], "sampling_params": {"max_tokens": 1}})
        accepted = await http.post(
            f"/{job_id}/generate-stream",
            content=body,
            headers={"Content-Type": "application/octet-stream"},
        )
        url = f"/{job_id}/requests/{accepted.json()['request_id']}"
        events: list[dict[str, Any]] = []
        for _ in range(30):  # long polls of up to 2 s each: a minute at most
            events += (await http.get(url, params={"wait_s": 2})).json()["events"]
            if events and events[-1]["type"] == "done":
                break
        assert events[-1] == {"type": "done", "completed": 1, "failed": 0}
        # An upload cut after its first chunk, abandoned (the SDK does when a job is full).
        cut = {"kwargs": {}}
        first = request_chunks(cut, payload_bytes=len(wire.dumps(cut)) // 2 + 1, group="cut")[0]
        octets = {"Content-Type": "application/octet-stream"}
        await http.post(f"/{job_id}/forward-backward", content=first, headers=octets)
        await http.delete(f"/{job_id}/chunk-groups/cut")


def test_every_operation_is_sent_and_answered(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    log: list[tuple[str, str, int]] = []
    asyncio.run(_drive_every_operation(live_mock, log))
    answered: dict[str, set[int]] = {}
    for method, path, status in log:
        operation_id = _operation_of(method, path)
        assert operation_id is not None, f"{method} {path} is no contract operation"
        answered.setdefault(operation_id, set()).add(status)
    unanswered = {
        operation_id: sorted(answered.get(operation_id, ()))
        for operation_id, operation in OPERATIONS.items()
        if not answered.get(operation_id, set()) & {r.status for r in operation.success}
    }
    assert unanswered == {}, "sent without a documented success (statuses seen)"
