"""Before judging anything: is the kit talking to a Cortex GS endpoint, with a token it takes?

Every route documents 401, so a run with a rejected token (or against a server that
rejects everything) would "conform" everywhere. The preflight makes one authenticated
read, ``list_jobs``, which must succeed: a 200 answer carrying a JSON object. A refused
token, a wrong path, a host that does not answer or an answer that is no Cortex GS job
list stops the run with one line naming what to fix (the variable or the URL).
"""

from __future__ import annotations

import httpx

from arctic_rl.shared import proxy_for
from arctic_rl_kit.contract import Contract
from arctic_rl_kit.target import Target

PREFLIGHT_OPERATION = "list_jobs"
PREFLIGHT_TIMEOUT_S = 30.0
URL_SHAPE = "https://HOST/api/v2/databases/DB/schemas/SCHEMA/cortex-training"


class PreflightFailed(RuntimeError):
    """The target is not a Cortex GS endpoint that accepts the token; says what to fix."""


def preflight_url(target: Target, contract: Contract) -> str:
    """The URL of the preflight's read (``list_jobs``) under the target's prefix."""
    for path, method, op in contract.operations():
        if op.get("operationId") == PREFLIGHT_OPERATION and method == "get":
            return target.base_url + path
    raise PreflightFailed(f"the contract has no GET {PREFLIGHT_OPERATION} to check the URL with")


def preflight(target: Target, contract: Contract) -> None:
    """Raise :class:`PreflightFailed` unless an authenticated ``list_jobs`` answers 200 JSON."""
    url = preflight_url(target, contract)
    try:
        # The client's proxy rule: a loopback target never goes through a proxy.
        transport = httpx.HTTPTransport(proxy=proxy_for(target.base_url))
        with httpx.Client(
            timeout=PREFLIGHT_TIMEOUT_S, follow_redirects=False, transport=transport
        ) as http:
            response = http.get(url, headers=target.auth_headers())
    except httpx.HTTPError as exc:
        reason = str(exc) or type(exc).__name__
        raise PreflightFailed(
            f"cannot reach {target.base_url} (--url): {reason}; check the host and port"
        ) from None
    judge(target, url, response)


def judge(target: Target, url: str, response: httpx.Response) -> None:
    """The preflight's verdict on the answer to ``GET url``."""
    status = response.status_code
    if status in (401, 403):
        raise PreflightFailed(
            f"the service at {target.base_url} refused the token in ${target.pat_env} "
            f"(GET {url} answered {status}); set {target.pat_env} to a valid, unexpired "
            "programmatic access token"
        )
    if status != 200:
        raise PreflightFailed(
            f"GET {url} answered {status}: {target.base_url} (--url) is not a Cortex GS "
            f"endpoint; the URL is the service prefix, {URL_SHAPE}"
        )
    if not looks_like_job_list(response):
        kind = response.headers.get("content-type", "no content type")
        raise PreflightFailed(
            f"GET {url} answered 200 with {kind}, not a Cortex GS job list: "
            f"{target.base_url} (--url) is not a Cortex GS endpoint; the URL is the service "
            f"prefix, {URL_SHAPE}"
        )


def looks_like_job_list(response: httpx.Response) -> bool:
    """A JSON object (the schema's details are the checks' business, not the preflight's)."""
    if not response.headers.get("content-type", "").startswith("application/json"):
        return False
    try:
        return isinstance(response.json(), dict)
    except ValueError:
        return False
