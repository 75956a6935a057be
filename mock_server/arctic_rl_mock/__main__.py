"""``cortex-gs-mock`` (or ``python -m arctic_rl_mock``): run the mock Cortex GS with uvicorn.

The token can also come from ``$CORTEX_GS_MOCK_TOKEN`` (or the variable ``--token-env``
names) so it need not appear in the process list; it is never logged. The mock serves
every database and schema under ``/api/v2/databases/{database}/schemas/{schema}/{endpoint}``.
At start it prints its ``base_url`` and the settings that point SkyRL and verl at it.

The published ``arctic-platform`` client reaches a mock through
``CortexConfig(base_url=...)``, and that path sends no token: run the mock with
``--no-auth`` for it (``base_url`` is then ``http://HOST:PORT``, with any ``database`` and
``schema``).
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arctic_rl_mock.backends import BACKEND_NAMES
from arctic_rl_mock.settings import (
    MAX_FINISHED_REQUESTS,
    PRUNE_EVERY,
    RESULT_RETENTION_S,
    SERVICES,
    TODAY,
    Settings,
)
from arctic_rl_mock.web.server import ServerSettings

TOKEN_ENV = "CORTEX_GS_MOCK_TOKEN"
# Builds the app to serve from the settings and the server's limits (create_app's shape).
AppBuilder = Callable[..., Any]
log = logging.getLogger("arctic_rl_mock")


def parse_args(argv: list[str] | None = None, epilog: str | None = None) -> argparse.Namespace:
    """The CLI the Makefile's ``serve`` target and the README use; ``epilog`` ends its help."""
    parser = argparse.ArgumentParser(
        prog="cortex-gs-mock",
        description=__doc__,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--token", default=None, help="PAT clients must send (or --token-env)")
    parser.add_argument(
        "--token-env",
        default=TOKEN_ENV,
        help="variable holding that PAT (ARCTIC_CORTEX_PAT: the one the SDK sends)",
    )
    parser.add_argument(
        "--no-auth",
        action="store_true",
        help="accept requests without a token (needed by the published arctic-platform "
        "client's base_url, which sends none)",
    )
    parser.add_argument("--backend", choices=BACKEND_NAMES, default="canned")
    parser.add_argument(
        "--service",
        choices=SERVICES,
        default=TODAY,
        help="today: the live service as it runs (refuses what it refuses); proposed: the "
        "contract's proposals served as well",
    )
    parser.add_argument("--state-dir", type=Path, default=Path(".mock-state"))
    parser.add_argument(
        "--database", default="RL_DB", help="database in the logged URL (all are served)"
    )
    parser.add_argument(
        "--schema", default="PUBLIC", help="schema in the logged URL (all are served)"
    )
    parser.add_argument("--endpoint", default="cortex-training")
    parser.add_argument(
        "--transition-delay",
        type=float,
        default=0.0,
        help="seconds between job states pending/placing/initializing/running",
    )
    parser.add_argument(
        "--request-latency",
        type=float,
        default=0.0,
        help="seconds each data-plane request stays running before its result is stored",
    )
    parser.add_argument("--device", default=None, help="torch device for the reference backend")
    parser.add_argument(
        "--result-retention",
        type=float,
        default=RESULT_RETENTION_S,
        help="seconds a finished request's result and events are kept (then polls answer 410)",
    )
    parser.add_argument(
        "--max-finished-requests",
        type=int,
        default=MAX_FINISHED_REQUESTS,
        help="finished requests kept per job; older ones are pruned first",
    )
    parser.add_argument(
        "--prune-every",
        type=int,
        default=PRUNE_EVERY,
        help="finished requests between two retention passes",
    )
    parser.add_argument("--log-level", default="info")
    parser.add_argument(
        "--log-interval",
        type=float,
        default=ServerSettings.log_interval_s,
        help="seconds between two log lines about the same kind of refusal or resource error",
    )
    return parser.parse_args(argv)


def main(
    argv: list[str] | None = None, build_app: AppBuilder | None = None, epilog: str | None = None
) -> int:
    """Validate the auth setup, log where we listen, serve until interrupted.

    ``build_app`` builds the app (default: :func:`arctic_rl_mock.app.create_app`); the
    development tools pass theirs, and the ``epilog`` of their help, to serve a mock with
    hooks of their own."""
    args = parse_args(argv, epilog)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    token = args.token or os.environ.get(args.token_env)
    if not args.no_auth and not token:
        print(
            f"error: pass --token (or set ${args.token_env}), or --no-auth (what the published "
            "arctic-platform client's base_url needs: it sends no token)",
            file=sys.stderr,
        )
        return 2
    settings = Settings(
        state_dir=args.state_dir,
        token=token,
        auth=not args.no_auth,
        backend=args.backend,
        service=args.service,
        database=args.database,
        schema=args.schema,
        endpoint=args.endpoint,
        transition_delay_s=args.transition_delay,
        request_latency_s=args.request_latency,
        device=args.device,
        result_retention_s=args.result_retention,
        max_finished_requests=args.max_finished_requests,
        prune_every=args.prune_every,
    )
    import uvicorn

    from arctic_rl_mock.app import create_app
    from arctic_rl_mock.guide import Listening, connection_guide

    server = ServerSettings(log_interval_s=args.log_interval)
    server.ensure_descriptors()
    app = (build_app or create_app)(settings, server=server)
    if args.no_auth:
        log.warning("=" * 72)
        log.warning("AUTHENTICATION DISABLED (--no-auth): any client may use this mock")
        log.warning("=" * 72)
    base = f"http://{args.host}:{args.port}{settings.prefix}"
    log.info(
        "mock Cortex GS (%s service, %s backend, state in %s) at %s",
        args.service,
        args.backend,
        args.state_dir,
        base,
    )
    token_env = None if args.token else args.token_env
    guide = connection_guide(Listening(args.host, args.port, settings, token_env))

    class AnnouncedServer(uvicorn.Server):
        """Prints the guide once the socket listens: a busy port prints only its error."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                print(guide, flush=True)

    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level.lower(),
        **server.uvicorn_options(),
    )
    AnnouncedServer(config).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
