"""Which proposals an endpoint serves: one harmless probe per proposal.

Every probe is refused before any model call by a service that does not serve the
proposal, and is harmless on one that does: routes are probed on a made-up job id (a
served route answers ``job_not_found``, an absent one the router's ``not_found``), and
the probes that need the server engineer's running job (``--job``) send one-row
forward-backwards whose loss mask counts no token (no gradient) or a one-token
generation. A proposal no probe can reach harmlessly (``Idempotency-Key`` needs a
mutating call twice, a cost budget an over-budget batch that a service without budgets
would run) is reported as not probed, with the reason.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import torch

from arctic_rl import wire
from arctic_rl_kit.target import Target

SERVED = "served"
NOT_SERVED = "not served"
NOT_PROBED = "not probed"
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Served:
    """One proposal's verdict, what was sent and what came back."""

    proposal: str
    verdict: str
    evidence: str


def _answer(response: httpx.Response) -> tuple[int, str]:
    try:
        code = str(response.json().get("error_code", ""))
    except ValueError:
        code = ""
    return response.status_code, code


def _route(client: httpx.Client, method: str, path: str) -> tuple[str, str]:
    """A proposed route on a made-up job: ``job_not_found`` if it exists, else 404."""
    job = f"kit-absent-job-{uuid.uuid4().hex[:12]}"  # an id no server has issued
    response = client.request(method, path.format(job=job), json={})
    status, code = _answer(response)
    served = not (status in (404, 405) and code in ("not_found", "method_not_allowed", ""))
    return (SERVED if served else NOT_SERVED), f"{method} {path} answered {status} {code}".strip()


def _tiny_grpo(loss_fn: str, post: list[str]) -> bytes:
    """A one-row forward-backward whose loss mask counts no token: no gradient if run."""
    ids = torch.tensor([[97, 98]], dtype=torch.int64)
    frame = {
        "args": (),
        "kwargs": {"input_ids": ids, "attention_mask": torch.ones_like(ids)},
        "context": {
            "input_ids": ids,
            "advantages": torch.zeros(1, 2),
            "loss_mask": torch.zeros(1, 2, dtype=torch.bool),
        },
        "processing": {"post": post, "loss_fn": loss_fn, "config": {}},
    }
    return bytes(wire.dumps(frame))


def _submitted(response: httpx.Response, what: str) -> tuple[str, str]:
    """Accepted (202) is served; a 422 refusal before any work is not."""
    status, code = _answer(response)
    if status in (200, 202):
        return SERVED, f"{what} accepted ({status})"
    verdict = NOT_SERVED if status in (400, 404, 422) else NOT_PROBED
    return verdict, f"{what} answered {status} {code}".strip()


def _frame_probe(loss_fn: str, post: list[str]) -> Callable[[httpx.Client, str], tuple[str, str]]:
    def probe(client: httpx.Client, job: str) -> tuple[str, str]:
        response = client.post(f"/{job}/forward-backward", content=_tiny_grpo(loss_fn, post))
        return _submitted(response, f"forward-backward with loss_fn {loss_fn}, post {post}")

    return probe


def _sampling_n(client: httpx.Client, job: str) -> tuple[str, str]:
    body = {"prompts": ["a"], "sampling_params": {"n": 2, "max_tokens": 1}}
    response = client.post(f"/{job}/generate", content=bytes(wire.dumps(body)))
    return _submitted(response, "generate with n=2, max_tokens=1")


ROUTES = {
    "capabilities": ("GET", "/capabilities"),
    "forward_no_grad": ("POST", "/{job}/forward-no-grad"),
    "log_probs": ("POST", "/{job}/log-probs"),
    "sync_weights": ("POST", "/{job}/sync-weights"),
}
JOB_PROBES: dict[str, Callable[[httpx.Client, str], tuple[str, str]]] = {
    "verl_grpo": _frame_probe("verl_grpo", ["compute_logprobs"]),
    "apply_temperature": _frame_probe("grpo", ["apply_temperature", "compute_logprobs"]),
    "compute_entropy_and_logprobs": _frame_probe("grpo", ["compute_entropy_and_logprobs"]),
    "sampling_n": _sampling_n,
}
UNPROBED = {
    "idempotency_key": "needs one mutating call sent twice, which runs twice where unserved",
    "cost_budgets": "needs an over-budget batch, which a service without budgets would run",
}


def _capabilities_route(client: httpx.Client) -> tuple[str, str]:
    response = client.get("/capabilities")
    status, code = _answer(response)
    if status != 200:
        return NOT_SERVED, f"GET /capabilities answered {status} {code}".strip()
    listed = response.json().get("proposals") or []
    return SERVED, f"GET /capabilities answered 200 listing {', '.join(map(str, listed))}"


def probe_proposals(target: Target, job: str | None) -> list[Served]:
    """Each proposal's verdict on ``target``; the job probes only with a running ``job``."""
    found: list[Served] = []
    with httpx.Client(
        base_url=target.base_url, headers=target.auth_headers(), timeout=TIMEOUT_S
    ) as client:
        found.append(Served("capabilities", *_capabilities_route(client)))
        for name, (method, path) in ROUTES.items():
            if name != "capabilities":
                found.append(Served(name, *_route(client, method, path)))
        for name, probe in JOB_PROBES.items():
            if job is None:
                found.append(Served(name, NOT_PROBED, "needs a running job (JOB=)"))
            else:
                found.append(Served(name, *probe(client, job)))
    found += [Served(name, NOT_PROBED, why) for name, why in UNPROBED.items()]
    return found


def markdown(served: list[Served]) -> list[str]:
    """The report's section on which proposals the endpoint serves."""
    lines = ["", "## Proposals served", "", "| proposal | verdict | evidence |", "|---|---|---|"]
    lines += [f"| `{s.proposal}` | {s.verdict} | {s.evidence} |" for s in served]
    return lines


__all__ = ["NOT_PROBED", "NOT_SERVED", "SERVED", "Served", "markdown", "probe_proposals"]
