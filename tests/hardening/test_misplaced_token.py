"""The token written where the NAME of its variable goes is refused, and never printed back:
``pat_env: "<token>"`` in yaml, ``CORTEX_PAT_ENV_VAR=<token>``, the kit's
``--pat-env <token>`` (``make contract-check PAT_ENV=<token>``)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from arctic_rl import ArcticRLClientConfig, ConfigError
from arctic_rl._config import CortexConfig
from arctic_rl._sources import resolve_config
from arctic_rl_kit.cli import EXIT_CANNOT_RUN, execute, parse_args

# A token with dots and dashes (not a variable name at all), and one that would pass as a
# name were it not mixed case with digits at a length no SHOUTING_NAME has.
TOKENS = ["pat-7Qm2xZ9kLw4Rt8Yb.3Nc6Vd1Hf5Gj0SpUe", "Zx81QmP4wLr92KtB7vYc3Nd5"]


@pytest.mark.parametrize("token", TOKENS, ids=["dotted", "name-shaped"])
def test_a_token_as_pat_env_in_yaml_is_refused_unechoed(token: str, tmp_path: Path) -> None:
    path = tmp_path / "cortex.yaml"
    path.write_text(f'cortex:\n  base_url: http://127.0.0.1:1\n  pat_env: "{token}"\n')
    with pytest.raises(ConfigError) as caught:
        CortexConfig.from_file(path)
    assert "cortex.pat_env" in str(caught.value)
    assert "NAME of the environment variable" in str(caught.value)
    assert token not in str(caught.value) and token[:8] not in str(caught.value)


@pytest.mark.parametrize("token", TOKENS, ids=["dotted", "name-shaped"])
def test_a_token_in_the_pat_env_variable_is_refused_unechoed(
    token: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    config = ArcticRLClientConfig(backend="cortex", model_name="m", training_gpus=1)
    with pytest.raises(ConfigError) as caught:
        resolve_config(config, {"CORTEX_PAT_ENV_VAR": token})
    assert "$CORTEX_PAT_ENV_VAR" in str(caught.value)
    assert token[:8] not in str(caught.value) + caplog.text


@pytest.mark.parametrize("token", TOKENS, ids=["dotted", "name-shaped"])
def test_the_kit_refuses_a_token_as_pat_env_unechoed(
    token: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = parse_args(["--url", "http://127.0.0.1:1/api", "--pat-env", token])
    args.report_dir = tmp_path
    status, report = execute(args, environ={token: "x"})
    out, err = capsys.readouterr()
    assert (status, report) == (EXIT_CANNOT_RUN, None)
    assert "PAT_ENV (--pat-env) must be the NAME" in err
    assert token[:8] not in out + err


def test_a_plain_variable_name_is_still_taken() -> None:
    assert CortexConfig(pat_env="MY_TEAM_PAT_2").pat_env == "MY_TEAM_PAT_2"
