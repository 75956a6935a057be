"""A job's backend state on disk, so a restarted mock continues where it stopped.

A job's state directory holds blob files (``<part>-<revision>.pt``: ``torch.save`` of
tensors, read back with ``weights_only``) and two generation files, ``state-0.json`` and
``state-1.json``, each naming its blobs and carrying the small counters. A commit writes
only the parts that changed, under fresh names (a part equal to another may name that
one's file instead), then writes the new generation over the older one in place; the
previous generation stays untouched in the other file. In place, not temp file + rename:
a rename over an existing file makes ext4 flush the data at once, which cost ~0.2 ms per
canned step; a generation file starts with its payload's length and SHA-256, so a write
cut short by a kill reads as unreadable, never as wrong state. Nothing is fsynced: this
survives a killed process (what a mock restart is), not a power cut.

Each generation is tagged with the request that produced it. The worker commits right
before it stores that request as ``done``, so at restore the newest readable generation
whose request is ``done`` (or that no request produced) is the state the store agrees
with: a request killed between its commit and ``done`` is rolled back (its generation
file may be torn: the same case), and running it again applies it once. A restore also
removes every newer generation it passed over, with the blobs only those named: the
worker restores (rolls back) before it stores a request as ``failed``, so once a
request is reported failed no file of its state is left for a later restore to take,
even after retention has pruned its row.

Every file goes through the app's :class:`~arctic_rl_mock.hooks.Hooks`, so a storage-fault
test fails these writes as it fails the store's; a blob cut short is removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from cortex_gs_contract import ErrorCode
from safetensors import safe_open

from arctic_rl_mock.backends import BackendError
from arctic_rl_mock.hooks import Hooks

SLOTS = ("state-0.json", "state-1.json")
FORMAT = 1
BLOB_SUFFIX = ".pt"

Applied = Callable[[str], bool]


@dataclass(frozen=True)
class Generation:
    """One committed state: the request behind it, its counters and its blob files."""

    revision: int
    request_id: str | None
    counters: dict[str, Any]
    blobs: dict[str, str]


class SavedState:
    """Commits and restores one job's backend state under ``directory``, writing through
    ``hooks``."""

    def __init__(self, directory: Path, backend: str, hooks: Hooks) -> None:
        self.directory = directory
        self.backend = backend
        self.hooks = hooks
        self._revision = 0
        self._kept: list[Generation] = []  # newest first, at most two
        self._slot: int | None = None  # the file holding the newest generation

    @classmethod
    def fresh(cls, directory: Path, backend: str, hooks: Hooks) -> SavedState:
        """An empty state directory (whatever an earlier life left there is dropped)."""
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        return cls(directory, backend, hooks)

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
                self._write_blob(self.directory / name, value)
                blobs[part] = name
        for part, source in (same_as or {}).items():
            blobs[part] = blobs[source]
        new = Generation(self._revision, request_id, dict(counters), blobs)
        slot = 0 if self._slot is None else 1 - self._slot
        record = {"format": FORMAT, "backend": self.backend, **asdict(new)}
        payload = json.dumps(record).encode()
        header = f"{len(payload)} {hashlib.sha256(payload).hexdigest()}\n".encode()
        # In place: a rename or truncation would make ext4 flush (see the module docstring).
        self.hooks.write_file(self.directory / SLOTS[slot], header + payload, in_place=True)
        dropped, self._kept, self._slot = self._kept[1:], [new, *self._kept[:1]], slot
        named = {name for g in self._kept for name in g.blobs.values()}
        if parts or any(set(g.blobs.values()) - named for g in dropped):
            self._sweep(named)

    def _write_blob(self, path: Path, value: Any) -> None:
        """``torch.save`` of ``value`` to ``path``, whole or not at all."""
        buffer = io.BytesIO()
        torch.save(value, buffer)
        try:
            self.hooks.write_file(path, buffer.getbuffer())
        except BaseException:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
            raise

    @classmethod
    def restore(
        cls,
        directory: Path,
        backend: str,
        applied: Applied,
        hooks: Hooks,
        device: torch.device | None = None,
    ) -> tuple[SavedState, dict[str, Any], dict[str, Any]]:
        """The saved state, its newest applied generation's counters and loaded blobs.

        The newer generations it passes over are removed (see the module docstring).
        Raises :class:`BackendError` when the state is missing, unreadable, written by
        another backend, or names no generation the store agrees with.
        """
        found = _read_generations(directory, backend)
        usable = [(s, g) for s, g in found if g.request_id is None or applied(g.request_id)]
        if not usable:
            raise state_lost("no saved generation matches a finished request")
        slot, chosen = usable[0]
        try:
            files = {
                name: torch.load(directory / name, map_location=device, weights_only=True)
                for name in set(chosen.blobs.values())
            }
            parts = {part: files[name] for part, name in chosen.blobs.items()}
        except Exception as exc:  # a truncated or foreign file: torch raises many types
            raise state_lost(f"a state file is unreadable ({type(exc).__name__})") from exc
        state = cls(directory, backend, hooks)
        state._revision = found[0][1].revision
        state._kept, state._slot = [chosen], slot  # a rolled-back generation's slot is next
        state._forget_newer(found, chosen)
        return state, dict(chosen.counters), parts

    def _forget_newer(self, found: list[tuple[int, Generation]], chosen: Generation) -> None:
        """Remove the generations newer than ``chosen`` (rolled back) and the blobs only
        they name."""
        newer = [slot for slot, g in found if g.revision > chosen.revision]
        for slot in newer:
            (self.directory / SLOTS[slot]).unlink()
        if newer:
            kept = (g for _, g in found if g.revision <= chosen.revision)
            self._sweep({name for g in kept for name in g.blobs.values()})

    def _sweep(self, named: set[str]) -> None:
        """Remove blobs no kept generation names (superseded, or orphaned by a crash)."""
        for path in self.directory.glob(f"*{BLOB_SUFFIX}"):
            if path.name not in named:
                path.unlink(missing_ok=True)


def _read_generations(directory: Path, backend: str) -> list[tuple[int, Generation]]:
    """The readable generation files as (slot, generation), newest first."""
    found: list[tuple[int, Generation]] = []
    unreadable = []
    for slot, name in enumerate(SLOTS):
        try:
            record = _read_record(directory / name)
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            unreadable.append(f"{name}: {exc}")
            continue
        if record.get("format") != FORMAT or record.get("backend") != backend:
            raise state_lost(
                f"{name} was written by the {record.get('backend')!r} backend (format"
                f" {record.get('format')!r}), and this mock runs the {backend!r} backend"
                f" (format {FORMAT})"
            )
        fields = {k: v for k, v in record.items() if k not in ("format", "backend")}
        try:
            generation = Generation(**fields)
        except TypeError as exc:
            unreadable.append(f"{name}: {exc}")
            continue
        if not isinstance(generation.revision, int) or not isinstance(generation.blobs, dict):
            unreadable.append(f"{name}: malformed")
            continue
        found.append((slot, generation))
    if not found:
        why = f"its state files are unreadable ({'; '.join(unreadable)})" if unreadable else ""
        raise state_lost(why or "there is no saved state for it")
    return sorted(found, key=lambda pair: pair[1].revision, reverse=True)


def _read_record(path: Path) -> dict[str, Any]:
    """One generation file's record; ``ValueError`` when torn or altered."""
    header, _, rest = path.read_bytes().partition(b"\n")
    length, digest = header.decode("ascii").split()
    payload = rest[: int(length)]
    if len(payload) != int(length) or hashlib.sha256(payload).hexdigest() != digest:
        raise ValueError("length or checksum does not match")
    record = json.loads(payload)
    if not isinstance(record, dict):
        raise ValueError("not an object")
    return record


def state_lost(why: str) -> BackendError:
    """The error that fails a job whose state cannot come back."""
    return BackendError(ErrorCode.internal_error, f"backend state lost at a mock restart: {why}")


def file_metadata(path: Path) -> dict[str, str]:
    """A safetensors file's metadata (its header alone is read)."""
    with safe_open(str(path), framework="pt") as saved:
        return dict(saved.metadata() or {})
