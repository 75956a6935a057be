"""Regenerate the typed client, the pydantic models and the contract's views.

The contract (openapi/cortex_gs.yaml) is the single source of truth: everything under
generated/ is rebuilt from it here, never edited by hand. That is both packages, plus
generated/openapi/: the contract as today's service alone (every `x-status: proposed`
element removed, see arctic_rl_kit/views.py) and a Markdown page of what the proposals add.
The contract package also carries both views (the contract and today's view) as data, so
the kit installed from a wheel checks the same documents.
The client is generated with the templates under openapi/templates/ (overrides of the
generator's own, so a template change drifts generated/ like a contract change does).
Generation always happens in a scratch directory and is then copied (or, with --check,
compared) so that both modes run exactly the same steps and a drift check can never pass
on output that differs from a real run.

Usage:
    python scripts/generate.py          # rewrite everything under generated/
    python scripts/generate.py --check  # regenerate into a temp dir; exit 1 listing drifted files
"""

from __future__ import annotations

import argparse
import ast
import filecmp
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contract_table  # a sibling module (scripts/ is not a package)

from arctic_rl_kit import proposals as contract_proposals
from arctic_rl_kit import views as contract_views

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "cortex_gs.yaml"
CLIENT_CONFIG = ROOT / "openapi" / "openapi-python-client.yaml"
# Our overrides of openapi-python-client's own templates (binary uploads, package inits that
# load on first use; see their comments).
CLIENT_TEMPLATES = ROOT / "openapi" / "templates"
GENERATED = ROOT / "generated"
CLIENT_PACKAGE = "cortex_gs_client"
MODELS_PACKAGE = "cortex_gs_models"
CONTRACT_PACKAGE = "cortex_gs_contract"
PACKAGES = (CLIENT_PACKAGE, MODELS_PACKAGE, CONTRACT_PACKAGE)
VIEWS = "openapi"
TODAY_VIEW = f"{VIEWS}/cortex_gs.today.yaml"
PROPOSALS_PAGE = f"{VIEWS}/proposals.md"
OUTPUTS = (*PACKAGES, VIEWS)
HEADER = "# generated from openapi/cortex_gs.yaml by make generate; do not edit"
LINE_LENGTH = "100"

# Flags recommended for pydantic v2 output in the toolchain notes. `--strict-types` stops
# pydantic's lax coercions ("5" -> 5, false -> 0, 1 -> True); integers are then relaxed
# again by `_apply_integer_policy` so that 5.0 (a JSON Schema integer) is still accepted.
DATAMODEL_FLAGS = [
    "--input-file-type", "openapi",
    "--output-model-type", "pydantic_v2.BaseModel",
    "--target-python-version", "3.11",
    "--use-annotated",
    "--field-constraints",
    "--use-standard-collections",
    "--use-union-operator",
    "--strict-nullable",
    "--use-type-alias",
    "--target-pydantic-version", "2.14",
    "--use-missing-sentinel",
    "--disable-timestamp",
    "--use-double-quotes",
    "--use-schema-description",
    "--strict-types", "str", "bool", "int", "float",
    "--formatters", "ruff-check", "ruff-format",
    "--custom-file-header", HEADER,
]  # fmt: skip

# The integer policy written in the contract's info description: a JSON integer is any
# number with no fractional part (5 and 5.0), never a bool or a string. The validator runs
# *outside* any Field constraints (appended last to the Annotated that holds StrictInt) so
# that pydantic still applies `ge`/`le` to the int schema and writes `minimum`/`maximum`
# into the models' JSON Schema; bare occurrences become the `JsonInt` alias.
INTEGER_POLICY = '''

def _integral_float_to_int(value: Any) -> Any:
    """Read 5.0 as 5: JSON Schema counts it as an integer, StrictInt alone would refuse it."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


IntegralFloatAsInt = BeforeValidator(_integral_float_to_int)
"""Appended to every Annotated integer so that 5.0 validates as 5 (see the contract)."""

JsonInt = Annotated[StrictInt, IntegralFloatAsInt]
"""An integer as the contract defines it: 5 or 5.0; never true/false, "5" or 5.5."""
'''


def _tool(name: str) -> str:
    """Prefer the tool installed next to this interpreter so the pinned versions are used."""
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found; run `make setup` first")
    return found


def _run(args: list[str]) -> None:
    """Run a tool from the repo root (so ruff sees one configuration) and fail loudly."""
    result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"command failed ({result.returncode}): {' '.join(args[:3])} ...")


def _union_members(node: ast.expr) -> list[ast.expr]:
    """The members of an `a | b | c` annotation (the node itself when it is no union)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]


def _integer_edits(source: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, replacement) byte edits that apply the integer policy to the models."""
    tree = ast.parse(source)
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col: int) -> int:
        return starts[lineno - 1] + col

    edits: list[tuple[int, int, bytes]] = []
    handled: set[int] = set()
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "Annotated"
            and isinstance(node.slice, ast.Tuple)
        ):
            continue
        ints = [
            member
            for member in _union_members(node.slice.elts[0])
            if isinstance(member, ast.Name) and member.id == "StrictInt"
        ]
        if ints:
            handled.update(id(member) for member in ints)
            last = node.slice.elts[-1]
            end = offset(last.end_lineno or 0, last.end_col_offset or 0)
            edits.append((end, end, b", IntegralFloatAsInt"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "StrictInt" and id(node) not in handled:
            start = offset(node.lineno, node.col_offset)
            edits.append((start, start + len(b"StrictInt"), b"JsonInt"))
    return edits


def _apply_integer_policy(source: str) -> str:
    """Make every integer of the models follow the contract's integer policy."""
    if "StrictInt" not in source:
        return source
    data = source.encode("utf-8")
    for start, end, text in sorted(_integer_edits(data), reverse=True):
        data = data[:start] + text + data[end:]
    body = data.decode("utf-8")
    # Definitions go right after the import block; ruff's isort pass merges the imports.
    lines = body.splitlines(keepends=True)
    cut = 0
    in_parens = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if in_parens:
            in_parens = not stripped.startswith(")")
            cut = index + 1
        elif stripped.startswith(("from ", "import ")):
            in_parens = stripped.endswith("(")
            cut = index + 1
        elif stripped and not stripped.startswith("#"):
            break
    head = "".join(lines[:cut]) + "from pydantic import BeforeValidator\n"
    head += "from typing import Annotated, Any\n"
    return head + INTEGER_POLICY + "".join(lines[cut:])


def _add_header(path: Path) -> None:
    """Put the do-not-edit header on the first line of one generated Python file."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith(HEADER):
        path.write_text(f"{HEADER}\n{text}" if text else f"{HEADER}\n", encoding="utf-8")


class _BlockDumper(yaml.SafeDumper):
    """Writes multi-line strings (descriptions) as `|` blocks, as the contract does."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _represent_str)


def write_views(out: Path) -> None:
    """Write today's view of the contract and the proposals page under `out`/openapi."""
    contract = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    today = contract_views.today_view(contract)
    (out / VIEWS).mkdir(parents=True, exist_ok=True)
    text = yaml.dump(today, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)
    (out / TODAY_VIEW).write_text(f"{HEADER}\n{text}", encoding="utf-8")
    (out / PROPOSALS_PAGE).write_text(contract_proposals.delta_markdown(contract), encoding="utf-8")


def generate_into(out: Path) -> None:
    """Write everything under `out` from the contract; identical input gives identical bytes."""
    write_views(out)
    client_dir = out / CLIENT_PACKAGE
    models_dir = out / MODELS_PACKAGE
    _run([
        _tool("openapi-python-client"), "generate",
        "--path", str(SPEC),
        "--output-path", str(client_dir),
        "--config", str(CLIENT_CONFIG),
        "--custom-template-path", str(CLIENT_TEMPLATES),
        "--meta", "none",
        "--overwrite",
        "--fail-on-warning",
    ])  # fmt: skip
    models_dir.mkdir(parents=True)
    models_file = models_dir / "__init__.py"
    _run([_tool("datamodel-codegen"), "--input", str(SPEC), "--output", str(models_file),
          *DATAMODEL_FLAGS])  # fmt: skip
    models, enums = contract_table.take_enums(models_file.read_text(encoding="utf-8"))
    models_file.write_text(_apply_integer_policy(models), encoding="utf-8")
    contract = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    contract_dir = out / CONTRACT_PACKAGE
    contract_dir.mkdir(parents=True)
    (contract_dir / "__init__.py").write_text(
        contract_table.render(contract, HEADER, enums), encoding="utf-8"
    )
    for path in sorted(out.rglob("*.py")):
        _add_header(path)
    # --isolated: the same rules whatever directory the output sits in (temp dir or repo).
    ruff = _tool("ruff")
    common = ["--isolated", "--line-length", LINE_LENGTH, "--target-version", "py311"]
    _run([ruff, "check", *common, "--select", "I,F401", "--fix", "--quiet", str(out)])
    _run([ruff, "format", *common, "--quiet", str(out)])
    for package in (client_dir, models_dir, contract_dir):
        (package / "py.typed").write_text("", encoding="utf-8")
    # Both views ship inside the contract package, so an installed kit finds them.
    shutil.copyfile(SPEC, contract_dir / SPEC.name)
    shutil.copyfile(out / TODAY_VIEW, contract_dir / Path(TODAY_VIEW).name)


def _files(base: Path) -> set[str]:
    """Relative paths of every generated file under `base`, caches excluded."""
    found: set[str] = set()
    for package in OUTPUTS:
        root = base / package
        if root.exists():
            found |= {
                str(p.relative_to(base))
                for p in root.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts
            }
    return found


def drifted(fresh: Path, current: Path) -> list[str]:
    """Files that differ between a fresh generation and generated/, missing or extra ones too."""
    fresh_files, current_files = _files(fresh), _files(current)
    changed = [
        name
        for name in fresh_files & current_files
        if not filecmp.cmp(fresh / name, current / name, shallow=False)
    ]
    return sorted(set(changed) | (fresh_files ^ current_files))


def main(argv: list[str] | None = None) -> int:
    """Generate into a scratch directory, then install the result or compare it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with generated/ instead of writing"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cortex-gs-gen-") as scratch:
        fresh = Path(scratch)
        generate_into(fresh)
        if args.check:
            stale = drifted(fresh, GENERATED)
            if stale:
                print("generated/ is out of date with openapi/cortex_gs.yaml; run `make generate`:")
                for name in stale:
                    print(f"  generated/{name}")
                return 1
            print("generated/ matches openapi/cortex_gs.yaml")
            return 0
        GENERATED.mkdir(exist_ok=True)
        for package in OUTPUTS:
            shutil.rmtree(GENERATED / package, ignore_errors=True)
            shutil.copytree(fresh / package, GENERATED / package)
    print(f"generated {', '.join(OUTPUTS)} under {GENERATED.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
