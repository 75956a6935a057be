"""Request models built from plain fields, the fields left out that the caller did not give."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from arctic_rl._errors import ArcticRLError

M = TypeVar("M")


def request_model(cls: type[M], fields: Mapping[str, Any]) -> M:
    """A request model from plain fields (unknown keys kept); a bad field is a clear error."""
    try:
        return cls.from_dict(dict(fields))  # type: ignore[attr-defined,no-any-return]
    except (KeyError, TypeError, ValueError) as exc:
        raise ArcticRLError(
            f"cannot build {cls.__name__} from {sorted(fields)}: {type(exc).__name__}: {exc}",
            code="invalid_request",
        ) from exc


def present(**fields: Any) -> dict[str, Any]:
    """The fields that were given (None: left out, so the service applies its default)."""
    return {key: value for key, value in fields.items() if value is not None}
