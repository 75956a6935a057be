"""What ``cortex-gs-mock`` prints at start really points the SDK at it: the SkyRL yaml and
the verl overrides, read back the way each framework's settings are read, reach the live
mock with the token from the variable the SDK reads."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from arctic_rl_mock.guide import Listening
from arctic_rl_mock.settings import Settings

from arctic_rl._config import CortexConfig
from devtools.live_mock import auth_headers
from devtools.mock_process import MockProcess

TOKEN = "guide-token-never-printed-7"


def _read_guide(mock: MockProcess) -> str:
    """The lines printed at start, through the token line (printed before it answers)."""
    printed = mock.log_file.read_text()
    before, marker, after = printed.partition("\ntoken:")
    assert marker, f"no guide printed:\n{printed}"
    return before + marker + after.split("\n", 1)[0] + "\n"


def test_the_printed_skyrl_yaml_and_verl_overrides_reach_the_mock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARCTIC_CORTEX_PAT", TOKEN)
    mock = MockProcess(
        tmp_path / "state", token=TOKEN, database="DB1", schema="S1", log_level="info",
        args=("--token-env", "ARCTIC_CORTEX_PAT"),
    )  # fmt: skip
    with mock:
        guide = _read_guide(mock)
        skyrl_yaml = re.search(r"^cortex:\n(?:  .*\n)+", guide, re.M)
        assert skyrl_yaml, guide
        (tmp_path / "cortex-local.yaml").write_text(skyrl_yaml.group(0))
        skyrl = CortexConfig.from_file(tmp_path / "cortex-local.yaml")
        overrides = dict(re.findall(r"^  remote_backend\.cortex\.(\w+)=(\S+)", guide, re.M))
        verl = CortexConfig.checked(overrides, "remote_backend.cortex")
        for config in (skyrl, verl):
            token = config.read_token().get_secret_value()
            answer = httpx.get(config.url() + "/capacity", headers=auth_headers(token))
            assert answer.status_code == 200, (config, answer.text)
    output = mock.log_file.read_text()
    port = mock.port
    assert f"base_url http://127.0.0.1:{port}\n" in guide
    assert (
        skyrl.url()
        == verl.url()
        == f"http://127.0.0.1:{port}/api/v2/databases/DB1/schemas/S1/cortex-training"
    )
    assert "token: the one in $ARCTIC_CORTEX_PAT" in guide
    assert TOKEN not in guide + output


@pytest.mark.parametrize(
    ("settings", "token_env", "says"),
    [
        (Settings(state_dir=Path("s"), auth=False), None, "none is checked"),
        (Settings(state_dir=Path("s"), token="t"), None, "<the token this mock was given>"),
        (Settings(state_dir=Path("s"), token="t"), "CORTEX_GS_MOCK_TOKEN", "<the token this"),
    ],
)
def test_the_token_line_says_where_the_framework_finds_a_token(
    settings: Settings, token_env: str | None, says: str
) -> None:
    line = Listening("127.0.0.1", 8765, settings, token_env).token_line()
    assert "export ARCTIC_CORTEX_PAT=" in line and says in line


def test_a_wildcard_host_is_reached_on_loopback_and_another_endpoint_is_named() -> None:
    settings = Settings(state_dir=Path("s"), endpoint="ep")
    where = Listening("0.0.0.0", 8765, settings)
    assert where.cortex_settings() == {
        "base_url": "http://127.0.0.1:8765",
        "database": "RL_DB",
        "schema": "PUBLIC",
        "endpoint": "ep",
    }
