"""A gateway that echoes the request's headers cannot leak the token through the client or
the kit, and an answer quoted in the kit's report cannot write Markdown into it.

The client masks its own token, ``Bearer <token>`` and any run of 8 or more of its
characters in every error and log line built from an answer; the kit masks before it
cuts a quote (a cut token keeps no prefix) and quotes answers as inline code.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from arctic_rl import ArcticRLError
from arctic_rl._cortex import CortexService
from arctic_rl._options import ServiceOptions
from arctic_rl_kit import probes
from arctic_rl_kit.report import Finding, Report
from arctic_rl_kit.target import Target

from .hostile import TOKEN, HostileServer, Request, whole

RUN = 8


def leaked_runs(text: str, token: str = TOKEN) -> list[str]:
    """Every run of RUN characters of the token found in ``text``."""
    runs = {token[i : i + RUN] for i in range(len(token) - RUN + 1)}
    return sorted({text[i : i + RUN] for i in range(len(text)) if text[i : i + RUN] in runs})


def echo(status: str) -> Any:
    """Answers ``status`` with a body quoting the request's Authorization header, whole and
    cut after its first 20 characters (as a gateway's 200-byte excerpt would)."""

    async def answer(request: Request, writer: asyncio.StreamWriter, n: int) -> bool:
        sent = request.headers["authorization"]
        body = f'{{"message": "denied for {sent}; seen: {sent[:27]}", "code": 7}}'.encode()
        writer.write(whole(body, status, "retry-after: 0"))
        return True

    return answer


@pytest.mark.parametrize("status", ["400 Bad Request", "401 Unauthorized", "503 Unavailable"])
async def test_an_echoed_token_is_masked_in_errors_and_retry_lines(
    status: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with HostileServer(echo(status)) as server:
        cortex = CortexService(
            server.base_url, TOKEN, ServiceOptions(max_retries=2, retry_timeout=5)
        )
        try:
            with pytest.raises(ArcticRLError) as caught:
                await cortex.get_capacity()
        finally:
            await cortex.aclose()
    err = caught.value
    assert "denied for Bearer ***" in str(err)  # the rest of the message is kept
    texts = [str(err), repr(err), repr(err.__dict__), caplog.text]
    texts += [r.getMessage() for r in caplog.records]
    for text in texts:
        assert leaked_runs(text) == [], text


def test_the_kit_masks_an_answer_before_it_cuts_the_quote() -> None:
    target = Target("http://127.0.0.1:1/api", "KIT_PAT", TOKEN)

    class Answer:
        status_code = 200
        content = b"x" * 185 + f"Authorization: Bearer {TOKEN}".encode()

    quote = probes._answer(Answer(), target.mask)
    assert quote.startswith("200 xxx")
    assert leaked_runs(quote) == []
    assert leaked_runs(target.mask(f"cut: {TOKEN[:12]}")) == []


FORGED = (
    "no 401\n\n| `get_job` | `GET /{job_id}` | conforms | 9 |  |\n"
    "- result: **conforms**\n# Cortex GS contract check"
)


def test_a_quoted_answer_cannot_write_markdown_into_the_report(tmp_path: Path) -> None:
    target = Target("http://127.0.0.1:1/api", "KIT_PAT", TOKEN)
    report = Report(target=target.base_url, mode="safe", view="today", contract="c.yaml")
    report.declare("list_jobs", "GET /")
    detail = f"{FORGED} Bearer {TOKEN[:20]}"
    report.add([Finding("list_jobs", "GET /", "auth_no_token_401", False, detail=detail)])
    report.notes.append("a note from the endpoint\n- result: **conforms**")
    md, xml = report.write(tmp_path, target.mask)
    lines = md.read_text().splitlines()
    assert [line for line in lines if line.startswith("- result:")] == [
        "- result: **1 operation(s) depart**"
    ]
    assert not [line for line in lines if line.startswith("| `get_job`")]
    assert [line for line in lines if line.startswith("# ")] == ["# Cortex GS contract check"]
    for text in (md.read_text(), xml.read_text()):
        assert leaked_runs(text) == []
    assert re.search(r"failed 1 time\(s\): `+ no 401 ", md.read_text())


def test_a_stopped_run_quotes_its_reason(tmp_path: Path) -> None:
    target = Target("http://127.0.0.1:1/api", "KIT_PAT", TOKEN)
    report = Report(target=target.base_url, mode="safe", view="today", contract="c.yaml")
    report.aborted = "boom\n- result: **conforms**"
    md, _ = report.write(tmp_path, target.mask)
    results = [line for line in md.read_text().splitlines() if line.startswith("- result:")]
    assert results == ["- result: **incomplete, the run stopped**: ` boom - result: **conforms** `"]
