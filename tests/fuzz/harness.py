"""The contract loaded for in-process fuzzing, against a mock app swapped per test.

Schemathesis binds its ASGI transport when an operation is parametrized and ends the
app's lifespan after every pytest item, while a mock app's lifespan runs once (it closes
its store). So the schema holds one :class:`SwappableApp` for good, and a fixture puts a
fresh mock with a fresh state directory behind it for each test.
"""

from __future__ import annotations

import os
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

import schemathesis
from arctic_rl_mock.app import create_app
from arctic_rl_mock.settings import Settings
from fastapi import FastAPI
from schemathesis.python import asgi
from starlette.types import Receive, Scope, Send

ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "openapi" / "cortex_gs.yaml"
# The contract with every proposal stripped: today's service alone (``make generate``).
TODAY_SPEC_PATH = ROOT / "generated" / "openapi" / "cortex_gs.today.yaml"
VIEWS = {"full": SPEC_PATH, "today": TODAY_SPEC_PATH}
CONFIG_PATH = ROOT / "schemathesis.toml"
TOKEN_ENV = "CORTEX_GS_FUZZ_TOKEN"
FUZZ_TOKEN = "fuzz-pat-7c1e9b44"
# The host is what schemathesis' ASGI client sends; the path is the contract's prefix.
IN_PROCESS_URL = "http://testserver" + Settings(state_dir=Path()).prefix
WALKING = ("pending", "placing", "initializing")
IN_FLIGHT = ("pending", "running", "streaming")


class SwappableApp:
    """An ASGI app that forwards everything to whichever mock app is current."""

    def __init__(self, service: str) -> None:
        self.service = service
        self.current: FastAPI | None = None
        self.state_root: Path | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.current is not None, "no mock app installed (fixture missing?)"
        await self.current(scope, receive, send)

    def install_fresh_mock(self, state_root: Path) -> None:
        """End the current app's lifespan and put a new mock, with a new state dir, behind
        this one; schemathesis starts the new app's lifespan on its next request."""
        asgi.shutdown_lifespans()
        self.state_root = state_root
        state_dir = Path(tempfile.mkdtemp(prefix="mock-", dir=state_root))
        settings = Settings(state_dir=state_dir, token=FUZZ_TOKEN, service=self.service)
        self.current = create_app(settings)

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until no job is still walking to ``running`` and no request is in flight,
        so the next stateful step sees the same state on every replay."""
        assert self.current is not None
        store = self.current.state.service.store
        for _ in range(int(timeout / 0.005)):
            walking = any(job["status"] in WALKING for job in store.jobs.list_jobs())
            if not walking and not store.requests.requests_in(IN_FLIGHT):
                return
            time.sleep(0.005)
        raise TimeoutError("the mock did not settle")


def load_config(*, max_examples: int, **generation: Any) -> schemathesis.Config:
    """schemathesis.toml, pointed at the in-process app, at the example count given."""
    os.environ.setdefault(TOKEN_ENV, FUZZ_TOKEN)
    data = tomllib.loads(CONFIG_PATH.read_text())
    # The hooks module is imported by the tests under their package name; importing it
    # again as tests.fuzz.hooks would register a second strategy and check.
    data.pop("hooks", None)
    data["base-url"] = IN_PROCESS_URL
    data["generation"] = {**data.get("generation", {}), "max-examples": max_examples, **generation}
    return schemathesis.Config.from_dict(data)


# Each view is fuzzed against the mock playing that service: the full contract against the
# mock serving the proposals, today's view against today's service.
APPS = {"full": SwappableApp("proposed"), "today": SwappableApp("today")}
