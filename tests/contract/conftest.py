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
