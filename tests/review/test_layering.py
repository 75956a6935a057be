"""Hand-written code reaches generated code only through its public, static surface.

No module imports a generated package (``cortex_gs_client``, ``cortex_gs_models``,
``cortex_gs_contract``) by string, and none uses a private name of one (``_get_kwargs``,
``_parse_response``, ...): a regeneration may change either without notice.
"""

from __future__ import annotations

import ast
import re
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


# ---- Every package's imports: private modules, directions, homes, sizes ------------------
#
# Each hand-written module belongs to one part of the house; an import may only point the
# ways ALLOWED names. Tests are white-box (they may read their own subject's private
# modules); nothing else reads another package's private module.

PARTS = {
    # top folder (or dotted prefix) -> the part its modules belong to
    "arctic_rl.wire": "wire",
    "arctic_rl.integrations": "integrations",
    "arctic_rl": "core",
    "arctic_rl_mock": "mock",
    "arctic_rl_kit": "kit",
    "cortex_gs_client": "generated",
    "cortex_gs_models": "generated",
    "cortex_gs_contract": "generated",
    "devtools": "devtools",
    "examples": "examples",
    "benchmarks": "benchmarks",
    "scripts": "scripts",
    "tests": "tests",
}
PRODUCT = {"wire", "core", "integrations", "mock", "kit", "generated"}
ALLOWED = {
    "wire": {"wire"},
    "core": {"core", "wire", "generated"},
    "integrations": {"integrations", "core", "wire"},
    "mock": {"mock", "wire", "generated"},
    "kit": {"kit", "core", "wire", "generated"},
    "generated": {"generated"},
    "devtools": PRODUCT | {"devtools"},
    "examples": PRODUCT | {"devtools", "examples"},
    "benchmarks": PRODUCT | {"devtools", "examples", "benchmarks"},
    "scripts": PRODUCT | {"devtools", "scripts"},
    "tests": PRODUCT | {"devtools", "examples", "benchmarks", "scripts", "tests"},
}
SOURCE_ROOTS = {  # folder -> the dotted prefix of the modules under it
    "arctic_rl": "arctic_rl",
    "mock_server/arctic_rl_mock": "arctic_rl_mock",
    "arctic_rl_kit": "arctic_rl_kit",
    "generated/cortex_gs_client": "cortex_gs_client",
    "generated/cortex_gs_models": "cortex_gs_models",
    "generated/cortex_gs_contract": "cortex_gs_contract",
    "devtools": "devtools",
    "examples": "examples",
    "benchmarks": "benchmarks",
    "scripts": "scripts",
    "tests": "tests",
}
MAX_LINES = 400
# The frameworks' stand-ins are other projects' files, imported under those projects' names.
FOREIGN = ("tests/client/standins/",)


def part_of(module: str) -> str | None:
    for prefix in sorted(PARTS, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return PARTS[prefix]
    return None


def _private(module: str) -> bool:
    return any(_is_private(part) for part in module.split(".")[1:])


class Tree:
    """The hand-written and generated modules under ``root``, by dotted name."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, Path] = {}
        for folder, prefix in SOURCE_ROOTS.items():
            base = root / folder
            for path in sorted(base.rglob("*.py")) if base.is_dir() else ():
                rel = path.relative_to(root).as_posix()
                if rel.startswith(FOREIGN):
                    continue
                parts = path.relative_to(base).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                self.files[".".join((prefix, *parts))] = path

    def resolve(self, name: str, importer: str) -> str:
        """The dotted name an import means, from the module ``importer``: tests and scripts
        reach their neighbours by the folder pytest or Python puts first on the path."""
        if name in self.files or part_of(name) not in (None, "tests", "scripts"):
            return name
        parent = importer.split(".")[:-1]
        while parent:
            candidate = ".".join((*parent, name))
            if candidate in self.files:
                return candidate
            parent.pop()
        return name

    def imports(self, module: str) -> list[tuple[int, str, str | None]]:
        """(line, module, name taken from it) of each import in ``module``."""
        path = self.files[module]
        is_package = path.name == "__init__.py"
        found: list[tuple[int, str, str | None]] = []
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found += [(node.lineno, self.resolve(a.name, module), None) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module.split(".")
                    base = base[: len(base) - node.level + (1 if is_package else 0)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = self.resolve(node.module or "", module)
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    if submodule in self.files:
                        found.append((node.lineno, submodule, None))
                    else:
                        found.append((node.lineno, target, alias.name))
        return found

    def breaches(self) -> list[str]:
        """Every import that breaks a rule, and every module over MAX_LINES, one line each."""
        found: list[str] = []
        for module, path in self.files.items():
            where = path.relative_to(self.root).as_posix()
            part = part_of(module)
            if part != "generated" and len(path.read_text().splitlines()) > MAX_LINES:
                found.append(f"{where}: over {MAX_LINES} lines")
            for line, target, name in self.imports(module):
                target_part = part_of(target)
                if target_part is None or part is None:
                    continue  # the standard library or a third party
                at = f"{where}:{line}: imports {target}" + (f".{name}" if name else "")
                home, other = module.split(".")[0], target.split(".")[0]
                if (
                    part != "tests"
                    and home != other
                    and (_private(target) or _is_private(name or ""))
                ):
                    found.append(f"{at}: another package's private module or name")
                if target_part not in ALLOWED[part]:
                    found.append(f"{at}: {part} may not depend on {target_part}")
                if part == "tests" and target.rsplit(".", 1)[-1].startswith("test_"):
                    found.append(f"{at}: a test module imports another test module")
        return found


def test_the_tree_is_read_whole() -> None:
    tree = Tree(ROOT)
    parts = {part_of(module) for module in tree.files}
    assert parts == set(ALLOWED), "every part of the house has modules"
    assert "arctic_rl_mock.app" in tree.files
    assert any(target == "arctic_rl.wire" for _, target, _ in tree.imports("arctic_rl_mock.errors"))


def test_every_package_keeps_its_layers() -> None:
    assert Tree(ROOT).breaches() == []


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        ("arctic_rl_kit/x.py", "from arctic_rl._endpoint import f", "private module"),
        ("arctic_rl_kit/x.py", "from arctic_rl.wire import _buffers", "private module"),
        ("arctic_rl/_x.py", "from arctic_rl.integrations import _layout", "core may not"),
        ("arctic_rl/wire/_x.py", "from arctic_rl import _config", "wire may not"),
        ("mock_server/arctic_rl_mock/x.py", "import tests.conftest", "mock may not"),
        ("mock_server/arctic_rl_mock/x.py", "from devtools import faults", "mock may not"),
        ("mock_server/arctic_rl_mock/x.py", "from arctic_rl import _http", "mock may not"),
        ("examples/x.py", "from tests.faults import helpers", "examples may not"),
        ("tests/a/test_x.py", "from a.test_y import f", "another test module"),
        ("tests/a/test_x.py", "from .test_y import f", "another test module"),
        ("devtools/x.py", "X = 1\n" * (MAX_LINES + 1), "over 400 lines"),
    ],
)
def test_each_breach_is_caught(tmp_path: Path, path: str, source: str, expected: str) -> None:
    for name in ("tests/a/test_y.py", "arctic_rl/wire/__init__.py", "arctic_rl/__init__.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(source + "\n")
    breaches = Tree(tmp_path).breaches()
    assert any(expected in line for line in breaches), breaches


def test_the_mock_s_module_map_names_every_module() -> None:
    import arctic_rl_mock

    package = ROOT / "mock_server" / "arctic_rl_mock"
    doc = arctic_rl_mock.__doc__ or ""
    named = set(re.findall(r"``([\w.]+)``", doc))
    modules = {
        part
        for path in package.rglob("*.py")
        for part in path.relative_to(package).with_suffix("").parts
        if part != "__init__"
    }
    assert modules - named == set()
