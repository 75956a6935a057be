"""The client's own token, masked wherever text built from an answer goes.

A gateway may echo request headers in an error body; a message quoting that body would
carry the token into ``str(exc)``, tracebacks and log lines. `TokenMask` replaces the
token, and any run of `MIN_RUN` or more of its characters (a quote cut short keeps a
prefix; a log cut mid-token keeps a suffix), with `MASK`. ``Bearer <token>`` goes with it.

The mask of the client whose transport produced the answer being read travels with the
task (`ANSWER_MASK`, as `_timing`'s figures do), so whatever builds an error from an
answer on its way up masks it with the right client's token.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

__all__ = ["ANSWER_MASK", "LAST_REQUEST_ID", "MASK", "MIN_RUN", "TokenMask", "mask_error"]

MASK = "***"
MIN_RUN = 8  # shorter runs of the token's characters are too common to mean anything


class TokenMask:
    """Masks one token (and every run of `MIN_RUN` of its characters) in text."""

    __slots__ = ("_runs", "_short")

    def __init__(self, token: str) -> None:
        self._runs = frozenset(token[i : i + MIN_RUN] for i in range(len(token) - MIN_RUN + 1))
        # A token shorter than a run (a test's) is masked where it stands as a whole word.
        word = rf"(?<![\w.~+/=-]){re.escape(token)}(?![\w.~+/=-])"
        self._short = re.compile(word) if 0 < len(token) < MIN_RUN else None

    def __repr__(self) -> str:
        return "TokenMask(...)"

    def __call__(self, text: str) -> str:
        """``text`` with every stretch covered by a run of the token's characters masked."""
        if self._short is not None:
            return self._short.sub(MASK, text)
        if not self._runs or len(text) < MIN_RUN:
            return text
        spans: list[list[int]] = []
        for start in range(len(text) - MIN_RUN + 1):
            if text[start : start + MIN_RUN] in self._runs:
                end = start + MIN_RUN
                if spans and start <= spans[-1][1]:
                    spans[-1][1] = end
                else:
                    spans.append([start, end])
        if not spans:
            return text
        pieces, last = [], 0
        for start, end in spans:
            pieces += [text[last:start], MASK]
            last = end
        pieces.append(text[last:])
        return "".join(pieces)

    def value(self, value: Any) -> Any:
        """A JSON-like value with every string in it masked."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, Mapping):
            return {self.value(k): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value


# The mask of the client whose answer is being read in this task (set by its transport),
# and that answer's x-snowflake-request-id (for an error its parser raises).
ANSWER_MASK: ContextVar[TokenMask | None] = ContextVar("arctic_rl_answer_mask", default=None)
LAST_REQUEST_ID: ContextVar[str | None] = ContextVar("arctic_rl_last_request_id", default=None)


def mask_error(err: Any, mask: TokenMask | None = None) -> Any:
    """``err`` (an `ArcticRLError`) with the token masked in everything it says."""
    mask = mask or ANSWER_MASK.get()
    if mask is None:
        return err
    err.message = mask(err.message)
    err.args = (err.message,)
    if isinstance(err.code, str):
        err.code = mask(err.code)
    if err.request_id:
        err.request_id = mask(err.request_id)
    if err.details is not None:
        err.details = mask.value(err.details)
    return err
