"""`make fuzz` keeps to its stated time and runs what passes: --max-time bounds the whole
run (both views share it), one worker (two crash CPython 3.11's AST constructor through
hypothesis), and the fuzz config accepts the documented refusals a schema cannot state."""

from __future__ import annotations

import tomllib

from repo_scripts import load_script

fuzz = load_script("fuzz")


def test_max_time_bounds_the_whole_run_not_each_view():
    views, share = fuzz.planned_views(fuzz.parse_args([]))
    assert views == ["today", "full"]
    assert share * len(views) <= 420
    command = fuzz.schemathesis_command("http://127.0.0.1:1", fuzz.parse_args([]), "today", share)
    assert command[command.index("--max-time") + 1] == str(share)
    assert fuzz.planned_views(fuzz.parse_args(["--view", "full"]))[1] == 420


def test_one_worker_by_default():
    command = fuzz.schemathesis_command("http://127.0.0.1:1", fuzz.parse_args([]), "full", 10)
    assert command[command.index("--workers") + 1] == "1"


def test_log_probs_may_refuse_a_sequence_longer_than_the_jobs_limit():
    config = tomllib.loads((fuzz.ROOT / "schemathesis.toml").read_text(encoding="utf-8"))
    entries = [e for e in config["operations"] if "log_probs" in e["include-operation-id"]]
    assert len(entries) == 1
    assert "422" in entries[0]["checks"]["positive_data_acceptance"]["expected-statuses"]


def test_load_checkpoint_may_answer_its_documented_501():
    config = tomllib.loads((fuzz.ROOT / "schemathesis.toml").read_text(encoding="utf-8"))
    entries = [e for e in config["operations"] if "load_checkpoint" in e["include-operation-id"]]
    assert len(entries) == 1
    assert entries[0]["include-operation-id"] == ["load_checkpoint"]
    assert "501" in entries[0]["checks"]["not_a_server_error"]["expected-statuses"]
