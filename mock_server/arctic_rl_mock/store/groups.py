"""Chunk groups: which chunks of which group are stored, and the group's request.

A group's final chunk row, its request and its binding to it are one transaction
(``finish_group``); a chunk's file is written before its row (:mod:`.files`). At start-up
``reconcile`` makes rows and files agree again after a crash.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from arctic_rl_mock.store.db import Database
from arctic_rl_mock.store.files import StateFiles
from arctic_rl_mock.store.idempotency_records import IdempotencyTable
from arctic_rl_mock.store.requests import RequestTable


class ChunkGroupTable:
    """The ``chunk_groups`` and ``chunks`` tables, beside the chunk files they name; a
    group's final chunk creates its request (``requests``)."""

    def __init__(
        self,
        database: Database,
        files: StateFiles,
        requests: RequestTable,
        idempotency: IdempotencyTable,
    ) -> None:
        self._database = database
        self._files = files
        self._requests = requests
        self._idempotency = idempotency

    def get_group(self, job_id: str, group_id: str) -> dict[str, Any] | None:
        """A chunk group row plus ``chunks``: {idx: chunk_sha256}."""
        row = self._database.one(
            "SELECT * FROM chunk_groups WHERE job_id = ? AND group_id = ?", (job_id, group_id)
        )
        if row is not None:
            rows = self._database.all(
                "SELECT chunk_idx, chunk_sha256 FROM chunks WHERE job_id = ? AND group_id = ?",
                (job_id, group_id),
            )
            row["chunks"] = {r["chunk_idx"]: r["chunk_sha256"] for r in rows}
        return row

    def add_chunk(
        self,
        job_id: str,
        group_id: str,
        descriptor: dict[str, Any],
        operation: str,
        chunk_sha256: str,
        chunk: bytes,
    ) -> None:
        """Persist one accepted non-final chunk: its file, then its row (creating the group)."""
        self._files.write_chunk_file(job_id, group_id, int(descriptor["chunk_idx"]), chunk)
        self._database.hooks.crash_point("chunk_file_written")
        with self._database.transaction() as db:
            self._insert_chunk_row(db, job_id, group_id, descriptor, operation, chunk_sha256)
        self._database.hooks.crash_point("chunk_committed")

    def finish_group(
        self,
        job_id: str,
        group_id: str,
        descriptor: dict[str, Any],
        operation: str,
        chunk: tuple[str, bytes],
        request_id: str,
    ) -> None:
        """The final chunk's file, then its row, the group's request and the group's
        binding to it in one transaction; ``chunk`` is (its digest, its bytes).

        The request's input is ``{"group": group_id}``: after a restart the worker
        re-assembles the frame from the stored chunks, so no decoded value has to outlive
        the process.
        """
        chunk_sha256, body = chunk
        self._files.write_chunk_file(job_id, group_id, int(descriptor["chunk_idx"]), body)
        self._database.hooks.crash_point("final_chunk_file_written")
        with self._database.transaction() as db:
            self._insert_chunk_row(db, job_id, group_id, descriptor, operation, chunk_sha256)
            self._bind_new_request(db, job_id, group_id, request_id, operation)
            self._database.hooks.crash_point("group_uncommitted")
        self._database.hooks.crash_point("group_committed")

    def submit_stored_group(self, job_id: str, group_id: str, request_id: str) -> None:
        """A complete group that has no request yet gets one (start-up reconciliation)."""
        with self._database.transaction() as db:
            row = db.execute(
                "SELECT operation FROM chunk_groups WHERE job_id = ? AND group_id = ?"
                " AND request_id IS NULL",
                (job_id, group_id),
            ).fetchone()
            if row is not None:
                self._bind_new_request(db, job_id, group_id, request_id, row[0])

    def _bind_new_request(
        self, db: sqlite3.Connection, job_id: str, group_id: str, request_id: str, operation: str
    ) -> None:
        """Insert the group's request (its kind is the route in ``operation``) and bind it."""
        kind = operation.split(":", 1)[0]
        self._requests.insert_request(db, request_id, job_id, kind, {"group": group_id})
        db.execute(
            "UPDATE chunk_groups SET request_id = ? WHERE job_id = ? AND group_id = ?",
            (request_id, job_id, group_id),
        )

    @staticmethod
    def _insert_chunk_row(
        db: sqlite3.Connection,
        job_id: str,
        group_id: str,
        descriptor: dict[str, Any],
        operation: str,
        chunk_sha256: str,
    ) -> None:
        db.execute(
            "INSERT OR IGNORE INTO chunk_groups VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
            (
                job_id,
                group_id,
                operation,
                descriptor["frame_sha256"],
                descriptor["frame_size_bytes"],
                descriptor["total_chunks"],
                time.time(),
            ),
        )
        db.execute(
            "INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?)",
            (job_id, group_id, int(descriptor["chunk_idx"]), chunk_sha256),
        )

    def read_chunks(self, job_id: str, group_id: str) -> list[bytes]:
        """The group's stored chunk frames, by index."""
        group = self.get_group(job_id, group_id) or {"chunks": {}}
        directory = self._files.chunk_dir(job_id, group_id)
        return [(directory / f"{idx}.bin").read_bytes() for idx in sorted(group["chunks"])]

    def open_group_ids(self, job_id: str) -> set[str]:
        """The ids of the job's chunk groups that have not become a request yet."""
        rows = self._database.all(
            "SELECT group_id FROM chunk_groups WHERE job_id = ? AND request_id IS NULL",
            (job_id,),
        )
        return {r["group_id"] for r in rows}

    def expired_groups(self, created_before: float) -> list[tuple[str, str]]:
        """(job_id, group_id) of the unfinished groups whose first chunk came before then."""
        rows = self._database.all(
            "SELECT job_id, group_id FROM chunk_groups WHERE request_id IS NULL AND created_at < ?",
            (created_before,),
        )
        return [(r["job_id"], r["group_id"]) for r in rows]

    def drop_group(self, job_id: str, group_id: str) -> None:
        """Forget an unfinished group (its frame failed verification, it expired, or the
        disk filled up while it was stored).

        Its files go first, so a full disk has its space back before the rows are deleted
        (which needs some); rows whose files are gone are what start-up removes anyway.
        """
        self._files.drop_chunk_files(job_id, group_id)
        with self._database.transaction() as db:
            db.execute("DELETE FROM chunks WHERE job_id = ? AND group_id = ?", (job_id, group_id))
            db.execute(
                "DELETE FROM chunk_groups WHERE job_id = ? AND group_id = ?", (job_id, group_id)
            )

    def drop_unfinished_group(self, job_id: str, group_id: str) -> bool:
        """Drop the group if it is still unfinished (expired, or hit by a storage fault);
        whether it was. A group bound to its request stays: that request needs its chunks."""
        row = self.get_group(job_id, group_id)
        if row is None or row["request_id"] is not None:
            return False
        self.drop_group(job_id, group_id)
        return True

    # -- start-up reconciliation -----------------------------------------------------
    def reconcile(self) -> list[tuple[str, str]]:
        """Make what a crash left consistent; the complete groups still without a request.

        Idempotency records naming a request that neither exists nor was pruned are dropped
        (a retry then runs once). Of each group not yet bound to a request, a chunk row
        whose file is gone is deleted (its chunk is accepted again when resent) and so is
        a chunk file no row names (written just before a crash). Chunk files of groups the
        store does not know are deleted. Returns (job_id, group_id) of the unbound groups holding
        every chunk: an older mock stored a final chunk before creating its request.
        """
        with self._database.transaction() as db:
            self._idempotency.drop_unbacked(db)
            groups = db.execute(
                "SELECT job_id, group_id, total_chunks, request_id FROM chunk_groups"
            ).fetchall()
            complete = []
            for job_id, group_id, total, request_id in groups:
                if request_id is None and self._reconcile_group(db, job_id, group_id) == total:
                    complete.append((job_id, group_id))
        self._files.drop_unknown_chunk_dirs({(g[0], g[1]) for g in groups})
        return complete

    def _reconcile_group(self, db: sqlite3.Connection, job_id: str, group_id: str) -> int:
        """Chunk rows and files of one unbound group agree afterwards; how many chunks."""
        directory = self._files.chunk_dir(job_id, group_id)
        rows = {
            r[0]
            for r in db.execute(
                "SELECT chunk_idx FROM chunks WHERE job_id = ? AND group_id = ?",
                (job_id, group_id),
            )
        }
        files = {p.name: p for p in directory.iterdir()} if directory.is_dir() else {}
        lost = [idx for idx in rows if f"{idx}.bin" not in files]
        db.executemany(
            "DELETE FROM chunks WHERE job_id = ? AND group_id = ? AND chunk_idx = ?",
            [(job_id, group_id, idx) for idx in lost],
        )
        named = {f"{idx}.bin" for idx in rows}
        for name, path in files.items():
            if name not in named:
                path.unlink(missing_ok=True)
        return len(rows) - len(lost)
