"""Open request bodies: validate with a model, keep what it knows, log what it ignores.

Today's service treats its JSON bodies as open: a field it does not use is accepted and
ignored (the published client sends several such fields on every save). The mock does
the same, and says at debug level what it ignored, so a client author can see it.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

from cortex_gs_contract import ErrorCode
from pydantic import BaseModel, ValidationError

from arctic_rl_mock.errors import ApiError

log = logging.getLogger("arctic_rl_mock")
M = TypeVar("M", bound=BaseModel)


def ignored_fields(model: BaseModel, where: str = "body") -> list[str]:
    """Dotted paths of every field ``model`` (and its nested models) did not declare."""
    found = [f"{where}.{key}" for key in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name, None)
        children = value if isinstance(value, list) else [value]
        for i, child in enumerate(children):
            if isinstance(child, BaseModel):
                label = f"{where}.{name}" + (f"[{i}]" if isinstance(value, list) else "")
                found += ignored_fields(child, label)
    return found


def log_ignored(model: BaseModel, what: str) -> None:
    """Debug-log the fields of ``model`` the mock accepts without using them."""
    if log.isEnabledFor(logging.DEBUG):
        extra = ignored_fields(model)
        if extra:
            log.debug("%s: ignoring fields %s", what, ", ".join(extra))


def plain(model: BaseModel) -> dict[str, Any]:
    """A validated request model as JSON-ready data (absent optionals stay absent).

    pydantic validates free-form objects of any depth but refuses to serialise very
    deep ones; that is the client's nesting, so it is a 422, not a crash.
    """
    try:
        return model.model_dump(mode="json", exclude_unset=True)
    except ValueError as exc:
        issue = {"loc": ["body"], "msg": str(exc), "type": "too_deep"}
        message = "request body nests too deeply"
        raise ApiError(422, ErrorCode.validation_error, message, details=[issue]) from exc


def parse(model: type[M], data: Any, loc: tuple[str | int, ...]) -> M:
    """Validate ``data`` as ``model`` or raise the 422 FastAPI would, located at ``loc``."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        issues = [
            {
                "loc": [*loc, *(p if isinstance(p, int | str) else str(p) for p in e["loc"])],
                "msg": str(e["msg"]),
                "type": str(e["type"]),
            }
            for e in exc.errors()
        ]
        raise ApiError(
            422, ErrorCode.validation_error, "request validation failed", details=issues
        ) from exc
