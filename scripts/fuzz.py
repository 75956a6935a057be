"""``make fuzz``: the schemathesis CLI against a live mock, more examples than CI can afford.

For each view it starts the mock (uvicorn, canned backend; today's service for today's
view, the proposals served for the full contract) on 127.0.0.1 at a free port with a
throwaway token and state directory, runs ``schemathesis run`` with schemathesis.toml
(every check on; the DSSST1 hooks from tests/fuzz/hooks.py) in the coverage, fuzzing and
stateful phases, bounded by ``--max-time`` per view, over each view of the contract asked for
(``--view``: today's service alone, the full contract with its proposals, or both, one
after the other), then stops the mock. Exit status: 0 when every view passed. Reports
(JUnit, NDJSON) land in ``.schemathesis/fuzz-report/<view>``.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VIEWS = {
    "today": ROOT / "generated" / "openapi" / "cortex_gs.today.yaml",
    "full": ROOT / "openapi" / "cortex_gs.yaml",
}
# The service the mock plays for each view.
VIEW_SERVICES = {"today": "today", "full": "proposed"}
CONFIG = ROOT / "schemathesis.toml"
TOKEN_ENV = "CORTEX_GS_FUZZ_TOKEN"  # what schemathesis.toml's auth section reads
REPORT_DIR = ROOT / ".schemathesis" / "fuzz-report"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Knobs worth turning from the command line; the rest lives in schemathesis.toml."""
    parser = argparse.ArgumentParser(prog="scripts/fuzz.py", description=__doc__)
    parser.add_argument("--max-examples", type=int, default=200, help="per operation and phase")
    parser.add_argument("--max-time", type=int, default=420, help="seconds for the whole run")
    parser.add_argument("--seed", type=int, default=20261129)
    # One worker: with two, hypothesis parses lambda sources for its reprs in both threads
    # at once, and CPython 3.11's AST constructor is not safe for that (schemathesis then
    # fails with "AST constructor recursion depth mismatch").
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--phases", default="coverage,fuzzing,stateful")
    parser.add_argument("--view", choices=[*VIEWS, "both"], default="both")
    parser.add_argument("extra", nargs="*", help="passed to `schemathesis run` as is")
    return parser.parse_args(argv)


def schemathesis_command(
    base_url: str, args: argparse.Namespace, view: str, max_time: int
) -> list[str]:
    """The CLI invocation for one view (``--checks all``; schemathesis.toml switches
    nothing off), bounded by ``max_time`` seconds (its share of the run's time)."""
    exe = Path(sys.executable).with_name("schemathesis")
    return [
        str(exe),
        "--config-file",
        str(CONFIG),
        "run",
        str(VIEWS[view]),
        "--url",
        base_url,
        "--checks",
        "all",
        "--phases",
        args.phases,
        "--max-examples",
        str(args.max_examples),
        "--max-time",
        str(max_time),
        "--seed",
        str(args.seed),
        "--workers",
        str(args.workers),
        "--report",
        "junit,ndjson",
        "--report-dir",
        str(REPORT_DIR / view),
        *args.extra,
    ]


def planned_views(args: argparse.Namespace) -> tuple[list[str], int]:
    """The views to fuzz and each one's seconds: ``--max-time`` bounds the whole run."""
    views = list(VIEWS) if args.view == "both" else [args.view]
    return views, max(1, args.max_time // len(views))


def main(argv: list[str] | None = None) -> int:
    """Serve, fuzz each view, stop; returns 0 when every view passed."""
    args = parse_args(argv)
    sys.path.insert(0, str(ROOT))  # the mock lives in the checkout, not in the package
    from devtools.live_mock import serving_in_process

    token = secrets.token_urlsafe(24)
    env = {**os.environ, TOKEN_ENV: token}
    # tests.fuzz.hooks (named in schemathesis.toml) imports from the repo root.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    status = 0
    views, share = planned_views(args)
    for view in views:
        # Each view against the mock playing that service: the full contract needs the
        # proposals served.
        with (
            tempfile.TemporaryDirectory(prefix="fuzz-mock-") as state,
            serving_in_process(Path(state), token=token, service=VIEW_SERVICES[view]) as mock,
        ):
            print(f"fuzz: mock at {mock.base_url} (state in {state})", flush=True)
            command = schemathesis_command(mock.base_url, args, view, share)
            print(f"fuzz ({view} view): " + " ".join(command), flush=True)
            returned = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
            print(f"fuzz ({view} view): exit status {returned}", flush=True)
            status = status or returned
            print("fuzz: stopping the mock", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
