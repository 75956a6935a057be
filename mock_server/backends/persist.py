"""A job's backend state on disk, so a restarted mock continues where it stopped.

A job's state directory holds blob files (``<part>-<revision>.pt``: ``torch.save`` of
tensors, read back with ``weights_only``) and ``manifest.json``, which names the blobs and
carries the small counters. A commit writes only the parts that changed, under fresh
names (a part equal to another may name that one's file instead), then replaces the
manifest atomically (temp file + rename) and removes the blobs no
generation names any more. A process killed at any point leaves the old or the new
manifest, each naming complete blobs. Nothing is fsynced: this survives a killed process
(what a mock restart is), not a power cut.

The manifest keeps two generations, each tagged with the request that produced it. The
worker commits before it stores that request as ``done``, so at restore the newest
generation whose request is ``done`` (or that no request produced) is the state the store
agrees with: a request killed between the commit and ``done`` is rolled back, and
running it again applies it once.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from cortex_gs_contract import ErrorCode

from mock_server.backends import BackendError

MANIFEST = "manifest.json"
FORMAT = 1
BLOB_SUFFIX = ".pt"

Applied = Callable[[str], bool]


@dataclass(frozen=True)
class Generation:
    """One committed state: the request behind it, its counters and its blob files."""

    request_id: str | None
    counters: dict[str, Any]
    blobs: dict[str, str]


class SavedState:
    """Commits and restores one job's backend state under ``directory``."""

    def __init__(self, directory: Path, backend: str) -> None:
        self.directory = directory
        self.backend = backend
        self._revision = 0
        self._kept: list[Generation] = []  # newest first, at most two

    @classmethod
    def fresh(cls, directory: Path, backend: str) -> SavedState:
        """An empty state directory (whatever an earlier life left there is dropped)."""
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        return cls(directory, backend)

    def commit(
        self,
        request_id: str | None,
        counters: Mapping[str, Any],
        parts: Mapping[str, Any],
        same_as: Mapping[str, str] | None = None,
    ) -> None:
        """A new generation; ``parts`` are the blobs that changed (``None`` drops one).

        ``same_as`` maps a changed part to another whose file holds its content (after
        this commit's writes), so equal content is written once.
        """
        self._revision += 1
        blobs = dict(self._kept[0].blobs) if self._kept else {}
        for part, value in parts.items():
            blobs.pop(part, None)
            if value is not None:
                name = f"{part}-{self._revision}{BLOB_SUFFIX}"
                torch.save(value, self.directory / name)
                blobs[part] = name
        for part, source in (same_as or {}).items():
            blobs[part] = blobs[source]
        self._kept = [Generation(request_id, dict(counters), blobs), *self._kept[:1]]
        manifest = {
            "format": FORMAT,
            "backend": self.backend,
            "revision": self._revision,
            "generations": [asdict(g) for g in self._kept],
        }
        temp = self.directory / f"{MANIFEST}.tmp"
        temp.write_text(json.dumps(manifest))
        os.replace(temp, self.directory / MANIFEST)
        self._sweep()

    @classmethod
    def restore(
        cls, directory: Path, backend: str, applied: Applied, device: torch.device | None = None
    ) -> tuple[SavedState, dict[str, Any], dict[str, Any]]:
        """The saved state, its newest applied generation's counters and loaded blobs.

        Raises :class:`BackendError` when the state is missing, unreadable, written by
        another backend, or names no generation the store agrees with.
        """
        manifest = _read_manifest(directory)
        if manifest.get("format") != FORMAT:
            raise state_lost(f"its format {manifest.get('format')!r} is not {FORMAT}")
        if manifest.get("backend") != backend:
            raise state_lost(
                f"it was written by the {manifest.get('backend')!r} backend,"
                f" and this mock runs the {backend!r} backend"
            )
        try:
            kept = [Generation(**g) for g in manifest["generations"]]
            revision = int(manifest["revision"])
        except (KeyError, TypeError, ValueError) as exc:
            raise state_lost(f"its manifest is malformed ({type(exc).__name__})") from exc
        usable = [g for g in kept if g.request_id is None or applied(g.request_id)]
        if not usable:
            raise state_lost("no saved generation matches a finished request")
        chosen = usable[0]
        try:
            files = {
                name: torch.load(directory / name, map_location=device, weights_only=True)
                for name in set(chosen.blobs.values())
            }
            parts = {part: files[name] for part, name in chosen.blobs.items()}
        except Exception as exc:  # a truncated or foreign file: torch raises many types
            raise state_lost(f"a state file is unreadable ({type(exc).__name__})") from exc
        state = cls(directory, backend)
        state._revision = revision
        state._kept = [chosen]
        return state, dict(chosen.counters), parts

    def _sweep(self) -> None:
        """Remove blobs no kept generation names (superseded, or orphaned by a crash)."""
        named = {name for g in self._kept for name in g.blobs.values()}
        for path in self.directory.glob(f"*{BLOB_SUFFIX}"):
            if path.name not in named:
                path.unlink(missing_ok=True)


def _read_manifest(directory: Path) -> dict[str, Any]:
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError as exc:
        raise state_lost("there is no saved state for it") from exc
    except (OSError, ValueError) as exc:
        raise state_lost(f"its manifest is unreadable ({type(exc).__name__})") from exc
    if not isinstance(manifest, dict):
        raise state_lost("its manifest is not an object")
    return manifest


def state_lost(why: str) -> BackendError:
    """The error that fails a job whose state cannot come back."""
    return BackendError(ErrorCode.internal_error, f"backend state lost at a mock restart: {why}")
