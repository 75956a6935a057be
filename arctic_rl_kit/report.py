"""What the kit found, written for a person: one line per operation, then each departure
with the check that failed, a ``curl`` that reproduces it and where the contract says so.

Written as Markdown (to read) and JUnit XML (for CI). Every text passes through the
target's mask before it is written, so the token cannot reach a file even by accident;
every text that came from the endpoint (a quoted answer, a failure, why the run stopped)
is written as one inline code span (`quoted`), so an answer cannot write Markdown into the
report (a forged "conforms" row, a heading, a link).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from arctic_rl_kit.served import Served
from arctic_rl_kit.served import markdown as served_markdown


def quoted(text: str) -> str:
    """``text`` as one inline code span on one line: nothing in it renders as Markdown."""
    flat = " ".join(text.split())
    if not flat:
        return ""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    return f"{fence} {flat} {fence}"


@dataclass(frozen=True)
class Finding:
    """One check on one answer of one operation."""

    operation: str  # operationId
    label: str  # "GET /capacity"
    check: str
    passed: bool
    detail: str = ""
    curl: str = ""
    location: str = ""


@dataclass
class OperationResult:
    """Everything checked for one operation."""

    operation: str
    label: str
    in_view: bool
    findings: list[Finding] = field(default_factory=list)

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if not f.passed]

    @property
    def verdict(self) -> str:
        if not self.findings:
            return "not exercised"
        if self.failures:
            return "departs"
        return "conforms" if self.in_view else "conforms (not in this view)"

    def failing_checks(self) -> dict[str, list[Finding]]:
        """Failures grouped by check name, in the order they were found."""
        grouped: dict[str, list[Finding]] = {}
        for finding in self.failures:
            grouped.setdefault(finding.check, []).append(finding)
        return grouped


@dataclass
class Report:
    """All findings of a run, by operation."""

    target: str
    mode: str
    view: str
    contract: str
    operations: dict[str, OperationResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    served: list[Served] = field(default_factory=list)  # which proposals the endpoint serves
    aborted: str | None = None  # why the run stopped before the end (the report is partial)

    def declare(self, operation: str, label: str, *, in_view: bool = True) -> None:
        """An operation the report must list even if nothing reached it."""
        self.operations.setdefault(operation, OperationResult(operation, label, in_view))

    def add(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            result = self.operations.get(finding.operation)
            if result is None:
                result = OperationResult(finding.operation, finding.label, in_view=False)
                self.operations[finding.operation] = result
            result.findings.append(finding)

    @property
    def departures(self) -> list[OperationResult]:
        return [r for r in self.operations.values() if r.failures]

    @property
    def conforms(self) -> bool:
        return not self.departures and self.aborted is None

    @property
    def summary(self) -> str:
        if self.aborted is not None:
            return f"incomplete, the run stopped: {self.aborted}"
        departing = len(self.departures)
        return "conforms" if not departing else f"{departing} operation(s) depart"

    @property
    def summary_markdown(self) -> str:
        """The summary, the endpoint's words in it quoted."""
        if self.aborted is not None:
            return f"**incomplete, the run stopped**: {quoted(self.aborted)}"
        return f"**{self.summary}**"

    # ------------------------------------------------------------------- markdown
    def markdown(self) -> str:
        lines = [
            "# Cortex GS contract check",
            "",
            f"- target: `{self.target}`",
            f"- mode: **{self.mode}**; contract: `{self.contract}` ({self.view} view)",
            f"- result: {self.summary_markdown}",
            *[f"- note: {quoted(note)}" for note in self.notes],
            "",
            "| operation | request | verdict | checks | failing checks |",
            "|---|---|---|---|---|",
        ]
        for result in self.operations.values():
            failing = ", ".join(f"`{name}`" for name in result.failing_checks()) or ""
            lines.append(
                f"| `{result.operation}` | `{result.label}` | {result.verdict} "
                f"| {len(result.findings)} | {failing} |"
            )
        if self.served:
            lines += served_markdown(self.served)
        if self.departures:
            lines += ["", "## Departures"]
        for result in self.departures:
            lines += ["", f"### `{result.operation}` ({result.label})"]
            for name, failures in result.failing_checks().items():
                first = failures[0]
                lines += [
                    "",
                    f"- check **{name}** failed {len(failures)} time(s): {quoted(first.detail)}",
                    f"- contract: `{first.location}`",
                    "- reproduce:",
                    "",
                    "  ```sh",
                    f"  {first.curl or '(no request: see the check)'}",
                    "  ```",
                ]
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------- junit
    def junit(self) -> str:
        failures = len(self.departures)
        suite = ET.Element(
            "testsuite",
            name="cortex-gs-contract-check",
            tests=str(len(self.operations)),
            failures=str(failures),
            errors="0" if self.aborted is None else "1",
            skipped=str(sum(1 for r in self.operations.values() if not r.findings)),
        )
        for result in self.operations.values():
            case = ET.SubElement(
                suite, "testcase", classname=f"{self.mode}.{self.view}", name=result.operation
            )
            if not result.findings:
                ET.SubElement(case, "skipped", message="not exercised")
            elif result.failures:
                names = ", ".join(result.failing_checks())
                failure = ET.SubElement(case, "failure", message=f"departs: {names}")
                failure.text = "\n\n".join(
                    f"{name}: {fs[0].detail}\ncontract: {fs[0].location}\n{fs[0].curl}"
                    for name, fs in result.failing_checks().items()
                )
            ET.SubElement(
                case, "system-out"
            ).text = f"{result.label}: {len(result.findings)} checks"
        ET.indent(suite)
        return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"

    def write(self, directory: Path, mask: Callable[[str], str]) -> tuple[Path, Path]:
        """``report.md`` and ``junit.xml`` in ``directory`` (masked); returns both paths."""
        directory.mkdir(parents=True, exist_ok=True)
        md, xml = directory / "report.md", directory / "junit.xml"
        md.write_text(mask(self.markdown()), encoding="utf-8")
        xml.write_text(mask(self.junit()), encoding="utf-8")
        return md, xml
