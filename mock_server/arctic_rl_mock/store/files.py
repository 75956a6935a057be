"""Where the mock's files live under --state-dir, and the chunk files themselves.

Files are written before the rows that name them, so a crash leaves at most a file
without a row, which start-up reconciliation removes. A write that fails (a full disk, an
I/O error) removes what it wrote: no half-written file outlives its error.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import Any

from arctic_rl_mock.hooks import Hooks

STAGING_PREFIX = ".staging-"  # a checkpoint being written (renamed into place when whole)


def safe(part: str) -> str:
    """Ids are pattern-checked before they get here; this is belt and braces for paths."""
    if not part or "/" in part or part in (".", "..") or "\\" in part:
        raise ValueError(f"unsafe path component {part!r}")
    return part


class StateFiles:
    """Paths under the state directory and the chunk files of chunk groups."""

    def __init__(self, root: Path, hooks: Hooks | None = None) -> None:
        self.root = root
        self.hooks = hooks or Hooks()  # every file is written through them

    def checkpoint_dir(self, job_id: str, checkpoint_id: str) -> Path:
        """Where a checkpoint's files live."""
        return self.root / "checkpoints" / safe(job_id) / safe(checkpoint_id)

    def staging_dir(self, job_id: str, request_id: str) -> Path:
        """Where a save writes a checkpoint before it is renamed into place."""
        return self.root / "checkpoints" / safe(job_id) / f"{STAGING_PREFIX}{safe(request_id)}"

    def drop_staging(self) -> list[Path]:
        """Remove every checkpoint staging folder (a save cut by a crash left it); the
        folders removed."""
        found = sorted((self.root / "checkpoints").glob(f"*/{STAGING_PREFIX}*"))
        for folder in found:
            shutil.rmtree(folder, ignore_errors=True)
        return found

    def chunk_dir(self, job_id: str, group_id: str) -> Path:
        """Where a group's accepted chunk frames live until the group runs."""
        return self.root / "chunks" / safe(job_id) / safe(group_id)

    def input_path(self, request_id: str) -> Path:
        """Where a bare frame's input waits on disk until it runs."""
        return self.root / "inputs" / f"{safe(request_id)}.bin"

    def backend_dir(self, job_id: str) -> Path:
        """Where the backend keeps the job's model state between restarts."""
        return self.root / "backend" / safe(job_id)

    def write_chunk_file(self, job_id: str, group_id: str, chunk_idx: int, chunk: bytes) -> None:
        """Put a chunk's bytes on disk before any row names them.

        Written in place (no temporary and rename): its row is committed only after the
        write returns, a write that fails removes its file, and a file a crash cut short
        has no row, so start-up removes it.
        """
        path = self.chunk_dir(job_id, group_id) / f"{chunk_idx}.bin"
        try:
            _write_whole(self.hooks, path, chunk)
        except FileNotFoundError:  # the group's first chunk: make its folder
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_whole(self.hooks, path, chunk)

    def write_input(self, request_id: str, frame: bytes | memoryview) -> str:
        """Keep a bare frame on disk until its request runs; the file's name."""
        path = self.input_path(request_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_whole(self.hooks, path, frame)
        return path.name

    def drop_request_files(self, job_id: str, payload: dict[str, Any]) -> None:
        """Remove a request's input files (its chunk group's, or its bare frame) once it
        no longer needs them; ``payload`` is its stored input."""
        if "group" in payload:
            self.drop_chunk_files(job_id, payload["group"])
        elif "frame" in payload:
            (self.root / "inputs" / payload["frame"]).unlink(missing_ok=True)

    def drop_input(self, request_id: str) -> None:
        """Remove a bare frame's file (its request was never stored)."""
        self.input_path(request_id).unlink(missing_ok=True)

    def drop_inputs_except(self, request_ids: set[str]) -> None:
        """Remove the bare frames' files of every request but ``request_ids`` (start-up)."""
        for path in (self.root / "inputs").glob("*.bin"):
            if path.stem not in request_ids:
                path.unlink(missing_ok=True)

    def drop_chunk_files(self, job_id: str, group_id: str) -> None:
        """Free a group's chunk bytes once its request no longer needs them.

        Its folder holds only chunk files: unlinking them is cheaper than ``rmtree``
        (which runs once per group request).
        """
        directory = self.chunk_dir(job_id, group_id)
        try:
            names = os.listdir(directory)
        except FileNotFoundError:
            return
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(directory / name)
        with contextlib.suppress(OSError):
            directory.rmdir()

    def drop_unknown_chunk_dirs(self, known: set[tuple[str, str]]) -> None:
        """Remove the chunk folders of groups the store does not know (start-up)."""
        root = self.root / "chunks"
        if not root.is_dir():
            return
        for job_dir in root.iterdir():
            for group_dir in job_dir.iterdir() if job_dir.is_dir() else ():
                if (job_dir.name, group_dir.name) not in known:
                    shutil.rmtree(group_dir, ignore_errors=True)


def _write_whole(hooks: Hooks, path: Path, data: bytes | memoryview) -> None:
    """Write a file whole or not at all: a failed write removes what it wrote."""
    try:
        hooks.write_file(path, data)
    except FileNotFoundError:  # its folder is missing: nothing was written
        raise
    except BaseException:
        path.unlink(missing_ok=True)
        raise
