"""Config mistakes said plainly: an unknown key with the nearest valid name, and yaml
syntax or type errors with the file and line they are on.

yaml is imported where a file is read: a config built in code never loads it.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from pydantic_core import PydanticCustomError

from arctic_rl._errors import ConfigError

if TYPE_CHECKING:
    import yaml

UNKNOWN_SETTING = "unknown_setting"
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Longer than any variable name people write, or mixed case with digits at a length no
# SHOUTING_NAME has: the value is most likely the token itself, given by mistake.
MAX_VARIABLE_NAME = 64
TOKEN_LIKE_LENGTH = 20

log = logging.getLogger("arctic_rl")


def nearest(key: str, known: Iterable[str]) -> str | None:
    """The valid name ``key`` most likely meant, if one is close."""
    found = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    return found[0] if found else None


def refuse_unknown(block: Mapping[str, Any], known: Iterable[str]) -> None:
    """Raise a pydantic error for the first key of ``block`` not in ``known`` (with the key
    in its context, so the caller can say where it is)."""
    names = set(known)
    for key in block:
        if key in names:
            continue
        guess = nearest(str(key), names) or ""
        known = ", ".join(sorted(names))
        hint = f"did you mean {guess}?" if guess else f"known: {known}"
        raise PydanticCustomError(
            UNKNOWN_SETTING,
            "unknown setting {key} ({hint})",
            {"key": str(key), "guess": guess, "known": known, "hint": hint},
        )


def misplaced_variable_name(value: str) -> str | None:
    """What is wrong with ``value`` where a variable's NAME is expected (None: nothing).

    The answer never quotes ``value``: it may be the token itself.
    """
    if not VARIABLE_NAME.fullmatch(value):
        return "is not a valid variable name (it is not shown: it may be the token)"
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
    if len(value) > MAX_VARIABLE_NAME or (
        len(value) >= TOKEN_LIKE_LENGTH and mixed and any(c.isdigit() for c in value)
    ):
        return "looks like a token, not a variable name (it is not shown)"
    return None


def warn_dropped(names: Iterable[str], source: str) -> None:
    """One WARNING naming every setting of ``source`` that a conversion had no place for,
    so a setting that changes nothing on Cortex is never dropped without a word."""
    dropped = sorted(set(names))
    if dropped:
        log.warning(
            "arctic_rl: Cortex has no place for %s (from %s): ignored", ", ".join(dropped), source
        )


def load_yaml(path: str | os.PathLike[str], kind: str = "config file") -> Any:
    """A yaml file's content; a syntax error names the file and line."""
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the {kind} {path}: {exc}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}: invalid yaml: {problem}") from None


def key_lines(path: str | os.PathLike[str]) -> dict[tuple[str, ...], int]:
    """The line (1-based) of every mapping key in a yaml file, by its key path."""
    import yaml

    lines: dict[tuple[str, ...], int] = {}

    def walk(node: yaml.Node, at: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                here = (*at, str(key.value))
                lines[here] = key.start_mark.line + 1
                walk(value, here)

    root = yaml.compose(Path(path).read_text(encoding="utf-8"))
    if root is not None:
        walk(root, ())
    return lines


def explain(
    exc: ValidationError,
    where: str,
    prefix: tuple[str, ...] = (),
    lines: Mapping[tuple[str, ...], int] | None = None,
) -> ConfigError:
    """A :class:`ConfigError` for each problem pydantic found: the setting's dotted name,
    and ``where`` (the file, with the line when known, or the command-line entry)."""
    problems = []
    for error in exc.errors():
        loc = tuple(str(part) for part in error["loc"] if part != "__root__")
        message = error["msg"]
        if error["type"] == UNKNOWN_SETTING:
            ctx = error["ctx"]
            loc = (*loc, ctx["key"])
            guess = ".".join((*prefix, *loc[:-1], ctx["guess"]))
            hint = f"did you mean {guess}?" if ctx["guess"] else f"known: {ctx['known']}"
            message = f"unknown setting ({hint})"
        full = (*prefix, *loc)
        line = (lines or {}).get(full)
        place = f"{where}:{line}: " if line else f"{where}: " if where else ""
        problems.append(f"{place}{'.'.join(full) or 'config'}: {message}")
    return ConfigError("; ".join(problems))
