"""A process whose service has gone away exits in seconds: cancelling its job at exit is
best effort within a small fixed budget, said in one line, never the whole retry budget."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from .conftest import PAT_ENV

# Generous: the budget is a few seconds; the full retry budget took over a minute.
EXIT_BOUND_S = 15.0
START_BOUND_S = 60.0

# Starts a mock in this process, creates a job through the legacy factory (which cancels
# it at exit), stops the mock, says so, and ends: the job's cancel runs at exit.
SCRIPT = textwrap.dedent(
    f"""
    import os, sys
    from pathlib import Path
    from arctic_rl_mock.settings import Settings
    from devtools.live_mock import LiveMock
    from arctic_rl import create_arctic_rl_client

    mock = LiveMock(Settings(state_dir=Path(sys.argv[1]), token="exit-test-pat")).start()
    os.environ[{PAT_ENV!r}] = mock.token
    client = create_arctic_rl_client({{
        "backend": "cortex", "model_name": "tiny-byte-lm", "training_gpus": 1,
        "sampling_gpus": 1, "cortex": {{"base_url": mock.base_url, "pat_env": {PAT_ENV!r}}},
    }})
    mock.stop()
    print("gone", client.job_id, flush=True)
    """
)


def test_a_process_whose_service_went_away_exits_in_seconds_saying_so(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # once the service has gone away
        assert line.startswith("gone job-"), line
        job_id = line.split()[1]
        process.wait(EXIT_BOUND_S)
    finally:
        process.kill()
        _, stderr = process.communicate(timeout=START_BOUND_S)
    said = [line for line in stderr.splitlines() if "best effort" in line]
    assert len(said) == 1, stderr
    assert job_id in said[0] and "not cancelled" in said[0]
