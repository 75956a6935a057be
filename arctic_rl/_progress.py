"""Progress display for long uploads and waits; silent unless a person is watching.

A bar appears only when enabled in config and stderr is a terminal, for uploads above
a size threshold, and for waits that already took a few seconds (so quick calls stay quiet).
"""

from __future__ import annotations

import sys
import time
from typing import Any, Protocol

__all__ = ["Progress", "ProgressFactory"]

WAIT_BAR_AFTER_S = 3.0


class _Bar(Protocol):
    def update(self, n: float = 1) -> Any: ...
    def set_postfix_str(self, s: str = "", refresh: bool = True) -> Any: ...
    def close(self) -> Any: ...


class _NullBar:
    def update(self, n: float = 1) -> None:
        return None

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        return None

    def close(self) -> None:
        return None


class Progress:
    """One displayed activity: bytes sent, or a wait with a changing status."""

    def __init__(self, factory: ProgressFactory, desc: str, total: int | None, unit: str) -> None:
        self._factory = factory
        self._desc = desc
        self._total = total
        self._unit = unit
        self._bar: _Bar | None = None
        self._started = time.monotonic()

    def _ensure(self) -> _Bar:
        if self._bar is None:
            self._bar = self._factory.make_bar(self._desc, self._total, self._unit)
        return self._bar

    def update(self, n: float) -> None:
        """Account n units (bytes); the bar shows rate in bytes/s."""
        self._ensure().update(n)

    def status(self, text: str) -> None:
        """Show a wait's current state once the wait is long enough to deserve a bar."""
        if self._bar is None and time.monotonic() - self._started < WAIT_BAR_AFTER_S:
            return
        self._ensure().set_postfix_str(text)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ProgressFactory:
    """Decides once whether bars are shown; hands out Progress objects."""

    def __init__(self, enabled: bool, min_bytes: int) -> None:
        self.enabled = enabled and _stderr_is_tty()
        self.min_bytes = min_bytes

    def upload(self, desc: str, total: int) -> Progress:
        shown = self.enabled and total >= self.min_bytes
        return Progress(self if shown else _SILENT, desc, total, "B")

    def wait(self, desc: str) -> Progress:
        return Progress(self if self.enabled else _SILENT, desc, None, "s")

    def make_bar(self, desc: str, total: int | None, unit: str) -> _Bar:
        from tqdm.auto import tqdm

        if unit == "B":
            return tqdm(
                total=total, desc=desc, unit="B", unit_scale=True, unit_divisor=1024, leave=False
            )
        return tqdm(total=None, desc=desc, bar_format="{desc}: {elapsed} {postfix}", leave=False)


class _SilentFactory(ProgressFactory):
    def __init__(self) -> None:
        self.enabled = False
        self.min_bytes = 0

    def make_bar(self, desc: str, total: int | None, unit: str) -> _Bar:
        return _NullBar()


_SILENT = _SilentFactory()


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
