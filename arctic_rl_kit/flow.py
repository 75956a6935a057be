"""Full mode: one small job driven by the project's own client, every answer judged.

The client (``AsyncArcticRLClient`` over ``CortexService``) creates a job, waits for it,
runs one chunked forward-backward, a step, a generate and a weight sync; an httpx
transport underneath records every exchange, and each one is then judged against the
contract by schemathesis' checks. The contract's links are followed from what the flow
saw (the created job's id into the routes that take it, each request id into its poll).
With the job running, the safe refusals (DSSST1 frames, chunk groups) run on it, and the
read-only routes are fuzzed with its id. The job is cancelled at the end whatever
happened -- a failed check, an exception, an interrupt.
"""

from __future__ import annotations

import asyncio
import datetime
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from cortex_gs_client.models import OperationRequest

from arctic_rl import (
    ArcticRLClientConfig,
    AsyncArcticRLClient,
    CortexService,
    ServiceOptions,
    wire,
)
from arctic_rl_kit import generated
from arctic_rl_kit.dssst1 import small_batch, today_batch
from arctic_rl_kit.kit import Kit
from arctic_rl_kit.probes import Probes
from arctic_rl_kit.report import Finding

# Small enough that the batch below travels as several chunks (the chunked path).
CHUNK_BYTES = 64 * 1024
JOB_READY_TIMEOUT_S = 1800.0
POLL_TIMEOUT_S = 900.0
FLOW_CHECK = "full_flow"


@dataclass
class Exchange:
    request: httpx.Request
    response: httpx.Response


class RecordingTransport(httpx.AsyncBaseTransport):
    """Passes requests through and keeps each request with its (fully read) answer."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.exchanges: list[Exchange] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()  # the recorded request keeps its body (chunks are small)
        started = time.monotonic()
        response = await self.inner.handle_async_request(request)
        await response.aread()
        # httpx's client sets this when it closes the response; the checks read it.
        response.elapsed = datetime.timedelta(seconds=time.monotonic() - started)
        self.exchanges.append(Exchange(request, response))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def full_flow(kit: Kit, probes: Probes, *, model: str, notes: list[str]) -> list[Finding]:
    """Run the flow on a private event loop; the job is cancelled in every case."""
    return asyncio.run(_flow(kit, probes, model=model, notes=notes))


async def _flow(kit: Kit, probes: Probes, *, model: str, notes: list[str]) -> list[Finding]:
    recorder = RecordingTransport(httpx.AsyncHTTPTransport(verify=True))
    options = ServiceOptions(
        chunk_bytes=CHUNK_BYTES,
        poll_timeout=POLL_TIMEOUT_S,
        long_poll_s=5.0,
        max_retries=2,
        retry_timeout=60.0,
        progress=False,  # the kit's report is the output
    )
    service = CortexService(
        kit.target.base_url,
        kit.target.token,
        options,
        # A submit held by the proposed wait_s answers 200, which today's view does not have.
        hold_submits=kit.contract.view == "full",
        httpx_transport=recorder,
    )
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name=model,
        training_gpus=1,
        sampling_gpus=1,
        job_ready_timeout=JOB_READY_TIMEOUT_S,
        # As wide as the flow's batch (64 prompt + 64 response tokens): wider is refused.
        training_config={"max_seq_len": 128, "train_batch_size": 2},
        cortex={
            "base_url": kit.target.base_url,
            "experiment_name": f"contract-check-{uuid.uuid4().hex[:8]}",
        },
    )
    client = AsyncArcticRLClient(config, service=service, environ={})
    flow: list[Finding] = []
    try:
        if await _attempt(kit, flow, "create_job", "creates a job and it runs", client.start):
            job = str(client.job_id)
            notes.append(f"full mode created job {job}")
            await _steps(kit, client, flow, recorder)
            flow += await asyncio.to_thread(probes.job_refusals, job)
            flow += await asyncio.to_thread(generated.binary_run, kit, job, notes)
            flow += await asyncio.to_thread(generated.read_only_run, kit, job, notes)
    finally:
        if client.job_id is not None:
            await _attempt(kit, flow, "cancel_job", "cancels the job at the end", client.cancel)
        await client.aclose()
    judged = judge_exchanges(kit, recorder.exchanges, notes)
    links = await asyncio.to_thread(follow_links, kit, probes, recorder.exchanges)
    return flow + judged + links


async def _steps(
    kit: Kit, client: AsyncArcticRLClient, flow: list[Finding], recorder: RecordingTransport
) -> None:
    """One of each call the issue names; each failure is recorded and the next one runs."""
    # Today's view: stock grpo as today's service takes it; the full contract: its batch.
    today = kit.contract.view == "today"
    forward = today_batch(32, 64, 64, seed=7) if today else small_batch(32, 64, 64, seed=7)
    assert len(wire.dumps(forward)) > 2 * CHUNK_BYTES, "the batch must travel in several chunks"
    calls: list[tuple[str, str, Callable[[], Awaitable[Any]]]] = [
        (
            "forward_backward",
            "runs a chunked forward-backward",
            lambda: (
                client.fwd_bwd(forward)
                if today
                else client.fwd_bwd(forward["kwargs"], processing={"post": ["logprobs"]})
            ),
        ),
        ("step", "runs an optimizer step", lambda: client.step(1e-6)),
        (
            "generate",
            "generates a completion",
            lambda: client.generate(["contract check"], {"max_tokens": 4}),
        ),
    ]
    if "sync_weights" in kit.contract.operation_ids():
        calls.append(("sync_weights", "syncs weights", client.sync_weights))
    else:
        payload = {
            "source_sub_job_id": client.sub_jobs.get("training"),
            "target_sub_job_ids": [client.sub_jobs.get("sampling")],
            "weight_format": "vllm",
        }
        body = {"operation_type": "weight-sync", "payload": payload}
        calls.append(
            (
                "run_operation",
                "syncs weights (weight-sync operation)",
                lambda: client.service.run_operation(
                    str(client.job_id), OperationRequest.from_dict(body)
                ),
            )
        )
    for operation, what, call in calls:
        before = len(recorder.exchanges)
        await _attempt(kit, flow, operation, what, call)
        if operation == "forward_backward":
            flow.append(_chunked(kit, recorder.exchanges[before:]))


def _chunked(kit: Kit, exchanges: list[Exchange]) -> Finding:
    """The forward-backward really travelled as a group of chunks: 200 for each chunk
    but the last, 202 for the last (or, held by the proposed wait_s, its finished 200)."""
    chunks = [e for e in exchanges if e.request.url.path.endswith("/forward-backward")]
    uploads = [e.response.status_code for e in chunks]
    last_ok = bool(chunks) and (uploads[-1] == 202 or _held_and_finished(chunks[-1]))
    ok = len(uploads) >= 2 and set(uploads[:-1]) == {200} and last_ok
    detail = f"chunk answers {uploads}; want 200 for every chunk but the last, 202 for the last"
    label = _label(kit, "forward_backward")
    return _flow_finding(
        kit, "forward_backward", label, ok, "" if ok else detail, check="chunked_upload"
    )


def _held_and_finished(exchange: Exchange) -> bool:
    """A final chunk sent with wait_s answered 200 with its request's status."""
    if "wait_s" not in exchange.request.url.params or exchange.response.status_code != 200:
        return False
    try:
        body = exchange.response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and bool(body.get("request_id"))


async def _attempt(
    kit: Kit, flow: list[Finding], operation: str, what: str, call: Callable[[], Awaitable[Any]]
) -> bool:
    """Run one client call; its failure becomes a finding (and the flow goes on)."""
    label = _label(kit, operation)
    try:
        await call()
    except Exception as exc:
        detail = kit.target.mask(f"{what}: {type(exc).__name__}: {exc}")
        flow.append(_flow_finding(kit, operation, label, False, detail))
        return False
    flow.append(_flow_finding(kit, operation, label, True, ""))
    return True


def _flow_finding(
    kit: Kit, operation: str, label: str, passed: bool, detail: str, check: str = FLOW_CHECK
) -> Finding:
    path, method = _operation_by_id(kit, operation)
    location = "" if passed or not path else kit.contract.location(path, method)
    return Finding(operation, label, check, passed, detail=detail, location=location)


def _operation_by_id(kit: Kit, operation_id: str) -> tuple[str, str]:
    """``(path, method)`` of an operation in the view (empty strings if it is not there)."""
    for path, method, op in kit.contract.operations():
        if op["operationId"] == operation_id:
            return path, method
    return "", ""


def _label(kit: Kit, operation_id: str) -> str:
    path, method = _operation_by_id(kit, operation_id)
    return f"{method.upper()} {path}" if path else operation_id


# ----------------------------------------------------------------------- judging
def _template_regex(path: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", path)
    pattern = "".join(
        f"(?P<{p[1:-1]}>[^/:]+)" if p.startswith("{") else re.escape(p) for p in parts
    )
    return re.compile(f"^{pattern}$")


def match_operation(kit: Kit, schema: Any, method: str, url: str) -> tuple[Any, dict[str, str]]:
    """The contract operation a sent request belongs to, and its path parameters."""
    base = urlsplit(kit.target.base_url).path.rstrip("/")
    path = urlsplit(url).path
    relative = path[len(base) :] if path.startswith(base) else path
    relative = relative or "/"
    for template, op_method, _ in kit.contract.operations():
        found = _template_regex(template).match(relative)
        if found and op_method.upper() == method.upper():
            return schema[template][op_method.upper()], found.groupdict()
    return None, {}


def judge_exchanges(kit: Kit, exchanges: list[Exchange], notes: list[str]) -> list[Finding]:
    """Every recorded answer against the contract (schemathesis' conformance checks)."""
    schema = kit.schema(authenticated=False)
    findings: list[Finding] = []
    outside: set[str] = set()
    for exchange in exchanges:
        request = exchange.request
        operation, params = match_operation(kit, schema, request.method, str(request.url))
        if operation is None:
            outside.add(f"{request.method} {urlsplit(str(request.url)).path}")
            continue
        case = operation.Case(path_parameters=params)
        findings += kit.judge(case, exchange.response)
    for call in sorted(outside):
        notes.append(f"the client called {call}, which is not in this view of the contract")
    return findings


# ----------------------------------------------------------------------- links
def follow_links(kit: Kit, probes: Probes, exchanges: list[Exchange]) -> list[Finding]:
    """Each link of an answer the flow received, to a read-only operation, followed once:
    its parameters resolved from that exchange, the target called and judged, and the
    answer must be a success (a link promises the value works there)."""
    schema = kit.schema(authenticated=False)
    findings: list[Finding] = []
    followed: set[tuple[str, str]] = set()
    for exchange in exchanges:
        operation, params = match_operation(
            kit, schema, exchange.request.method, str(exchange.request.url)
        )
        if operation is None or exchange.response.status_code >= 300:
            continue
        key = kit.response_key(operation, exchange.response.status_code)
        responses = operation.definition.raw.get("responses", {})
        response_spec = kit.contract.resolve(responses.get(key, {}))
        for name, link in (response_spec.get("links") or {}).items():
            link = kit.contract.resolve(link)
            target = probes.operation(str(link.get("operationId")))
            source = str(operation.definition.raw.get("operationId"))
            if target is None or target.method.upper() != "GET" or (source, name) in followed:
                continue
            resolved = {
                param: _resolve(expr, exchange, params)
                for param, expr in (link.get("parameters") or {}).items()
            }
            if any(value is None for value in resolved.values()):
                continue
            followed.add((source, name))
            case, response = probes.send(
                target, path_parameters={k: str(v) for k, v in resolved.items()}
            )
            ok = response.status_code < 300
            findings += probes.expect(
                case, response, "link_resolves", ok, f"link {source}.{name} -> {target.label}"
            )
    return findings


def _resolve(expression: Any, exchange: Exchange, path_params: dict[str, str]) -> Any:
    """An OpenAPI runtime expression against one exchange (the forms links here use)."""
    if not isinstance(expression, str):
        return expression
    if expression.startswith("$request.path."):
        return path_params.get(expression.removeprefix("$request.path."))
    if expression.startswith("$response.body#"):
        node: Any = _json_or_none(exchange.response)
        for part in expression.removeprefix("$response.body#").strip("/").split("/"):
            if not part:
                continue
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict):
                node = node.get(part)
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node
    return None if expression.startswith("$") else expression


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None
