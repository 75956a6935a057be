"""The ``Idempotency-Key`` promise: a call under a key runs once; a repeat gets its answer.

Whatever state the call creates is stored in one transaction with the record that
answers a retry: the call's :class:`Claim` (a context variable, so the routes' runners
need not pass it along) hands that record to the store call creating the state
(:func:`record_for`). Calls under one key run one at a time (the second then finds the
first one's record); calls under different keys never wait for each other.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from cortex_gs_contract import ErrorCode

from arctic_rl_mock.errors import ApiError
from arctic_rl_mock.services.chunk_group import sha256_hex
from arctic_rl_mock.services.keyed_locks import KeyedLocks
from arctic_rl_mock.store import IdempotencyRecord, Store

Runner = Callable[[], Awaitable[tuple[int, Any]]]


@dataclass
class Claim:
    """The ``Idempotency-Key`` of the call being run; ``take`` makes its one record."""

    scope: str
    key: str
    body_hash: str
    taken: bool = False

    def take(self, status: int, response: Any, request_id: str | None) -> IdempotencyRecord:
        self.taken = True
        return IdempotencyRecord(self.scope, self.key, self.body_hash, status, response, request_id)


# Set by ``Idempotency.run`` around the call it runs; each asyncio task sees only its own.
_CLAIM: contextvars.ContextVar[Claim | None] = contextvars.ContextVar("claim", default=None)


def record_for(
    status: int, response: Any, request_id: str | None = None
) -> IdempotencyRecord | None:
    """The record to store with the state this answer reports, when a key asked for one."""
    claim = _CLAIM.get()
    return None if claim is None or claim.taken else claim.take(status, response, request_id)


class IdempotencyKeys:
    """Runs calls under their keys (only successes are remembered)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._locks: KeyedLocks[tuple[str, str]] = KeyedLocks()

    async def run(self, scope: str, key: str | None, body: Any, run: Runner) -> tuple[int, Any]:
        """``run`` once per (scope, key) and body; a repeat answers the first success."""
        if key is None:
            return await run()
        body_hash = sha256_hex(_canonical(body))
        async with self._locks.hold((scope, key)):
            record = await asyncio.to_thread(self.store.idempotency.get_idempotent, scope, key)
            if record is not None:
                if record["body_hash"] != body_hash:
                    raise ApiError(
                        409,
                        ErrorCode.idempotency_key_conflict,
                        "Idempotency-Key was already used with a different body",
                    )
                return int(record["status"]), record["response"]
            claim = Claim(scope, key, body_hash)
            token = _CLAIM.set(claim)
            try:
                status, response = await run()
            finally:
                _CLAIM.reset(token)
            if status < 300 and not claim.taken:
                # An answer that created nothing (an inline operation): remember it alone.
                record = claim.take(status, response, None)
                await asyncio.to_thread(self.store.idempotency.put_idempotent, record)
            return status, response


def _canonical(body: Any) -> bytes:
    """Key-order-independent JSON, so equal bodies hash equally for Idempotency-Key."""
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
