"""The mock's edges: a full disk during a checkpoint write, its staging folders, and the
command lines of the mock and the kit.

The full disk is the mock's storage-fault hook (``devtools.mock_hooks``): the mock's file writes,
the safetensors checkpoint's included, fail with ENOSPC once the disk's room is spent.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.live_mock import MockApi, serving_in_process
from devtools.mock_hooks import DEPART_ENV, STORAGE_FAULT_ENV
from devtools.mock_hooks.departures import DEPARTURES

ROOM = 1 << 30  # the storage-fault hook's disk, before the test takes its room away


def staging_folders(state_dir: Path) -> list[Path]:
    return sorted((state_dir / "checkpoints").glob("*/.staging-*"))


@pytest.mark.parametrize("backend", ["reference", "canned"])
def test_a_full_disk_during_a_checkpoint_write_is_storage_full_and_leaves_no_staging(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(STORAGE_FAULT_ENV, f"ENOSPC:{ROOM}")
    with serving_in_process(tmp_path, test_hooks=True, backend=backend) as mock:
        api = MockApi(mock)
        job_id = api.create_job()
        disk = mock.app.state.hooks.disk
        disk.grow(-disk.free_bytes())  # no room left: no checkpoint file fits
        submitted = api.http.post(f"/{job_id}/save", json={})
        assert submitted.status_code == 202, submitted.text
        status = api.wait(job_id, submitted.json()["request_id"])
        assert (status["status"], status.get("error_code")) == ("failed", "storage_full"), status
        assert staging_folders(tmp_path) == []
        disk.grow(ROOM)  # space returns: the same save succeeds
        saved = api.http.post(f"/{job_id}/save", json={})
        assert api.wait(job_id, saved.json()["request_id"])["status"] == "done"
        api.close()


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A real 64 MiB tmpfs for the mock's state (skipped, saying why, where one cannot be
    mounted; the suite runs as root)."""
    state = tmp_path / "tmpfs"
    state.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(state)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield state
    finally:
        subprocess.run(["umount", "-l", str(state)], check=False)


def test_a_real_full_disk_during_a_safetensors_checkpoint_is_storage_full(tmpfs: Path) -> None:
    """The disk is filled to half a checkpoint's size (measured on a first save)."""
    with serving_in_process(tmpfs, backend="reference") as mock:
        api = MockApi(mock)
        job_id = api.create_job()
        first = api.http.post(f"/{job_id}/save", json={"checkpoint_type": "weights-only"})
        assert api.wait(job_id, first.json()["request_id"])["status"] == "done"
        size = sum(p.stat().st_size for p in (tmpfs / "checkpoints").rglob("*") if p.is_file())
        free = os.statvfs(tmpfs).f_bavail * os.statvfs(tmpfs).f_frsize
        with (tmpfs / "filler").open("wb") as filler:
            filler.write(b"\0" * (free - size // 2))
        submitted = api.http.post(f"/{job_id}/save", json={"checkpoint_type": "weights-only"})
        status = api.wait(job_id, submitted.json()["request_id"])
        assert (status["status"], status.get("error_code")) == ("failed", "storage_full"), status
        assert staging_folders(tmpfs) == []
        (tmpfs / "filler").unlink()
        again = api.http.post(f"/{job_id}/save", json={"checkpoint_type": "weights-only"})
        assert api.wait(job_id, again.json()["request_id"])["status"] == "done"
        api.close()


def test_staging_folders_a_crash_left_are_removed_at_start_up(tmp_path: Path) -> None:
    with serving_in_process(tmp_path) as mock:
        api = MockApi(mock)
        job_id = api.create_job()
        api.close()
        left = tmp_path / "checkpoints" / job_id / ".staging-req-cut"
        left.mkdir(parents=True)
        (left / "model.safetensors").write_bytes(b"half a checkpoint")
        mock.restart()
        assert staging_folders(tmp_path) == []


def run_mock_cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The mock that plants faults (``python -m devtools.mock_hooks``), run from the checkout."""
    environ = {**os.environ, "CORTEX_GS_MOCK_TOKEN": "t", **env}
    command = [sys.executable, "-m", "devtools.mock_hooks", *args]
    return subprocess.run(command, env=environ, capture_output=True, text=True, timeout=60)


def test_the_mock_lists_its_planted_faults_in_its_help() -> None:
    shown = run_mock_cli("--help")
    assert shown.returncode == 0
    help_text = " ".join(shown.stdout.split())
    for name in DEPARTURES:
        assert name in help_text
    assert DEPART_ENV in help_text and STORAGE_FAULT_ENV in help_text


def test_an_unknown_planted_fault_is_refused_in_one_line(tmp_path: Path) -> None:
    refused = run_mock_cli(
        "--state-dir", str(tmp_path), **{DEPART_ENV: "wrong-status,no-such-fault"}
    )
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1, refused.stderr
    assert "no-such-fault" in lines[0] and "renamed-required-field" in lines[0]
    assert "Traceback" not in refused.stderr


def test_the_kit_without_its_extra_names_the_extra_in_one_line() -> None:
    """schemathesis absent (as without ``arctic-rl[kit]``): one line, exit status 2; the
    console script's own entry (``arctic_rl_kit.cli:main``), as installed."""
    code = (
        "import sys; sys.modules['schemathesis'] = None; "
        "from arctic_rl_kit.cli import main; "
        "sys.exit(main(['--url', 'http://127.0.0.1:1/api', '--pat-env', 'KIT_PAT']))"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 2
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1, ran.stderr
    assert "arctic-rl[kit]" in lines[0] and "schemathesis" in lines[0]
