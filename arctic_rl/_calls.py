"""Call identity: a call whose caller went away is answered, never run a second time.

A call that asks the service for work carries an identity the service deduplicates on:
an upload's chunk group id or a JSON submit's ``Idempotency-Key``, then the request id the
service answered. Without more, every call draws a fresh one, so a call interrupted after
its submit left (Ctrl-C in a blocking call, a cancelled task, a framework's event loop
dropped mid-call) and then made again would run twice: two optimizer steps, gradients
accumulated twice.

So each client keeps a `CallRegistry` of its calls in flight, keyed by the operation, the
job and a digest of the body as the caller gave it (`CallKey`). A call whose caller is
gone (`_io_loop.Caller`) stays there, with its identity and, once it ends, its result. The
next identical call of that client takes it over instead of starting afresh: it waits for
it if it still runs, is answered by its result if it had one, else carries on under its
identity (polls the accepted request, or resends the same chunk group or key, which the
service answers with the request it already holds). Calls whose callers still wait are
never matched: two identical calls in flight at once (the same prompts sampled twice)
stay two calls. The registry lives on the client's I/O loop, like the calls.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypeVar

from arctic_rl._io_loop import Caller, current_caller

__all__ = ["CallKey", "CallRegistry", "Identity", "json_digest"]

T = TypeVar("T")
# Calls left by callers that went away, kept for their next identical call (each may hold
# a result until then); beyond this the oldest are forgotten.
MAX_LEFT = 64
# How long `left_uploads` waits for left calls still running (a cancelled one unwinds in
# milliseconds; one whose loop was dropped runs on, and keeps its group until it is done).
UNWIND_S = 2.0


class CallKey(NamedTuple):
    """What makes two calls the same call: operation, job, and the body's digest."""

    operation: str
    job_id: str
    digest: str


def json_digest(body: Any) -> str:
    """The digest of a JSON body (an attrs request model, or plain JSON)."""
    plain = body.to_dict() if hasattr(body, "to_dict") else body
    text = json.dumps(plain, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class Identity:
    """What the service knows one logical call by: ``key`` (the chunk group id of an
    upload, the Idempotency-Key of a JSON submit), then ``request_id`` once accepted."""

    __slots__ = ("_result", "key", "request_id", "running")

    def __init__(self) -> None:
        self.key = uuid.uuid4().hex
        self.request_id: str | None = None
        self.running: asyncio.Future[None] | None = None  # done when the run under it ends
        self._result: tuple[Any] | None = None  # a result its caller never received

    def __repr__(self) -> str:
        return f"Identity(key={self.key!r}, request_id={self.request_id!r})"

    def renew(self) -> None:
        """A new key: the service dropped what the old one named (an abandoned upload)."""
        self.key = uuid.uuid4().hex

    def idle(self) -> bool:
        """Whether no run under it is going on."""
        return self.running is None or self.running.done()

    def keep(self, result: Any) -> None:
        """Hold a result its caller never received, for the call that takes this over."""
        self._result = (result,)

    def kept(self) -> tuple[Any] | None:
        """The result held (in a 1-tuple), once; None when there is none."""
        kept, self._result = self._result, None
        return kept


class _Call:
    __slots__ = ("caller", "identity")

    def __init__(self, identity: Identity, caller: Caller | None) -> None:
        self.identity = identity
        self.caller = caller

    def left(self) -> bool:
        """Whether nobody waits for it any more."""
        return self.caller is not None and self.caller.gone()


class CallRegistry:
    """A client's calls in flight, and those their callers left (see the module doc)."""

    def __init__(self) -> None:
        self._calls: dict[CallKey, list[_Call]] = {}

    async def run(self, key: CallKey, work: Callable[[Identity], Awaitable[T]]) -> T:
        """``work`` under the identity of a left identical call if there is one (answered
        by its result when it had one), else under a fresh identity."""
        call = _Call(self._take_left(key) or Identity(), current_caller())
        self._calls.setdefault(key, []).append(call)
        try:
            result = await _attached(call.identity, work)
        except BaseException:
            self._settle(key, call)
            raise
        if call.left():  # nobody will read it: it answers the next identical call
            call.identity.keep(result)
        self._settle(key, call)
        return result

    async def left_uploads(self, job_id: str) -> list[tuple[CallKey, Identity]]:
        """Left calls of the job that may hold an unfinished upload (chunk group) open:
        never accepted and no longer running (those unwinding given `UNWIND_S` to end)."""
        left = [
            (key, call.identity)
            for key, calls in self._calls.items()
            for call in calls
            if key.job_id == job_id and call.left() and call.identity.request_id is None
        ]
        loop = asyncio.get_running_loop()
        running = [
            identity.running
            for _, identity in left
            if identity.running is not None and identity.running.get_loop() is loop
        ]
        if running:
            await asyncio.wait(running, timeout=UNWIND_S)
        return [(key, ident) for key, ident in left if ident.request_id is None and ident.idle()]

    def _take_left(self, key: CallKey) -> Identity | None:
        for call in self._calls.get(key, ()):
            if call.left():
                self._forget(key, call)
                return call.identity
        return None

    def _settle(self, key: CallKey, call: _Call) -> None:
        """A call ended: forgotten when its caller got the outcome, else kept (bounded)."""
        if not call.left():
            self._forget(key, call)
            return
        left = [(k, c) for k, calls in self._calls.items() for c in calls if c.left()]
        for stale_key, stale in left[: max(0, len(left) - MAX_LEFT)]:
            self._forget(stale_key, stale)

    def _forget(self, key: CallKey, call: _Call) -> None:
        calls = self._calls.get(key)
        if calls is not None and call in calls:
            calls.remove(call)
            if not calls:
                del self._calls[key]


async def _attached(identity: Identity, work: Callable[[Identity], Awaitable[T]]) -> T:
    """Wait for a run still going under ``identity``; its result if it left one, else
    ``work`` under it."""
    previous = identity.running
    loop = asyncio.get_running_loop()
    if previous is not None and previous.get_loop() is loop and not identity.idle():
        await asyncio.wait([previous])
    kept = identity.kept()
    if kept is not None:
        return kept[0]  # type: ignore[no-any-return]
    identity.running = running = loop.create_future()
    try:
        return await work(identity)
    finally:
        running.set_result(None)
