"""Every operation of the contract refuses a missing token, a wrong token and the wrong
token type with 401 ``unauthorized`` -- even for a job that exists and a valid body."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from cortex_gs_contract import REQUEST_ID_HEADER, TOKEN_TYPE, TOKEN_TYPE_HEADER

from arctic_rl import wire

from .support import RunningJob, contract, contract_operations

OPERATIONS = contract_operations()


def bad_credentials(token: str) -> dict[str, dict[str, str]]:
    """Header sets that must all be refused (name -> headers)."""
    return {
        "no token": {},
        "no token, type header only": {TOKEN_TYPE_HEADER: TOKEN_TYPE},
        "wrong token": {"Authorization": "Bearer not-the-pat", TOKEN_TYPE_HEADER: TOKEN_TYPE},
        "wrong token type": {"Authorization": f"Bearer {token}", TOKEN_TYPE_HEADER: "OAUTH"},
        "token type missing": {"Authorization": f"Bearer {token}"},
        "not a bearer scheme": {"Authorization": f"Basic {token}", TOKEN_TYPE_HEADER: TOKEN_TYPE},
    }


def valid_request(op_id: str, path: str, job: RunningJob) -> dict[str, Any]:
    """httpx.request kwargs that a caller with the right token would get a 2xx for."""
    item = contract()["paths"][path]
    operation = next(
        item[m] for m in item if m != "parameters" and item[m].get("operationId") == op_id
    )
    url = (
        path.replace("{job_id}", job.job_id)
        .replace("{checkpoint_id}", "global_step_0")
        .replace("{request_id}", "req-0")
    )
    content = operation.get("requestBody", {}).get("content", {})
    if "application/json" in content:
        return {"url": url, "json": content["application/json"].get("example", {})}
    if "application/octet-stream" in content:
        frame = wire.dumps({"prompts": ["hi"], "sampling_params": {}, "strict": False})
        chunking = wire.Chunking("request_chunk", 1 << 20, bare_max_bytes=0)
        chunk = bytes(wire.split_chunks(frame, chunking)[0])
        return {
            "url": url,
            "content": chunk,
            "headers": {"Content-Type": "application/octet-stream"},
        }
    return {"url": url}


@pytest.mark.parametrize(("op_id", "method", "path"), OPERATIONS, ids=[o[0] for o in OPERATIONS])
def test_every_operation_refuses_bad_credentials(
    op_id: str, method: str, path: str, module_job: RunningJob
) -> None:
    """401 with the contract's Error body and a request id, whatever is wrong with auth."""
    before = module_job.snapshot()
    request = valid_request(op_id, path, module_job)
    extra = request.pop("headers", {})
    with httpx.Client(base_url=module_job.mock.base_url, timeout=30) as anonymous:
        for case, headers in bad_credentials(module_job.mock.token).items():
            response = anonymous.request(method, headers={**headers, **extra}, **request)
            assert response.status_code == 401, f"{op_id} with {case}: {response.status_code}"
            body = response.json()
            assert (body["code"], body["error_code"]) == (401, "unauthorized"), (case, body)
            assert response.headers[REQUEST_ID_HEADER], case
            assert module_job.mock.token not in response.text, case
    assert module_job.snapshot() == before


def test_every_contract_operation_is_covered() -> None:
    """Guard against an empty parametrization if the spec moves."""
    assert len(OPERATIONS) >= 20
    assert {"create_job", "forward_backward", "get_request"} <= {o[0] for o in OPERATIONS}
