"""Requests the kit writes by hand, each with the answer the contract promises.

* **authentication**: every operation, without a token, with a wrong token and with the
  wrong token type, must answer 401. Made-up ids and bodies that would be refused anyway
  make each probe harmless even on a server that forgot to check.
* **create_job refusals**: bodies that break the contract get a documented 4xx, and no
  job appears (every such body carries a marker experiment name the kit looks for).
* **with a job** (``JOB``, or the job full mode created): broken DSSST1 frames (400),
  JSON that breaks a body schema (4xx), and
  the chunk-group protocol's refusals: a group not starting at chunk 0 (409
  ``chunk_group_restart_required``), a chunk whose descriptor disagrees with its group's
  (409 ``chunk_group_conflict``) and a body over the limit (413).

Every answer is also judged by schemathesis' conformance checks.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from cortex_gs_contract import TOKEN_TYPE, TOKEN_TYPE_HEADER

from arctic_rl import wire
from arctic_rl_kit import dssst1
from arctic_rl_kit.kit import ANSWER_CHECKS, Kit
from arctic_rl_kit.report import Finding

QUOTE_CHARS = 200  # of an answer, in a finding
QUOTE_WINDOW = 4096  # masked before the quote is cut from it

JSON = "application/json"
WRONG_TOKEN_TYPE = "KEYPAIR_JWT"
CHUNK_GROUP_ROUTE = "forward_backward"


def absent_id(kind: str) -> str:
    """An id no server has issued (matches the contract's id patterns)."""
    return f"kit-absent-{kind}-{uuid.uuid4().hex[:12]}"


def auth_scenarios(kit: Kit) -> dict[str, dict[str, str]]:
    """The three ways to be unauthenticated, by check name."""
    wrong = f"kit-wrong-{uuid.uuid4().hex}"
    return {
        "auth_no_token_401": {},
        "auth_wrong_token_401": {"Authorization": f"Bearer {wrong}", TOKEN_TYPE_HEADER: TOKEN_TYPE},
        "auth_wrong_token_type_401": {
            **kit.target.auth_headers(),
            TOKEN_TYPE_HEADER: WRONG_TOKEN_TYPE,
        },
    }


class Probes:
    """Hand-written requests through schemathesis cases (no auth configured: the kit
    sends exactly the headers each probe needs)."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit
        self.schema = kit.schema(authenticated=False)
        self.run_id = uuid.uuid4().hex[:12]

    def operations(self) -> list[Any]:
        return [
            self.schema[path][method.upper()] for path, method, _ in self.kit.contract.operations()
        ]

    def operation(self, operation_id: str) -> Any | None:
        for operation in self.operations():
            if operation.definition.raw.get("operationId") == operation_id:
                return operation
        return None

    def send(
        self,
        operation: Any,
        *,
        body: Any = None,
        media_type: str | None = None,
        path_parameters: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[Any, Any]:
        """Build a case for ``operation`` and send it with ``headers`` (default: auth)."""
        params = {name: absent_id(name.removesuffix("_id")) for name in _path_names(operation.path)}
        params.update(path_parameters or {})
        kwargs: dict[str, Any] = {"path_parameters": params}
        if body is not None:
            kwargs.update(body=body, media_type=media_type or JSON)
        case = operation.Case(**kwargs)
        sent = self.kit.target.auth_headers() if headers is None else headers
        return case, case.call(headers=sent)

    def expect(
        self,
        case: Any,
        response: Any,
        check: str,
        ok: bool,
        detail: str,
        extra: Iterable[Callable[..., Any]] = (),
    ) -> list[Finding]:
        """The kit's own verdict on an answer, then schemathesis' checks on it."""
        findings = [
            self.kit.finding(
                case.operation,
                check,
                ok,
                detail=f"{detail}; answered {_answer(response, self.kit.target.mask)}",
                request=response.request,
                status=response.status_code,
            )
        ]
        return findings + self.kit.judge(case, response, (*ANSWER_CHECKS, *extra))

    # ------------------------------------------------------------------ auth
    def authentication(self) -> list[Finding]:
        findings = []
        for operation in self.operations():
            body, media_type = _refused_body(operation)
            for check, headers in auth_scenarios(self.kit).items():
                case, response = self.send(
                    operation, body=body, media_type=media_type, headers=headers
                )
                findings += self.expect(
                    case, response, check, response.status_code == 401, "must be 401"
                )
        return findings

    # ------------------------------------------------------------------ create_job
    def create_refusals(self) -> list[Finding]:
        """Invalid CreateJobRequest bodies: documented 4xx, and no job created."""
        operation = self.operation("create_job")
        if operation is None:
            return []
        marker = f"contract-check-refusal-{self.run_id}"
        training = {"optimizer": {"lr": 1e-6}, "max_seq_len": 8, "train_batch_size": 1}
        bodies: dict[str, Any] = {
            "sub_job_configs missing": {},
            "sub_job_configs empty": {"sub_job_configs": []},
            "unknown job_type": {
                "sub_job_configs": [
                    {
                        "job_type": "kit-unknown",
                        "model_name": "m",
                        "inference_config": {"max_seq_len": 8, "n_gpus": 1},
                    }
                ]
            },
            "training sub-job without training_config": {
                "sub_job_configs": [{"job_type": "training", "model_name": "m"}]
            },
            "n_gpus 0": {
                "sub_job_configs": [
                    {
                        "job_type": "training",
                        "model_name": "m",
                        "training_config": {**training, "n_gpus": 0},
                    }
                ]
            },
            "body is a JSON array": [],
        }
        findings: list[Finding] = []
        created: list[str] = []
        for name, body in bodies.items():
            if isinstance(body, dict):
                body = {**body, "experiment_name": marker}
            case, response = self.send(operation, body=body)
            findings += self.expect(
                case, response, "refuses_invalid_body", self._refused(case, response), name
            )
            if response.status_code < 300:
                created.append(str(_json(response).get("job_id")))
        findings.append(self._nothing_created(operation, marker, created))
        return findings

    def _refused(self, case: Any, response: Any) -> bool:
        """A 4xx the operation documents."""
        status = response.status_code
        return 400 <= status < 500 and self.kit.response_key(case.operation, status) != "default"

    def _nothing_created(self, operation: Any, marker: str, created: list[str]) -> Finding:
        """No job carries the refusals' marker; any that does is cancelled at once."""
        listing = self.operation("list_jobs")
        if listing is not None:
            _, response = self.send(listing)
            jobs = _json(response).get("jobs") or []
            created += [j.get("job_id") for j in jobs if j.get("experiment_name") == marker]
        created = sorted({c for c in created if c})
        cancel = self.operation("cancel_job")
        for job_id in created:
            if cancel is not None:
                self.send(cancel, path_parameters={"job_id": job_id})
        detail = f"jobs created from refused bodies (now cancelled): {created}"
        return self.kit.finding(operation, "creates_nothing", not created, detail=detail)

    # ------------------------------------------------------------------ with a job
    def job_refusals(self, job: str) -> list[Finding]:
        findings = self.frame_refusals(job) + self.json_refusals(job)
        return findings + self.chunk_group_refusals(job)

    def frame_refusals(self, job: str) -> list[Finding]:
        """Broken DSSST1 bodies: 400 with the codec's code."""
        frame = wire.dumps({"prompts": ["kit"], "sampling_params": {"max_tokens": 1}})
        findings: list[Finding] = []
        for operation in self.operations():
            if not dssst1.carries_dssst1(operation):
                continue
            group = f"kit-bad-{uuid.uuid4().hex}"
            bodies = dssst1.broken_bodies(frame, group_id=group, cut=len(frame) // 2)
            for name, body in bodies.items():
                findings += self._binary(operation, job, body, name)
        return findings

    def _binary(self, operation: Any, job: str, body: bytes, name: str) -> list[Finding]:
        dssst1.remember(body, dssst1.Body.BROKEN)
        case, response = self.send(
            operation,
            body=body,
            media_type=dssst1.BINARY_MEDIA_TYPE,
            path_parameters={"job_id": job},
        )
        ok = response.status_code == 400
        return self.expect(
            case,
            response,
            "refuses_broken_dssst1",
            ok,
            f"{name}: must be 400",
            extra=(dssst1.dssst1_body_handling,),
        )

    def json_refusals(self, job: str) -> list[Finding]:
        """A JSON array where the body schema wants an object: a documented 4xx."""
        findings: list[Finding] = []
        for operation in self.operations():
            if operation.method.upper() != "POST" or JSON not in _media_types(operation):
                continue
            if "{job_id}" not in operation.path:
                continue
            case, response = self.send(operation, body=[], path_parameters={"job_id": job})
            ok = self._refused(case, response)
            findings += self.expect(
                case, response, "refuses_invalid_body", ok, "body is [], not an object"
            )
        return findings

    def chunk_group_refusals(self, job: str) -> list[Finding]:
        operation = self.operation(CHUNK_GROUP_ROUTE)
        if operation is None:
            return []
        first = _three_chunks(seed=1, group=f"kit-group-{uuid.uuid4().hex}")
        findings = self._chunk(
            operation,
            job,
            first[1],
            409,
            "chunk_group_restart_required",
            "chunk 1 of a group the server never saw",
        )
        group = f"kit-group-{uuid.uuid4().hex}"
        stored = _three_chunks(seed=2, group=group)
        other = _three_chunks(seed=3, group=group)
        findings += self._chunk(
            operation, job, stored[0], 200, None, "chunk 0 of a fresh group is stored"
        )
        findings += self._chunk(
            operation,
            job,
            other[1],
            409,
            "chunk_group_conflict",
            "chunk 1 of the same group for a different frame",
        )
        oversize = bytes(wire.MAX_BODY_BYTES + 1)
        findings += self._chunk(operation, job, oversize, 413, None, f"a {len(oversize)}-byte body")
        return findings

    def _chunk(
        self, operation: Any, job: str, body: bytes, status: int, code: str | None, what: str
    ) -> list[Finding]:
        case, response = self.send(
            operation,
            body=body,
            media_type=dssst1.BINARY_MEDIA_TYPE,
            path_parameters={"job_id": job},
        )
        ok = response.status_code == status and (
            code is None or dssst1.error_code(response) == code
        )
        check = code or ("payload_too_large" if status == 413 else "chunk_group_stores_chunk_0")
        expected = f"must be {status}" + (f" {code}" if code else "")
        return self.expect(case, response, check, ok, f"{what}: {expected}")


def _three_chunks(*, seed: int, group: str) -> list[bytes]:
    """A forward-backward request value in three chunk frames of one group."""
    frame = wire.dumps(dssst1.small_batch(2, 4, 4, seed=seed))
    payload = -(-len(frame) // 3)
    chunking = wire.Chunking.for_payload(
        payload, kind="request_chunk", chunk_group_id=group, operation="fwd-bwd", bare_max_bytes=0
    )
    return [bytes(chunk) for chunk in wire.split_chunks(frame, chunking)]


def _path_names(path: str) -> list[str]:
    return [part[1:-1] for part in path.replace(":", "/").split("/") if part.startswith("{")]


def _media_types(operation: Any) -> list[str]:
    """The request body's media types (references resolved by schemathesis)."""
    return [alternative.media_type for alternative in operation.body]


def _refused_body(operation: Any) -> tuple[Any, str | None]:
    """A body the operation must refuse whatever else happens (for the auth probes)."""
    media = _media_types(operation)
    if not media:
        return None, None
    if JSON in media:
        return {}, JSON
    return b"\x00" * 8, media[0]


def _json(response: Any) -> dict[str, Any]:
    try:
        value = json.loads(response.content or b"null")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _answer(response: Any, mask: Callable[[str], str]) -> str:
    """The start of an answer, masked before it is cut (a cut token keeps no prefix)."""
    text = mask((response.content or b"")[:QUOTE_WINDOW].decode("utf-8", "replace"))
    return f"{response.status_code} {text[:QUOTE_CHARS]}".strip()
