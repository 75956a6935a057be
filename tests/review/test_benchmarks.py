"""Keep `make bench` from rotting without timing anything: its table, its batches, its JSON."""

from __future__ import annotations

import json

from arctic_rl import ArcticRLClient
from benchmarks import MODULES
from benchmarks import __main__ as bench
from benchmarks import client as client_bench
from examples.grpo_demo import PAT_ENV


def test_table_shows_headline_columns_only():
    rows = [
        {"module": "codec", "case": "sha256", "data_GiB": 1.0, "seconds": 1.5, "cpu_s": 1.4},
        {"module": "client", "case": "rt", "n": 3, "median_ms": 12.5, "p99_ms": 30.0},
    ]
    lines = bench.render(rows).splitlines()
    header = lines[0].split()
    assert header == ["module", "case", "data_MiB", "n", "median_ms", "p99_ms", "seconds"]
    assert "1024.0" in lines[2] and "cpu_s" not in lines[0]
    assert len(lines) == 2 + len(rows)


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert client_bench._percentile(values, 50) == 50.0
    assert client_bench._percentile(values, 99) == 99.0
    assert client_bench._percentile([3.0, 1.0], 99) == 3.0


def test_every_module_has_run():
    import importlib

    for name in MODULES:
        assert callable(importlib.import_module(f"benchmarks.{name}").run), name


def test_round_trip_batch_is_what_the_mock_accepts(live_mock, monkeypatch):
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    with ArcticRLClient(client_bench._config(live_mock.base_url)) as client:
        result = client.fwd_bwd(client_bench.train_batch(2, 16), processing=client_bench.PROCESSING)
    assert result["loss"] is not None
    # The service's roll layout: log-probs have the input's shape [B, T] (cortex-api.md).
    assert tuple(result["post_process_outputs"]["logprobs"].shape) == (2, 16)


def test_main_writes_latest_and_a_stamped_copy(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "MODULES", ("fake",))
    fake = type("Fake", (), {"run": staticmethod(lambda: [{"case": "x", "n": 1}])})
    monkeypatch.setattr(bench.importlib, "import_module", lambda name: fake)
    out = tmp_path / "latest.json"
    assert bench.main(["--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["rows"] == [{"module": "fake", "case": "x", "n": 1}]
    assert doc["machine"]["cores"] >= 1 and "commit" in doc
    copies = [p for p in tmp_path.iterdir() if p.name != "latest.json"]
    assert len(copies) == 1 and json.loads(copies[0].read_text()) == doc
