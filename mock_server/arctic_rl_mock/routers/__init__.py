"""The mock's handlers, one module per contract tag (FastAPI's bigger-applications layout).

Each module defines one handler per operation of its tag, named after the operation id;
:func:`arctic_rl_mock.web.routing.build_router` registers them from the contract's table.
``files`` serves the mock's own export download links (not a contract operation).
"""

from __future__ import annotations

from types import ModuleType

from arctic_rl_mock.routers import (
    checkpoints,
    files,
    jobs,
    operations,
    requests,
    sampling,
    training,
)

# Contract tag -> the module holding its operations' handlers (named after the tag).
AREAS: dict[str, ModuleType] = {
    module.__name__.rsplit(".", 1)[-1]: module
    for module in (jobs, checkpoints, training, sampling, operations, requests)
}

__all__ = ["AREAS", "files"]
