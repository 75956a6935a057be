"""Replays SkyRL's `main_base.main()` dispatch: the override entrypoint is found by
peeking at the command line before any strict parse, imported, and its `main()` called."""

from __future__ import annotations

import importlib
import sys

OVERRIDE = "trainer.override_entrypoint="


def main() -> object:
    for arg in sys.argv[1:]:
        if arg.startswith(OVERRIDE):
            return importlib.import_module(arg.removeprefix(OVERRIDE)).main()
    raise SystemExit("this replay only runs override entrypoints")


if __name__ == "__main__":
    main()
