"""The kit's rules that need no server: which URLs it talks to, where the token comes
from and how it is written down, and which contract it checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arctic_rl_kit.contract import Contract
from arctic_rl_kit.generated import EngineFailed, run_engine
from arctic_rl_kit.kit import Kit
from arctic_rl_kit.target import Target, TargetError, check_url


@pytest.mark.parametrize(
    "url",
    [
        "https://acct.snowflakecomputing.com/api/v2/databases/DB/schemas/S/cortex-training",
        "http://127.0.0.1:8765/api/v2/databases/DB/schemas/S/cortex-training",
        "http://localhost:8765/x",
        "http://[::1]:8765/x",
        "http://127.5.0.1/x",
    ],
)
def test_https_anywhere_and_http_only_on_loopback(url: str) -> None:
    assert check_url(url + "/") == url


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("http://staging.example.com/api", "refusing plain http://"),
        ("http://10.0.0.5:8765/api", "refusing plain http://"),
        ("http://127.0.0.1.example.com/api", "refusing plain http://"),
        ("ftp://staging.example.com/api", "must be https://"),
        ("https://user:secret@staging.example.com/api", "must not carry credentials"),
    ],
)
def test_other_urls_are_refused(url: str, says: str) -> None:
    with pytest.raises(TargetError, match=says):
        check_url(url)


def test_token_comes_only_from_the_named_variable() -> None:
    target = Target.from_env("https://h/x", "MY_PAT", {"MY_PAT": "s3cret"})
    assert target.token == "s3cret"
    assert "s3cret" not in repr(target)
    with pytest.raises(TargetError, match="empty or unset"):
        Target.from_env("https://h/x", "MY_PAT", {})
    with pytest.raises(TargetError, match="NAME of an environment variable"):
        Target.from_env("https://h/x", "s3cret value", {"s3cret value": "x"})


def test_curl_writes_the_variable_where_the_token_went() -> None:
    target = Target.from_env("https://h/x", "MY_PAT", {"MY_PAT": "tok$en`"})
    curl = target.curl(
        "post",
        "https://h/x/",
        {
            "Authorization": "Bearer tok$en`",
            "User-Agent": "kit",
            "Content-Type": "application/json",
        },
        b'{"a": "it\'s"}',
    )
    assert "tok$en" not in curl
    assert '-H "Authorization: Bearer ${MY_PAT}"' in curl
    assert "User-Agent" not in curl
    # the shell gives back exactly the body and the header, with the token from the variable
    echo = curl.replace("curl -sS -X POST https://h/x/", "printf '%s\\n'", 1)
    done = subprocess.run(
        ["bash", "-c", echo], env={"MY_PAT": "tok$en`"}, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == [
        "-H",
        "Authorization: Bearer tok$en`",
        "-H",
        "Content-Type: application/json",
        "--data-raw",
        '{"a": "it\'s"}',
    ]


def test_console_script_refuses_plain_http_to_a_remote_host() -> None:
    """The installed entry point, as a server engineer runs it (exit 2, says why)."""
    script = Path(sys.executable).with_name("cortex-gs-contract-check")
    done = subprocess.run(
        [str(script), "--url", "http://staging.example.com/api", "--pat-env", "KIT_UNIT_PAT"],
        env={**os.environ, "KIT_UNIT_PAT": "unit-secret"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "refusing plain http://" in done.stderr
    assert "unit-secret" not in done.stdout + done.stderr


def test_today_view_by_default_full_contract_with_proposals() -> None:
    today = Contract.load(with_proposals=False)
    full = Contract.load(with_proposals=True)
    assert (today.view, full.view) == ("today", "full")
    proposed = {
        op["operationId"] for _, _, op in full.operations() if op.get("x-status") == "proposed"
    }
    assert proposed and proposed <= full.operation_ids()
    assert today.operation_ids() == full.operation_ids() - proposed
    assert "x-status: proposed" not in str(today.document)


def test_locations_name_the_source_line_and_pointer() -> None:
    contract = Contract.load(with_proposals=True)
    where, pointer = contract.location("/{job_id}/step", "post", "responses", "202").split(" ")
    assert pointer == "#/paths/~1{job_id}~1step/post/responses/202"
    name, line = where.split(":")
    lines = contract.source.read_text().splitlines()
    assert name == contract.source.name
    assert lines[int(line) - 1].strip().startswith(("'202'", '"202"', "202"))


def test_a_run_refuses_a_selection_it_did_not_ask_for(tmp_path: Path) -> None:
    """The guard before the engine sends anything (nothing listens on the URL)."""
    kit = Kit(
        target=Target(base_url="http://127.0.0.1:9/x", pat_env="UNUSED", token="t"),
        contract=Contract.load(with_proposals=False),
        seed=1,
        max_examples=1,
        body_dir=tmp_path,
    )
    with pytest.raises(EngineFailed, match=r"'POST /'"):
        run_engine(
            kit, kit.schema(authenticated=False), [], allowed=lambda op: op.method.upper() == "GET"
        )
