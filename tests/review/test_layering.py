"""Hand-written code reaches generated code only through its public, static surface.

No module imports a generated package (``cortex_gs_client``, ``cortex_gs_models``,
``cortex_gs_contract``) by string, and none uses a private name of one (``_get_kwargs``,
``_parse_response``, ...): a regeneration may change either without notice.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HAND_WRITTEN = (
    "arctic_rl",
    "mock_server",
    "arctic_rl_kit",
    "devtools",
    "benchmarks",
    "examples",
    "scripts",
)
GENERATED_PACKAGES = ("cortex_gs_client", "cortex_gs_models", "cortex_gs_contract")
STRING_IMPORTERS = {"import_module", "__import__"}


def _is_generated(module: str) -> bool:
    return module.split(".", 1)[0] in GENERATED_PACKAGES


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _string_of(node: ast.expr) -> str:
    """The literal text of a module-name argument (an f-string's literal parts joined)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value
            for part in node.values
            if isinstance(part, ast.Constant) and isinstance(part.value, str)
        )
    return ""


def violations(source: str, filename: str) -> list[str]:
    """What in `source` breaks the rule, one line each."""
    tree = ast.parse(source, filename)
    generated_names: set[str] = set()
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_generated(alias.name):
                    generated_names.add((alias.asname or alias.name).split(".", 1)[0])
        elif isinstance(node, ast.ImportFrom) and node.module and _is_generated(node.module):
            for alias in node.names:
                if _is_private(alias.name) or any(map(_is_private, node.module.split("."))):
                    found.append(f"{filename}:{node.lineno} imports a private generated name")
                generated_names.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in STRING_IMPORTERS and node.args and _is_generated(_string_of(node.args[0])):
                found.append(f"{filename}:{node.lineno} imports a generated module by string")
        elif (
            isinstance(node, ast.Attribute)
            and _is_private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in generated_names
        ):
            found.append(f"{filename}:{node.lineno} uses {node.value.id}.{node.attr}")
    return found


def _hand_written_files() -> list[Path]:
    return sorted(path for top in HAND_WRITTEN for path in (ROOT / top).rglob("*.py"))


def test_the_tree_holds_hand_written_modules_that_use_generated_code() -> None:
    users = [p for p in _hand_written_files() if "cortex_gs_client" in p.read_text()]
    assert (ROOT / "arctic_rl" / "_cortex.py") in users


def test_no_string_imports_and_no_private_generated_names() -> None:
    found = [
        line
        for path in _hand_written_files()
        for line in violations(path.read_text(), str(path.relative_to(ROOT)))
    ]
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        'import importlib\nimportlib.import_module("cortex_gs_client.api.jobs.get_job")',
        'import importlib\nimportlib.import_module(f"cortex_gs_client.api.{tag}.{op}")',
        "from cortex_gs_client.api.jobs import get_job\nget_job._get_kwargs(job_id='j')",
        "from cortex_gs_client.api.jobs.get_job import _get_kwargs",
        "import cortex_gs_models\ncortex_gs_models._private",
    ],
    ids=["string import", "f-string import", "private function", "private import", "module"],
)
def test_each_kind_of_breach_is_caught(source: str) -> None:
    assert len(violations(source, "example.py")) == 1
