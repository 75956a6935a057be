"""The mock Cortex GS as a FastAPI app, routed from the contract's generated table.

``create_app`` wires the pieces: the service (business rules, store, worker), the
middleware (any database and schema; then, before routing, request ids, authentication
and the body's size and pace), the error shapes, and
one router built from ``cortex_gs_contract.OPERATIONS`` over the handlers in
:mod:`arctic_rl_mock.routers`. Handlers parse and validate (JSON through the generated
models, binary bodies as raw capped streams) and render answers through the same models,
so every body the mock sends is checked against the contract.

As today's service does, the mock serves any database and schema in the path (an
account has many), treats JSON bodies as open (unknown fields are ignored and logged at
debug), and answers in today's shapes. ``Settings.service`` picks the service it plays:
``today`` (the default) refuses what the live service refuses (:mod:`arctic_rl_mock.today`);
``proposed`` serves the contract's proposals too (``Idempotency-Key``, ``wait_s``, the
forward-no-grad / log-probs / sync-weights routes, the cost budgets, ``n``...), without
narrowing what today's clients may send.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from fastapi import FastAPI

from arctic_rl_mock.backends import Backend, make_backend
from arctic_rl_mock.errors import install_error_handlers
from arctic_rl_mock.hooks import Hooks
from arctic_rl_mock.routers import AREAS, files, jobs
from arctic_rl_mock.services.mock_service import MockService
from arctic_rl_mock.settings import Settings
from arctic_rl_mock.store import Store
from arctic_rl_mock.web.disk_errors import StorageFaults
from arctic_rl_mock.web.middleware import AnyDatabaseAndSchema, RequestGuard
from arctic_rl_mock.web.openapi import install_openapi
from arctic_rl_mock.web.receiving import BodyReader
from arctic_rl_mock.web.routing import build_router
from arctic_rl_mock.web.server import ServerSettings, quiet_resource_errors


def create_app(
    settings: Settings,
    backend: Backend | None = None,
    server: ServerSettings | None = None,
    *,
    hooks: Hooks | None = None,
) -> FastAPI:
    """Build the mock for ``settings`` (backend built from ``settings.backend`` if absent).

    ``server`` holds the limits the request guard applies to bodies and how often the
    event loop may log running out of descriptors, and the app a full or failing disk
    (default: the CLI's). ``hooks`` are
    where this app writes its files and marks its commit boundaries (default: plain ones).
    """
    hooks = hooks or Hooks()
    server = server or ServerSettings()
    store = Store(settings.state_dir, hooks)
    storage_faults = StorageFaults(server.log_interval_s)
    factory = (lambda: backend) if backend is not None else _backend_factory(settings, hooks)
    service = MockService(settings, factory, store, storage_faults)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        quiet_resource_errors(loop, server.log_interval_s)
        # asyncio.to_thread runs here; the loop shuts it down when it closes.
        loop.set_default_executor(
            ThreadPoolExecutor(server.blocking_threads, thread_name_prefix="mock-blocking")
        )
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(
        title="Cortex GS mock",
        version="0.1.0",
        lifespan=lifespan,
        separate_input_output_schemas=False,
        docs_url=f"{settings.prefix}/docs",
        openapi_url=f"{settings.prefix}/openapi.json",
        redoc_url=None,
    )
    app.state.service = service
    app.state.settings = settings
    app.state.hooks = hooks
    app.state.body_reader = BodyReader()
    install_error_handlers(app)
    app.add_middleware(
        RequestGuard, settings=settings, server=server, storage_faults=storage_faults
    )
    app.add_middleware(AnyDatabaseAndSchema, settings=settings)

    router = build_router(AREAS, settings.prefix, with_proposals=settings.serves_proposals)
    # The routes go onto the app's own router rather than through include_router: FastAPI
    # wraps an included router so that each request matches every route twice and sums a
    # version over all routes first, a fifth of the mock's per-request time. The routes
    # already carry their full paths (the prefix is the router's).
    app.router.routes.extend([*router.routes, *files.router.routes])
    app.state.api_routes = list(router.routes)  # for the 405 handler's Allow header
    # The contract's root is the prefix itself; accept it without the trailing slash too.
    app.add_api_route(settings.prefix, jobs.create_job, methods=["POST"], include_in_schema=False)
    app.add_api_route(settings.prefix, jobs.list_jobs, methods=["GET"], include_in_schema=False)
    install_openapi(app, settings)
    return app


def _backend_factory(settings: Settings, hooks: Hooks) -> Callable[[], Backend]:
    """Build the backend on the worker thread, so torch's import never delays startup."""
    return lambda: make_backend(settings.backend, device=settings.device, hooks=hooks)


__all__ = ["create_app"]
