"""generated/ is exactly what `make generate` writes, and exposes every operation."""

from __future__ import annotations

import importlib
import inspect

import pytest

from .conftest import ROOT, ROUTES, load_generate_script

GENERATED = ROOT / "generated"
HEADER = "# generated from openapi/cortex_gs.yaml by make generate; do not edit"


def test_generated_matches_the_contract(fresh_generation) -> None:
    # This is what makes "edit the contract, forget `make generate`" fail the suite.
    stale = load_generate_script().drifted(fresh_generation, GENERATED)
    assert stale == [], f"run `make generate`; drifted: {stale}"


def test_drift_detection_notices_an_edit(fresh_generation, tmp_path) -> None:
    # Guard the guard: a one-character change in a copy must be reported.
    import shutil

    copy = tmp_path / "copy"
    for output in ("cortex_gs_client", "cortex_gs_models", "cortex_gs_contract", "openapi"):
        shutil.copytree(fresh_generation / output, copy / output)
    target = copy / "cortex_gs_models" / "__init__.py"
    target.write_text(target.read_text() + "\n# edited\n")
    (copy / "cortex_gs_client" / "stray.py").write_text("")
    view = copy / "openapi" / "cortex_gs.today.yaml"
    view.write_text(view.read_text().replace("(today)", "(today, edited)", 1))
    stale = load_generate_script().drifted(fresh_generation, copy)
    assert stale == [
        "cortex_gs_client/stray.py",
        "cortex_gs_models/__init__.py",
        "openapi/cortex_gs.today.yaml",
    ]


def test_routing_table_holds_every_operation() -> None:
    from cortex_gs_contract import CHUNK_OPERATIONS, OPERATIONS

    table = {op_id: (op.method, op.path, op.tag) for op_id, op in OPERATIONS.items()}
    assert table == ROUTES
    assert CHUNK_OPERATIONS == {
        "forward_backward": "fwd-bwd",
        "forward_no_grad": "fwd-no-grad",
        "generate": "generate",
    }


@pytest.mark.parametrize("op_id", sorted(ROUTES))
def test_every_operation_has_a_client_function(op_id: str) -> None:
    tag = ROUTES[op_id][2]
    module = importlib.import_module(f"cortex_gs_client.api.{tag}.{op_id}")
    for name in ("sync", "sync_detailed"):
        assert inspect.isfunction(getattr(module, name)), name
    for name in ("asyncio", "asyncio_detailed"):
        assert inspect.iscoroutinefunction(getattr(module, name)), name
    if op_id in {"create_job", "step", "save_checkpoint", "load_checkpoint", "sync_weights"}:
        assert "idempotency_key" in inspect.signature(module.sync_detailed).parameters


def test_client_entry_points() -> None:
    import cortex_gs_client

    client = cortex_gs_client.AuthenticatedClient(base_url="http://127.0.0.1:1", token="t")
    assert client.get_httpx_client().headers["Authorization"] == "Bearer t"
    assert cortex_gs_client.Client is not None


def test_generated_files_carry_the_header_and_markers() -> None:
    for package in ("cortex_gs_client", "cortex_gs_models"):
        assert (GENERATED / package / "py.typed").is_file()
        for path in (GENERATED / package).rglob("*.py"):
            assert path.read_text(encoding="utf-8").startswith(HEADER), path
