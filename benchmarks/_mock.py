"""A mock Cortex GS process for the benchmarks, from this tree or from a baseline checkout.

Each bench row that needs a server starts ``python -m arctic_rl_mock`` (canned backend) as
its own process, so the server never shares the measuring process's GIL. Started with
``cwd`` set to another checkout (``tree``), the same command runs that checkout's mock:
that is how a row measures today's main beside the working tree in the same run.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from devtools.mock_process import PAT_ENV, MockProcess, pat_exported

REPO = Path(__file__).resolve().parents[1]
BASELINE_ENV = "ARCTIC_RL_BENCH_BASELINE"
"""Names a checkout of the baseline commit; without it, /tmp/old-main when it exists."""
DEFAULT_BASELINE = Path("/tmp/old-main")
DATABASE = "BENCH_DB"
SCHEMA = "BENCH"
PREFIX = f"/api/v2/databases/{DATABASE}/schemas/{SCHEMA}/cortex-training"
STARTUP_TIMEOUT_S = 60.0
ADDED_SINCE_BASELINE = ("httptools",)
"""Packages this tree's environment gained after the baseline commit (pyproject's mock
extra). The baseline's mock would pick them up from the shared virtual environment
(uvicorn takes httptools when it can import it), so they are hidden from it: it runs as
it did at its commit."""
MOCK_PACKAGES = ("mock_server/arctic_rl_mock", "arctic_rl_mock", "mock_server")
"""Where the mock's package is in a checkout: its folder today, then in older checkouts
(the last part is the package; a folder before it goes on the mock's path)."""
_LAUNCH = (
    "import runpy, sys; "
    "sys.modules.update(dict.fromkeys(sys.argv[1].split(','))); "
    "sys.argv = sys.argv[2:]; "
    "runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)"
)
"""``python -c`` runs the mock package named in its second argument with the modules named
in its first unimportable."""


@dataclass(frozen=True)
class Mock:
    """A running mock: ``root`` is ``http://host:port``, ``base_url`` adds the contract prefix."""

    root: str
    token_env: str

    @property
    def base_url(self) -> str:
        return self.root + PREFIX


def mock_package(tree: Path) -> str | None:
    """The name the mock's package has in the checkout ``tree`` (None: it holds no mock)."""
    return next((name for name in MOCK_PACKAGES if (tree / name / "__main__.py").is_file()), None)


def baseline_tree() -> Path | None:
    """The baseline checkout to measure beside this tree, if one is on this machine."""
    named = os.environ.get(BASELINE_ENV)
    tree = Path(named) if named else DEFAULT_BASELINE
    return tree if mock_package(tree) else None


def tree_commit(tree: Path) -> str:
    """The short commit a checkout is at (empty when git cannot say)."""
    done = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() if done.returncode == 0 else ""


_UNBUDGETED = (
    "import sys, arctic_rl_mock.__main__ as m; "
    "settings = m.Settings; "
    "m.Settings = lambda **kw: settings(max_batch_cost=sys.maxsize, **kw); "
    "sys.argv[0] = 'arctic_rl_mock'; sys.exit(m.main(sys.argv[1:]))"
)
"""``python -c`` runs this tree's mock without the proposed batch budget (rows x width²)."""


@contextlib.contextmanager
def running(
    *,
    tree: Path = REPO,
    no_auth: bool = False,
    request_latency_s: float = 0.0,
    service: str = "proposed",
    unbudgeted: bool = False,
) -> Iterator[Mock]:
    """Start the canned mock of ``tree`` on a free port; the token is in ``PAT_ENV`` meanwhile.

    Another tree's mock runs without the packages added since (``ADDED_SINCE_BASELINE``).

    ``no_auth`` is for the published client, whose ``base_url`` path sends no token; our
    client still sends one (the mock then ignores it). ``request_latency_s``: how long each
    data-plane request computes (the mock's ``--request-latency``). ``service``: which
    service this tree's mock plays (``--service``): the contract's proposals, which the
    rows measure, unless a row asks for ``today``'s (a baseline checkout's mock predates
    the switch and plays the proposals); ``unbudgeted``: this tree's mock without the
    proposed batch budget, for a row whose batch is over it.
    """
    with tempfile.TemporaryDirectory(prefix="arctic-rl-bench-mock-") as tmp:
        hidden = ",".join(ADDED_SINCE_BASELINE) if tree != REPO else ""
        folder, _, package = (mock_package(tree) or "").rpartition("/")
        launch = ["-c", _LAUNCH, hidden, package] if hidden else ["-m", package]
        mock = MockProcess(
            Path(tmp) / "state",
            auth=not no_auth,
            service=service if tree == REPO else None,  # a baseline predates the switch
            database=DATABASE,
            schema=SCHEMA,
            args=["--request-latency", str(request_latency_s)] if request_latency_s else [],
            # The tree's own packages come first (it is the cwd), its mock's folder next.
            env={"PYTHONPATH": str(tree / folder) if folder else None},
            launch=["-c", _UNBUDGETED] if unbudgeted else launch,
            tree=tree,
            startup_timeout_s=STARTUP_TIMEOUT_S,
        )
        with mock, pat_exported(mock.token):
            yield Mock(mock.root_url, PAT_ENV)
