"""Replay of verl's `register` decorator: it records how the worker group dispatches a
method (mode, blocking) on the function, which the replay's worker group reads."""

from __future__ import annotations

from enum import Enum
from typing import Any

DISPATCH = "__verl_dispatch__"


class Dispatch(Enum):
    ONE_TO_ALL = "one_to_all"


def make_nd_compute_dataproto_dispatch_fn(mesh_name: str) -> dict[str, Any]:
    return {"mesh_name": mesh_name}


def register(dispatch_mode: Any = Dispatch.ONE_TO_ALL, blocking: bool = True, **_kw: Any):
    def decorate(func: Any) -> Any:
        setattr(func, DISPATCH, {"dispatch_mode": dispatch_mode, "blocking": blocking})
        return func

    return decorate
