"""Keep `make bench` from rotting without timing anything: its table, verdicts, batches, JSON."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from arctic_rl import ArcticRLClient
from benchmarks import MODULES, _goals, _mock, codec, hotpath
from benchmarks import __main__ as bench
from devtools.mock_process import PAT_ENV


def test_table_shows_headline_columns_only():
    rows = [
        {"module": "codec", "case": "rt", "data_MiB": 1024.0, "seconds": 1.5, "cpu_s": 1.4},
        {"module": "hotpath", "case": "it", "n": 3, "median_ms": 12.5, "p99_ms": 30.0},
    ]
    lines = bench.render(rows).splitlines()
    header = lines[0].split()
    assert header == ["module", "case", "data_MiB", "n", "median_ms", "p99_ms", "seconds"]
    assert "1024.0" in lines[2] and "cpu_s" not in lines[0]
    assert len(lines) == 2 + len(rows)


def test_a_row_meets_its_goal_only_when_every_check_holds():
    row = {"case": "x", "ratio": 12.0}
    assert _goals.judge(row, "g", (12.0, ">=", 10.0))["verdict"] == _goals.MET
    assert _goals.judge(row, "g", (9.9, ">=", 10.0))["verdict"] == _goals.MISSED
    both = _goals.judge(row, "g", (12.0, ">=", 10.0), (3.5, "<=", 3.0))
    assert both["verdict"] == _goals.MISSED and both["goal"] == "g"
    assert _goals.judge(row, "g", (0.5, "<=", 0.5))["verdict"] == _goals.MET


def test_the_summary_names_every_missed_row():
    rows = [
        {"module": "codec", "case": "a", "verdict": _goals.MET},
        {"module": "hotpath", "case": "b", "verdict": _goals.MISSED},
        {"module": "hotpath", "case": "c", "goal": "(not judged)"},
    ]
    assert bench.verdicts(rows) == "goals: 1 of 2 judged rows met; MISSED: hotpath: b"


def test_codec_rows_take_the_slower_middle_round_trip_and_the_highest_peak():
    runs = [
        {"seconds": s, "peak_extra_mib": p} for s, p in [(3.0, 60), (1.0, 70), (2.0, 65), (4.0, 61)]
    ]
    median = codec._median_run(runs, 1024.0)
    assert (median["seconds"], median["peak_extra_mib"], median["data_mib"]) == (3.0, 70, 1024.0)
    assert median["runs_s"] == [3.0, 1.0, 2.0, 4.0]


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert hotpath.percentile(values, 50) == 50.0
    assert hotpath.percentile(values, 99) == 99.0
    assert hotpath.percentile([3.0, 1.0], 99) == 3.0


def test_interleaving_alternates_which_client_goes_first():
    order: list[str] = []

    def iteration(name: str) -> hotpath.Iteration:
        async def run() -> None:
            order.append(name)

        return run

    ours, published = asyncio.run(
        hotpath.interleaved(iteration("ours"), iteration("pub"), iterations=4, warmup=1)
    )
    assert order == ["pub", "ours", "pub", "ours", "ours", "pub", "pub", "ours", "ours", "pub"]
    assert len(ours) == len(published) == 4


@pytest.mark.parametrize("package", _mock.MOCK_PACKAGES)
def test_the_baseline_checkout_comes_from_the_environment(tmp_path, monkeypatch, package):
    """A checkout from before the mock's rename still counts as a baseline."""
    monkeypatch.setenv(_mock.BASELINE_ENV, str(tmp_path))
    assert _mock.baseline_tree() is None  # not a checkout: no mock package in it
    (tmp_path / package).mkdir(parents=True)
    (tmp_path / package / "__main__.py").write_text("")
    assert _mock.baseline_tree() == tmp_path
    assert _mock.mock_package(tmp_path) == package


@pytest.mark.parametrize("package", _mock.MOCK_PACKAGES)
def test_a_baseline_mock_runs_without_the_packages_added_since(tmp_path, package):
    """The launcher makes the modules it is given unimportable and passes the mock its args."""
    (tmp_path / package).mkdir(parents=True)
    folder, _, name = package.rpartition("/")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / folder)} if folder else None
    (tmp_path / package / "__main__.py").write_text(
        "import importlib, json, sys\n"
        "def importable(name):\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError:\n"
        "        return False\n"
        "    return True\n"
        "print(json.dumps([sys.argv[1:], importable('email'), importable('json')]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", _mock._LAUNCH, "email,csv", name, "--port", "1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == [["--port", "1"], False, True]


def test_every_module_has_run():
    import importlib

    for name in MODULES:
        assert callable(importlib.import_module(f"benchmarks.{name}").run), name


def test_hot_path_batch_is_what_the_mock_accepts(live_mock_factory, monkeypatch):
    live_mock = live_mock_factory("canned", service="proposed")  # what the bench runs
    monkeypatch.setenv(PAT_ENV, live_mock.token)
    with ArcticRLClient(hotpath.our_config(live_mock.base_url, PAT_ENV)) as client:
        result = client.fwd_bwd(hotpath.train_batch(2, 16), processing=hotpath.PROCESSING)
        assert client.step()["global_steps"] == 1
    assert result["loss"] is not None
    # The service's roll layout: log-probs have the input's shape [B, T] (cortex-api.md).
    assert tuple(result["post_process_outputs"]["logprobs"].shape) == (2, 16)


def test_main_writes_latest_and_a_stamped_copy(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(bench, "MODULES", ("fake",))
    fake = type("Fake", (), {"run": staticmethod(lambda: [{"case": "x", "n": 1}])})
    monkeypatch.setattr(bench.importlib, "import_module", lambda name: fake)
    out, page = tmp_path / "latest.json", tmp_path / "benchmarks.md"
    assert bench.main(["--out", str(out), "--doc", str(page)]) == 0
    doc = json.loads(out.read_text())
    assert "| fake |" not in page.read_text() and "| x | 1 |" in page.read_text()
    assert doc["rows"] == [{"module": "fake", "case": "x", "n": 1}]
    assert doc["machine"]["cores"] >= 1 and "commit" in doc and "loadavg_1m_at_end" in doc
    copies = [p for p in tmp_path.iterdir() if p.name not in ("latest.json", page.name)]
    assert len(copies) == 1 and json.loads(copies[0].read_text()) == doc


@pytest.mark.parametrize(
    ("line", "today"),
    [
        (b"GET /r?cursor=a&wait_s=10 HTTP/1.1", b"GET /r?cursor=a HTTP/1.1"),
        (b"POST /step?wait_s=2.5 HTTP/1.1", b"POST /step HTTP/1.1"),
        (b"GET /r?wait_s=1&max_events=64 HTTP/1.1", b"GET /r?max_events=64 HTTP/1.1"),
        (b"GET /r?a=1&wait_s=1&b=2 HTTP/1.1", b"GET /r?a=1&b=2 HTTP/1.1"),
        (b"GET /r?max_events=64 HTTP/1.1", b"GET /r?max_events=64 HTTP/1.1"),
    ],
)
def test_the_delay_proxys_today_view_drops_only_wait_s(line: bytes, today: bytes):
    from benchmarks._delay import strip_wait_s

    assert strip_wait_s(line) == today


def test_skyrls_pattern_runs_each_call_on_a_fresh_loop_it_never_closes():
    """SkyRL's _run under the trainer's loop: a new thread and a new, unclosed loop a call."""
    from benchmarks._patterns import SkyRLPattern

    seen: list[tuple[asyncio.AbstractEventLoop, int]] = []
    observed: list[str] = []

    class Client:
        async def step(self) -> int:
            seen.append((asyncio.get_running_loop(), threading.get_ident()))
            return len(seen)

        def shutdown(self) -> str:
            return "plain"

    async def trainer() -> tuple[asyncio.AbstractEventLoop, list[int]]:
        client = SkyRLPattern(Client(), lambda name, _seconds: observed.append(name))
        assert client.shutdown() == "plain"  # plain methods pass through
        return asyncio.get_running_loop(), [await client.step() for _ in range(3)]

    outer, results = asyncio.run(trainer())
    loops = [loop for loop, _ in seen]
    assert results == [1, 2, 3] and observed == ["step", "step", "step"]
    assert len({id(loop) for loop in loops}) == 3 and outer not in loops
    assert threading.get_ident() not in {thread for _, thread in seen}
    assert not any(loop.is_closed() for loop in loops)


def test_the_soak_row_compares_the_first_and_last_tenth_of_the_calls():
    from benchmarks.soak import Sample, summary

    samples = [Sample(i, "step", ms=float(i), fds=30 + i // 10, rss_mib=100.0 + i)
               for i in range(1, 101)]  # fmt: skip
    row = summary(samples)
    assert row["calls"] == 100
    assert (row["fds first"], row["fds last"]) == (31, 40)
    assert (row["RSS_MiB first"], row["RSS_MiB last"]) == (110.0, 200.0)
    assert (row["p50_ms first"], row["p50_ms last"]) == (5.5, 95.5)
    assert 9.9 < row["p99_ms first"] <= 10.0 and 99.9 < row["p99_ms last"] <= 100.0


def test_a_bench_run_keeps_the_soak_section_and_a_soak_run_replaces_only_it(
    tmp_path: Path, monkeypatch
):
    from benchmarks import _report

    page = tmp_path / "benchmarks.md"
    _report.replace_section(page, "## soak", "first soak")
    monkeypatch.setattr(bench, "MODULES", ("fake",))
    fake = type("Fake", (), {"run": staticmethod(lambda: [{"case": "x", "n": 1}])})
    monkeypatch.setattr(bench.importlib, "import_module", lambda name: fake)
    assert bench.main(["--out", str(tmp_path / "latest.json"), "--doc", str(page)]) == 0
    text = page.read_text()
    assert "| x | 1 |" in text and text.count("## soak\n\nfirst soak\n") == 1
    _report.replace_section(page, "## soak", "second soak")
    text = page.read_text()
    assert "| x | 1 |" in text and "first soak" not in text
    assert text.count("## soak") == 1 and text.endswith("## soak\n\nsecond soak\n")


def test_the_delay_proxy_counts_new_connections(live_mock):
    """Requests on one kept-alive connection count one connection; a new client, another."""
    import httpx

    from benchmarks.wan import DelayProxy

    proxy = DelayProxy(live_mock.port)
    try:
        proxy.command("set", 0, "today", 0, 2)
        url = f"http://127.0.0.1:{proxy.port}{urlsplit(live_mock.base_url).path}"
        with httpx.Client(headers=live_mock.headers()) as client:
            assert [client.get(f"{url}/capacity").status_code for _ in range(3)] == [200] * 3
        with httpx.Client(headers=live_mock.headers()) as client:
            assert client.get(f"{url}/capacity").status_code == 200
        counts = proxy.counts()
    finally:
        proxy.close()
    assert (counts["connections"], counts["requests"]) == (2, 4)


def test_the_soak_samples_every_call_and_writes_its_plot_and_row(tmp_path: Path):
    """Two GRPO iterations of the soak against its own reference mock (the tool, not the
    client's behaviour: that is for the client's own pattern tests)."""
    from benchmarks import soak

    page, plot, samples = tmp_path / "benchmarks.md", tmp_path / "soak.png", tmp_path / "s.json"
    page.write_text("# Benchmarks\n\n## wan\n\nrows\n")
    argv = ["--calls", "10", "--plot", str(plot), "--samples", str(samples), "--doc", str(page)]
    assert soak.main(argv) == 0
    doc = json.loads(samples.read_text())
    methods = [s["method"] for s in doc["samples"]]
    assert methods[:5] == ["generate", "fwd_no_grad", "fwd_bwd", "step",
                           "sync_weights"] and len(methods) == 10  # fmt: skip
    assert all(s["fds"] > 0 and s["rss_mib"] > 0 and s["ms"] > 0 for s in doc["samples"])
    assert plot.stat().st_size > 0 and doc["row"]["result"] == "ok"
    text = page.read_text()
    assert text.startswith("# Benchmarks\n\n## wan\n\nrows\n") and "| 10 |" in text
