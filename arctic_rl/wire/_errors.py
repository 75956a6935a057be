"""The codec's single exception type and its machine-readable codes."""

from __future__ import annotations

ERROR_CODES: frozenset[str] = frozenset(
    {
        "pickle_refused",
        "bad_header",
        "bad_structure",
        "bad_version",
        "size_mismatch",
        "hash_mismatch",
        "missing_chunks",
        "duplicate_chunk",
        "chunk_mismatch",
        "too_large",
        "too_deep",
        "too_many_tensors",
        "bad_dtype",
        "bad_value",
        "truncated",
    }
)


class WireError(ValueError):
    """A frame or value the codec refuses.

    ``code`` is stable and machine-readable so a server can put it straight into a
    400 answer; ``message`` is for humans and never contains payload bytes.
    """

    code: str
    message: str

    def __init__(self, code: str, message: str) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown WireError code {code!r}")
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[type[WireError], tuple[str, str]]:
        """Keep code and message when pickled across processes (e.g. by a test runner)."""
        return (type(self), (self.code, self.message))
