"""Where one app writes its files and marks its commit boundaries: the app's hooks.

``create_app(settings, hooks=...)`` takes them; the product passes none and gets the plain
:class:`Hooks` (plain writes, no crash points). Whoever builds an app may pass others
(the development tools arm crash points and failing disks that way, outside the product):
nothing here knows who does.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


class Hooks:
    """The hooks of one app, as the product runs them: plain writes, no crash points."""

    def crash_point(self, point: str) -> None:
        """A commit boundary of the store (nothing happens here)."""

    def write_file(self, path: Path, data: bytes | memoryview, *, in_place: bool = False) -> None:
        """Write one of the mock's files; ``in_place`` overwrites it without truncating it
        first (see :func:`write_in_place`)."""
        if in_place:
            write_in_place(path, data)
        else:
            path.write_bytes(data)

    def free_bytes(self, path: Path) -> int:
        """Free bytes on the disk that holds ``path``."""
        return shutil.disk_usage(path).free


def write_in_place(path: Path, data: bytes | memoryview) -> None:
    """Overwrite ``path`` from its first byte, then cut it to ``data``'s length.

    A rename over an existing file, or a truncation to zero followed by a write, makes
    ext4 flush the data at once; an overwrite in place does not (callers that need a
    torn write to be detectable make the content say its own length and checksum).
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, memoryview(data).nbytes)
    finally:
        os.close(fd)


__all__ = ["Hooks", "write_in_place"]
