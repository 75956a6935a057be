"""Keep examples/grpo_demo.py from rotting: its loop, a few iterations, against a live mock."""

from __future__ import annotations

import contextlib
import math
import os
import subprocess
import sys

import pytest
import torch

from arctic_rl import _shim
from examples import demo_report as report
from examples import grpo_demo as demo


@pytest.fixture
def selected_in_process(monkeypatch):
    """The demo selects Cortex in this process (hook + routing); undo both afterwards."""
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    for name in ("arctic_platform.rl", "arctic_platform.rl.ray_server"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield
    _shim.route_on_prem_to_cortex(False)
    for name in ("arctic_platform.rl", "arctic_platform.rl.ray_server"):
        sys.modules.pop(name, None)


async def test_loop_runs_through_arctic_platform_rl(
    live_mock, monkeypatch, tmp_path, selected_in_process
):
    """Three iterations of SkyRL's call sequence on the client SkyRL's way in returns.

    The canned backend parses batches exactly as the reference one does, so a shape the
    demo gets wrong fails here too; whether the policy learns is `make demo`'s verdict.
    """
    mock = live_mock
    monkeypatch.setenv(demo.PAT_ENV, mock.token)
    settings = demo.DemoSettings(iterations=3, group_size=2, max_tokens=4)
    client = demo.create_client(mock.base_url, settings)
    seen: list[int] = []
    try:
        platform_rl = sys.modules["arctic_platform.rl"]
        assert type(demo.client_config(settings)) is platform_rl.ArcticRLClientConfig
        assert client.config.backend == "cortex"  # "local", as SkyRL builds it, served by Cortex
        history = await demo.train(client, settings, lambda s: seen.append(s.iteration))
        checkpoint = await client.save_checkpoint()
    finally:
        client.shutdown()
    assert seen == [1, 2, 3]
    assert [s.iteration for s in history] == seen
    for stats in history:
        assert 0.0 <= stats.reward <= 1.0
        assert math.isfinite(stats.loss) and math.isfinite(stats.grad_norm)
        assert report.table_row(stats).split()[0] == str(stats.iteration)
        assert set(stats.phases) == set(report.PHASES)  # the time panel's bars
        assert stats.phases["compute_s"] > 0 and sum(stats.phases.values()) <= stats.seconds
    assert checkpoint.get("checkpoint_id")
    png = report.plot(history, tmp_path / "plot.png", settings.target)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_group_advantages_are_relative_to_each_group():
    adv = demo.group_advantages(torch.tensor([0.0, 1.0, 0.5, 0.5]), group_size=2)
    assert adv[0] < 0 < adv[1]
    assert adv[2:].abs().max() < 1e-6  # a group with one reward teaches nothing


def test_batch_is_left_padded_prompts_and_right_padded_responses():
    batch = demo.build_batch([[1, 2, 3], [4]], [[7], [8, 9]])
    assert batch["input_ids"].tolist() == [[1, 2, 3, 7, 0], [0, 0, 4, 8, 9]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1, 1, 0], [0, 0, 1, 1, 1]]
    assert batch["position_ids"][1].tolist() == [0, 0, 0, 1, 2]
    assert batch["response_mask"].tolist() == [[1, 0], [1, 1]]
    assert batch["prompts"].shape == (2, 3) and batch["responses"].shape == (2, 2)


def test_reward_and_verdict():
    assert demo.reward([97, 97, 98, 256], 97, max_tokens=8) == 0.25
    flat = [report.IterationStats(i, 0.1, 0.0, 0.0, 0.0, 0.0, "") for i in range(10)]
    rising = [report.IterationStats(i, i / 10, 0.0, 0.0, 0.0, 0.0, "") for i in range(10)]
    assert not report.learned(flat)
    assert report.learned(rising)


def test_samples_print_on_one_line():
    assert report.printable("ab\x1b\n\ufffdc") == "ab\u00b7\u00b7\u00b7c"


def test_main_reports_a_mock_that_does_not_start(monkeypatch, tmp_path, capsys):
    @contextlib.contextmanager
    def broken(*_args, **_kwargs):
        raise RuntimeError("the mock exited with status 2")
        yield ""

    monkeypatch.setattr(demo, "running_mock", broken)
    monkeypatch.setattr(demo.torch, "set_num_threads", lambda _n: None)
    assert demo.main(["--iterations", "1", "--out", str(tmp_path / "p.png")]) == 1
    assert "FAILED: RuntimeError: the mock exited with status 2" in capsys.readouterr().err


def test_main_end_to_end_says_when_nothing_was_learned(
    live_mock, monkeypatch, tmp_path, capsys, selected_in_process
):
    """The whole main() against the canned mock, whose rewards cannot rise: exit 1, said so."""

    @contextlib.contextmanager
    def canned(*_args, **_kwargs):
        monkeypatch.setenv(demo.PAT_ENV, live_mock.token)
        yield live_mock.base_url

    monkeypatch.setattr(demo, "running_mock", canned)
    monkeypatch.setattr(demo.torch, "set_num_threads", lambda _n: None)  # leave the suite's
    out = tmp_path / "plot.png"
    assert demo.main(["--iterations", "2", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "not clearly above the first" in captured.err
    assert "checkpoint: " in captured.out and out.is_file()


def test_the_demo_explains_itself_with_help():
    done = subprocess.run(
        [sys.executable, str(demo.REPO / "examples" / "grpo_demo.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "COLUMNS": "200"},  # one line per option
    )
    assert "GRPO iterations to run (default" in done.stdout
    assert "needs no token or account" in done.stdout


def test_off_a_terminal_the_progress_bar_stays_out_of_the_table():
    bar = report.progress_bar(3)  # pytest's captured stderr is not a terminal
    try:
        assert bar.disable
    finally:
        bar.close()


def test_the_time_panel_draws_the_phases_that_matter_and_groups_the_rest():
    """A phase under 5% of the run's time joins "other", named in its label."""
    phases = {"encode_s": 0.01, "upload_s": 0.02, "queue_s": 0.0, "compute_s": 0.8}
    phases |= {"latency_s": 0.1, "download_s": 0.01}
    history = [report.IterationStats(1, 0.0, 0.0, 0.0, 0.0, 1.0, "", phases)]
    groups = report.time_groups(history)
    assert list(groups) == [
        "compute",
        "latency",
        "other (encode, upload, download)",
        "between calls",
    ]
    assert groups["other (encode, upload, download)"] == [pytest.approx(0.04)]
    assert groups["between calls"] == [pytest.approx(0.06)]
