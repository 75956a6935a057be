"""What every part of a run shares: the target, the contract view loaded into schemathesis,
and the way an answer becomes :class:`~arctic_rl_kit.report.Finding` s.

Answers are judged by schemathesis' own checks (status code, content type, body schema
and headers against the contract, no 5xx) plus the kit's, so a server engineer's report
and the project's fuzz tests agree on what "conforms" means.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import schemathesis
from cortex_gs_contract import TOKEN_TYPE
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from arctic_rl_kit import dssst1
from arctic_rl_kit.contract import Contract
from arctic_rl_kit.report import Finding
from arctic_rl_kit.target import Target

# The schemathesis checks every answer the kit provokes by hand must pass.
ANSWER_CHECKS = (
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
)
# Which part of an operation a failing check is about (for the report's location).
RESPONSE_CHECKS = frozenset(
    {"content_type_conformance", "response_schema_conformance", "response_headers_conformance"}
)
REQUEST_CHECKS = frozenset({"negative_data_rejection", "positive_data_acceptance"})
REQUEST_TIMEOUT_S = 120


@dataclass
class Kit:
    """One run's shared state."""

    target: Target
    contract: Contract
    seed: int
    max_examples: int
    body_dir: Path
    phases: tuple[str, ...] = ("examples", "coverage", "fuzzing")

    # ---------------------------------------------------------------- schemathesis
    def config(
        self,
        *,
        mode: str = "all",
        phases: Iterable[str] | None = None,
        parameters: Mapping[str, Any] | None = None,
        checks: Mapping[str, Any] | None = None,
        authenticated: bool = True,
    ) -> schemathesis.Config:
        """A schemathesis config for the target; the token only as ``${PAT_ENV}``, which
        schemathesis reads from the environment (never written anywhere)."""
        chosen = set(self.phases if phases is None else phases)
        data: dict[str, Any] = {
            "base-url": self.target.base_url,
            "seed": self.seed,
            "continue-on-failure": True,
            "request-timeout": REQUEST_TIMEOUT_S,
            "max-redirects": 0,  # the token goes to the target and nowhere else
            "generation": {
                "max-examples": self.max_examples,
                "deterministic": True,
                "mode": mode,
            },
            "checks": {"enabled": True},
            "phases": {
                name: {"enabled": name in chosen}
                for name in ("examples", "coverage", "fuzzing", "stateful")
            },
        }
        if authenticated:
            data["auth"] = {
                "openapi": {
                    "patBearer": {"bearer": "${" + self.target.pat_env + "}"},
                    "patTokenType": {"api_key": TOKEN_TYPE},
                }
            }
        if parameters:
            data["parameters"] = dict(parameters)
        if checks:
            data["checks"].update(checks)
        return schemathesis.Config.from_dict(data)

    def dssst1_operations(self) -> list[str]:
        """Operations whose body is a DSSST1 frame (``x-dssst1-schema`` on octet-stream)."""
        schema = schemathesis.openapi.from_dict(
            self.contract.document, config=schemathesis.Config.from_dict({})
        )
        return [
            op["operationId"]
            for path, method, op in self.contract.operations()
            if dssst1.carries_dssst1(schema[path][method.upper()])
        ]

    def schema(self, **config: Any) -> Any:
        """The contract view as a schemathesis schema (DSSST1 strategy registered)."""
        return schemathesis.openapi.from_dict(self.contract.document, config=self.config(**config))

    # ---------------------------------------------------------------- findings
    def curl(self, method: str, url: str, headers: Mapping[str, Any], body: Any) -> str:
        """A masked, reproducible ``curl`` for a request as it was sent."""
        flat = {k: v[0] if isinstance(v, list) else str(v) for k, v in headers.items()}
        raw = body.encode() if isinstance(body, str) else body
        return self.target.curl(method, url, flat, raw or None, self.body_dir)

    def curl_of(self, request: Any) -> str:
        """``curl`` for a sent request (a requests/httpx request or schemathesis' record)."""
        url = getattr(request, "uri", None) or str(request.url)
        body = getattr(request, "body", None)
        if body is None and hasattr(request, "content"):
            body = request.content
        return self.curl(request.method, url, dict(request.headers), body)

    def location(self, operation: Any, check: str, status: int | None) -> str:
        """Where in the contract a failing check points."""
        path, method = operation.path, operation.method
        if check == "status_code_conformance":
            return self.contract.location(path, method, "responses")
        if check.startswith("auth_") and "401" in self.contract.documented_statuses(path, method):
            return self.contract.location(path, method, "responses", "401")
        if check in RESPONSE_CHECKS and status is not None:
            return self.contract.location(
                path, method, "responses", self.response_key(operation, status)
            )
        if check in REQUEST_CHECKS:
            part = "requestBody" if len(operation.body) else "parameters"
            return self.contract.location(path, method, part)
        return self.contract.location(path, method)

    def response_key(self, operation: Any, status: int) -> str:
        """The contract's response key for ``status``: exact, ``4XX`` style, or default."""
        documented = self.contract.documented_statuses(operation.path, operation.method)
        for key in (str(status), f"{status // 100}XX", f"{status // 100}xx"):
            if key in documented:
                return key
        return "default"

    def finding(
        self,
        operation: Any,
        check: str,
        passed: bool,
        *,
        detail: str = "",
        request: Any = None,
        status: int | None = None,
    ) -> Finding:
        return Finding(
            operation=operation_id(operation),
            label=operation.label,
            check=check,
            passed=passed,
            detail=self.target.mask(detail),
            curl="" if passed or request is None else self.curl_of(request),
            location="" if passed else self.location(operation, check, status),
        )

    def judge(
        self,
        case: Any,
        response: Any,
        checks: Iterable[Callable[..., Any]] = ANSWER_CHECKS,
    ) -> list[Finding]:
        """Run schemathesis checks one by one on an answer the kit provoked."""
        findings = []
        for check in checks:
            name = check.__name__
            try:
                case.validate_response(response, checks=[check])
            except (FailureGroup, Failure) as exc:
                failures = exc.exceptions if isinstance(exc, FailureGroup) else (exc,)
                detail = "; ".join(describe(f, self.target.mask) for f in failures)
                findings.append(
                    self.finding(
                        case.operation,
                        name,
                        False,
                        detail=detail,
                        request=response.request,
                        status=response.status_code,
                    )
                )
            else:
                findings.append(self.finding(case.operation, name, True))
        return findings


def operation_id(operation: Any) -> str:
    return str(operation.definition.raw.get("operationId", operation.label))


DETAIL_CHARS = 400


def describe(failure: Failure, mask: Callable[[str], str]) -> str:
    """A failure in one line: its title and the start of its message, masked before cut."""
    lines = mask(failure.message).splitlines()
    message = " ".join(line.strip() for line in lines if line.strip())
    if len(message) > DETAIL_CHARS:
        message = message[:DETAIL_CHARS] + " ..."
    return f"{failure.title}: {message}" if message else failure.title
