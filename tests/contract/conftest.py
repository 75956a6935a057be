"""Shared fixtures for the contract tests: the parsed spec and one fresh generation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from repo_scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "openapi" / "cortex_gs.yaml"
TODAY_PATH = ROOT / "generated" / "openapi" / "cortex_gs.today.yaml"
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def load_generate_script() -> ModuleType:
    """scripts/generate.py, whose functions the drift tests reuse."""
    return load_script("generate")


@pytest.fixture(scope="session")
def spec() -> dict[str, Any]:
    """The contract as plain data."""
    return yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def today() -> dict[str, Any]:
    """Today's view of the contract, as `make generate` wrote it to generated/openapi/."""
    return yaml.safe_load(TODAY_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def operations(spec: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """operationId -> (METHOD, path, operation object)."""
    found: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for path, item in spec["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                operation = item[method]
                found[operation["operationId"]] = (method.upper(), path, operation)
    return found


@pytest.fixture(scope="session")
def fresh_generation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Run the real generation pipeline (strict: --fail-on-warning) once into a temp dir."""
    out = tmp_path_factory.mktemp("generated")
    load_generate_script().generate_into(out)
    yield out


# Every route of the service's published description, plus the proposed ones, with the
# operationId and tag that the generated client exposes them under.
ROUTES = {
    # control plane
    "create_job": ("POST", "/", "jobs"),
    "list_jobs": ("GET", "/", "jobs"),
    "get_capacity": ("GET", "/capacity", "jobs"),
    "get_capabilities": ("GET", "/capabilities", "jobs"),
    "get_job": ("GET", "/{job_id}", "jobs"),
    "cancel_job": ("POST", "/{job_id}:cancel", "jobs"),
    "get_experiment_run": ("GET", "/{job_id}/experiment-run", "jobs"),
    "list_checkpoints": ("GET", "/{job_id}/checkpoints", "checkpoints"),
    "delete_checkpoint": ("DELETE", "/{job_id}/checkpoints/{checkpoint_id}", "checkpoints"),
    "export_checkpoint": ("POST", "/{job_id}/checkpoints/{checkpoint_id}:export", "checkpoints"),
    # data plane
    "forward_backward": ("POST", "/{job_id}/forward-backward", "training"),
    "forward_no_grad": ("POST", "/{job_id}/forward-no-grad", "training"),
    "step": ("POST", "/{job_id}/step", "training"),
    "save_checkpoint": ("POST", "/{job_id}/save", "checkpoints"),
    "load_checkpoint": ("POST", "/{job_id}/load", "checkpoints"),
    "generate": ("POST", "/{job_id}/generate", "sampling"),
    "generate_stream": ("POST", "/{job_id}/generate-stream", "sampling"),
    "log_probs": ("POST", "/{job_id}/log-probs", "sampling"),
    "sync_weights": ("POST", "/{job_id}/sync-weights", "sampling"),
    "run_operation": ("POST", "/{job_id}/operation", "operations"),
    # polling
    "get_request": ("GET", "/{job_id}/requests/{request_id}", "requests"),
    "abandon_chunk_group": ("DELETE", "/{job_id}/chunk-groups/{chunk_group_id}", "requests"),
}


PROPOSED_OPERATIONS = {
    "forward_no_grad",
    "log_probs",
    "sync_weights",
    "get_capabilities",
    "abandon_chunk_group",
}
