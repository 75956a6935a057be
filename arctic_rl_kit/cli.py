"""``cortex-gs-contract-check``: where does a Cortex GS endpoint depart from the contract?

    cortex-gs-contract-check --url https://HOST/api/v2/databases/DB/schemas/S/cortex-training \\
        --pat-env CORTEX_PAT [--mode safe|full] [--job JOB_ID] [--with-proposals]

(the token itself sits in the environment variable CORTEX_PAT, never on the command line)

safe (the default) creates and changes nothing: read-only routes, authentication, and
requests the contract says must be refused (with --job, also broken DSSST1 frames and
the chunk-group refusals on that running job). full also creates one small job, runs one
chunked forward-backward, a step, a generate and a weight sync with the project's client,
checks every answer, and cancels the job at the end whatever happened.

Writes report.md and junit.xml to --report-dir. Exit status: 0 conforms, 1 departs,
2 the check could not run (bad URL, no token, job not running, target unreachable). Before
any check, one authenticated read must succeed: a token the service refuses, or a URL that
is no Cortex GS endpoint, exits 2 with the reason and never passes.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arctic_rl_kit.contract import Contract
from arctic_rl_kit.preflight import PreflightFailed, preflight
from arctic_rl_kit.report import Report
from arctic_rl_kit.served import probe_proposals
from arctic_rl_kit.target import Target, TargetError

if TYPE_CHECKING:  # the kit extra's; imported when a run starts (`missing_requirement`)
    from arctic_rl_kit.kit import Kit

EXIT_CONFORMS, EXIT_DEPARTS, EXIT_CANNOT_RUN = 0, 1, 2
DEFAULT_REPORT_DIR = Path("contract-check-report")
# What the `kit` extra installs beyond the SDK (pyproject.toml), by import name.
KIT_REQUIREMENTS = ("schemathesis", "hypothesis", "requests")


class CannotRun(RuntimeError):
    """A precondition of the run failed; the message says what to fix."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="cortex-gs-contract-check",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--url", required=True, help="the service prefix (https://, or http:// on loopback)"
    )
    parser.add_argument(
        "--pat-env", required=True, help="NAME of the environment variable holding the PAT"
    )
    parser.add_argument("--mode", choices=("safe", "full"), default="safe")
    parser.add_argument("--job", default=None, help="a running job for the chunk-group refusals")
    parser.add_argument("--with-proposals", action="store_true", help="check the full contract")
    parser.add_argument(
        "--contract", type=Path, default=None, help="contract file (default: the one installed)"
    )
    parser.add_argument("--report-dir", type=Path, default=DEFAULT_REPORT_DIR)
    parser.add_argument("--max-examples", type=int, default=20, help="per operation and phase")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument(
        "--phases",
        default="examples,coverage,fuzzing",
        help="schemathesis phases for the generated requests (comma-separated)",
    )
    parser.add_argument(
        "--model", default="Qwen/Qwen2.5-0.5B-Instruct", help="full mode's job model"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """The console script: run, write the report, return the exit status."""
    args = parse_args(argv)
    missing = missing_requirement()
    if missing is not None:
        print(
            f"cortex-gs-contract-check: {missing} is not installed; the kit needs its extra: "
            "pip install 'arctic-rl[kit]'",
            file=sys.stderr,
        )
        return EXIT_CANNOT_RUN
    status, _ = execute(args)
    return status


def missing_requirement() -> str | None:
    """The first of the kit extra's packages that cannot be imported, if any."""
    for name in KIT_REQUIREMENTS:
        try:
            importlib.import_module(name)
        except ImportError:
            return name
    return None


def execute(
    args: argparse.Namespace, environ: Mapping[str, str] | None = None
) -> tuple[int, Report | None]:
    """One run: the exit status and the report (None when the run could not start)."""
    from arctic_rl_kit.kit import Kit

    try:
        target = Target.from_env(args.url, args.pat_env, environ)
        contract = Contract.load(with_proposals=args.with_proposals, path=args.contract)
    except (TargetError, FileNotFoundError) as exc:
        print(f"contract-check: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN, None
    try:
        preflight(target, contract)
    except PreflightFailed as exc:
        print(f"contract-check: {target.mask(str(exc))}", file=sys.stderr)
        return EXIT_CANNOT_RUN, None
    report = Report(
        target=target.base_url, mode=args.mode, view=contract.view, contract=str(contract.source)
    )
    for path, method, op in contract.operations():
        report.declare(op["operationId"], f"{method.upper()} {path}")
    kit = Kit(
        target=target,
        contract=contract,
        seed=args.seed,
        max_examples=args.max_examples,
        body_dir=args.report_dir / "bodies",
        phases=tuple(args.phases.split(",")),
    )
    try:
        run(kit, report, mode=args.mode, job=args.job, model=args.model)
    except CannotRun as exc:
        report.aborted = target.mask(str(exc))
    except Exception as exc:  # the report still says how far the run got, and why it stopped
        report.aborted = target.mask(f"{type(exc).__name__}: {exc}")
        traceback.print_exc(file=MaskedStream(sys.stderr, target.mask))
    md, xml = report.write(args.report_dir, target.mask)
    if report.aborted is not None:
        print(f"contract-check: {report.aborted} (partial report in {md})", file=sys.stderr)
        return EXIT_CANNOT_RUN, report
    for result in report.operations.values():
        print(f"{result.verdict:>28}  {result.operation:<20} {result.label}")
    for served in report.served:
        print(f"{served.verdict:>28}  proposal {served.proposal:<11} {served.evidence}")
    print(f"contract-check: report in {md} and {xml}")
    return (EXIT_CONFORMS if report.conforms else EXIT_DEPARTS), report


def run(kit: Kit, report: Report, *, mode: str, job: str | None, model: str) -> None:
    """Every part of the chosen mode, findings into ``report``."""
    from arctic_rl_kit import generated
    from arctic_rl_kit.flow import full_flow
    from arctic_rl_kit.probes import Probes

    probes = Probes(kit)
    if job is not None:
        require_running(probes, job)
    step("proposals: which ones the endpoint serves (harmless probes)")
    report.served = probe_proposals(kit.target, job)
    step("authentication: no token, wrong token, wrong token type")
    report.add(probes.authentication())
    step("create_job refusals")
    report.add(probes.create_refusals())
    step("schemathesis: invalid requests to the other mutating routes (made-up ids)")
    try:
        report.add(generated.refusal_run(kit, report.notes))
        if job is not None:
            step(f"refusals on job {job}: DSSST1 frames, bodies, chunk groups")
            report.add(probes.job_refusals(job))
        if mode == "full":
            step("full flow: one job, forward-backward, step, generate, weight sync, cancel")
            report.add(full_flow(kit, probes, model=model, notes=report.notes))
        else:
            step("schemathesis: read-only routes" + (f" (job {job})" if job else ""))
            report.add(generated.read_only_run(kit, job, report.notes))
    except generated.EngineFailed as exc:
        raise CannotRun(str(exc)) from exc


def require_running(probes: Any, job: str) -> None:
    """Refusals on a job only mean something while it runs (else: 409 job_not_running)."""
    operation = probes.operation("get_job")
    if operation is None:
        raise CannotRun("the contract has no get_job operation to look the job up with")
    _, response = probes.send(operation, path_parameters={"job_id": job})
    status = response.json().get("status") if response.status_code == 200 else None
    if status != "running":
        raise CannotRun(
            f"job {job} must be running for the chunk-group checks "
            f"(get_job answered {response.status_code}, status {status!r})"
        )


class MaskedStream:
    """A text stream that masks the token in whatever is written to it."""

    def __init__(self, stream: object, mask: Callable[[str], str]) -> None:
        self.stream = stream
        self.mask = mask

    def write(self, text: str) -> int:
        return self.stream.write(self.mask(text))  # type: ignore[attr-defined]

    def flush(self) -> None:
        self.stream.flush()  # type: ignore[attr-defined]


def step(message: str) -> None:
    print(f"contract-check: {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
