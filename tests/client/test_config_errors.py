"""Config mistakes are refused, naming the setting, its likely meaning and where it is:
a misspelt key in the yaml, on SkyRL's command line or in verl's config; a yaml syntax or
type error with the file and line; and the config log says when the token's variable is
unset."""

from __future__ import annotations

import logging
import re

import pytest

from arctic_rl import ArcticRLClientConfig, ConfigError, CortexConfig
from arctic_rl._sources import resolve_config
from arctic_rl.integrations import skyrl, verl


@pytest.mark.parametrize(
    ("typo", "meant"),
    [("verify_tsl", "verify_tls"), ("long_pol_s", "long_poll_s"), ("max_retires", "max_retries")],
)
def test_a_misspelt_yaml_key_names_the_file_line_and_the_key_meant(tmp_path, typo, meant):
    path = tmp_path / "run.yaml"
    path.write_text(f"model_name: m\nbackend: cortex\ncortex:\n  host: h\n  {typo}: 1\n")
    with pytest.raises(ConfigError) as caught:
        ArcticRLClientConfig.from_yaml(path)
    expected = f"{path}:5: cortex.{typo}: unknown setting (did you mean cortex.{meant}?)"
    assert str(caught.value) == expected


def test_a_misspelt_key_in_a_cortex_settings_file_names_its_line(tmp_path):
    path = tmp_path / "cortex.yaml"
    path.write_text("host: h\ndatabse: DB\n")
    with pytest.raises(ConfigError, match=re.escape(f"{path}:2: databse: unknown setting")):
        CortexConfig.from_file(path)


def test_a_misspelt_command_line_entry_is_refused_with_the_name_meant():
    with pytest.raises(ConfigError) as caught:
        skyrl.cortex_settings(["arctic_rl.cortex.databse=X"], {})
    assert str(caught.value) == (
        "arctic_rl.cortex.databse: unknown setting (did you mean arctic_rl.cortex.database?)"
    )


def test_a_misspelt_key_in_verls_block_is_refused_with_the_name_meant():
    cfg = {"remote_backend": {"cortex": {"host": "h", "verify_tsl": False}}}
    with pytest.raises(ConfigError) as caught:
        verl.cortex_settings(cfg)
    assert str(caught.value) == (
        "remote_backend.cortex.verify_tsl: unknown setting "
        "(did you mean remote_backend.cortex.verify_tls?)"
    )


def test_a_key_nothing_resembles_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown setting zzzzqqq \(known: .*verify_tls"):
        CortexConfig.model_validate({"zzzzqqq": 1})


def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("model_name: m\ncortex:\n  host: h\n   database: [DB\n")
    with pytest.raises(ConfigError, match=re.escape(f"{path}:4: invalid yaml")):
        ArcticRLClientConfig.from_yaml(path)


def test_a_type_error_names_the_file_line_and_setting(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("model_name: m\ncortex:\n  host: h\n\n  long_poll_s: soon\n")
    with pytest.raises(ConfigError, match=re.escape(f"{path}:5: cortex.long_poll_s: Input")):
        ArcticRLClientConfig.from_yaml(path)


def test_the_config_log_says_when_the_tokens_variable_is_unset(caplog):
    cfg = ArcticRLClientConfig(model_name="m", backend="cortex", cortex={"pat_env": "ARCTIC_NO"})
    with caplog.at_level(logging.INFO, logger="arctic_rl"):
        resolve_config(cfg, {})
    assert "token=unset (env ARCTIC_NO, which is not set)" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="arctic_rl"):
        resolve_config(cfg, {"ARCTIC_NO": "pat-value-xyz"})
    assert "token=*** (env ARCTIC_NO)" in caplog.text
    assert "pat-value-xyz" not in caplog.text


@pytest.mark.parametrize(("section", "indent"), [(None, ""), ("arctic", "  ")])
def test_a_misspelt_top_level_yaml_key_names_the_file_line_and_the_key_meant(
    tmp_path, section, indent
):
    path = tmp_path / "run.yaml"
    head = f"{section}:\n" if section else ""
    path.write_text(
        f"{head}{indent}model_name: m\n{indent}backend: cortex\n{indent}traning_gpus: 1\n"
    )
    with pytest.raises(ConfigError) as caught:
        ArcticRLClientConfig.from_yaml(path, section)
    line = 4 if section else 3
    key = f"{section}." if section else ""
    assert str(caught.value) == (
        f"{path}:{line}: {key}traning_gpus: unknown setting (did you mean {key}training_gpus?)"
    )


def test_a_misspelt_keyword_or_mapping_key_is_refused_with_the_name_meant():
    with pytest.raises(ValueError, match=re.escape("traning_gpus (did you mean training_gpus?)")):
        ArcticRLClientConfig(model_name="m", traning_gpus=1)
    with pytest.raises(ConfigError) as caught:
        ArcticRLClientConfig.from_mapping({"model_name": "m", "sampling_gpu": 1})
    assert str(caught.value) == (
        "the config: sampling_gpu: unknown setting (did you mean sampling_gpus?)"
    )


def test_a_refused_key_never_echoes_a_token_given_beside_it():
    secret = "pat-beside-a-typo-123"
    with pytest.raises(ValueError) as caught:
        CortexConfig(token=secret, verfy_tls=False)
    assert "verify_tls" in str(caught.value) and secret not in str(caught.value)
    with pytest.raises(ValueError) as caught:
        ArcticRLClientConfig(model_name="m", cortex={"pat": secret}, traning_gpus=1)
    assert "training_gpus" in str(caught.value) and secret not in str(caught.value)
