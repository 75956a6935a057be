"""Config: legacy fields and defaults, yaml/OmegaConf loading, env fallback, token masking."""

from __future__ import annotations

import logging
import pickle

import pytest

from arctic_rl import ArcticRLClientConfig, ConfigError
from arctic_rl._config import effective_backend, resolve_config
from arctic_rl.integrations.verl import GROUP_FILE

SECRET = "pat-secret-value-123"

LEGACY_DEFAULTS = {
    "backend": "local",
    "full_determinism": False,
    "seed": 42,
    "training_gpus": 0,
    "sampling_gpus": 0,
    "log_prob_gpus": 0,
    "colocate": False,
    "cuda_ipc": False,
    "low_memory": False,
    "startup_timeout": 300,
    "health_check_interval": 2,
    "job_ready_timeout": 600,
    "training_job_id": None,
    "sampling_job_id": None,
    "log_prob_job_id": None,
}


def test_legacy_fields_defaults_and_unknown_keys_ignored():
    cfg = ArcticRLClientConfig(model_name="m", not_a_field=1, comm_protocol="ray")
    for name, value in LEGACY_DEFAULTS.items():
        assert getattr(cfg, name) == value, name
    for name in (
        "host", "port", "ds_config", "training_config", "vllm_config", "log_prob_ds_config",
        "ds_worker_config", "arctic_inference_config", "checkpoint_path", "log_prob_engine",
        "server_logs",
    ):  # fmt: skip
        assert name in ArcticRLClientConfig.model_fields
    assert not hasattr(cfg, "not_a_field")
    assert cfg.cortex.endpoint == "cortex-training"
    assert cfg.cortex.chunk_bytes == 60 * 1024 * 1024


@pytest.mark.parametrize("backend", ["local", "dss-platform", "cortex", "remote"])
def test_backend_aliases_accepted(backend):
    assert ArcticRLClientConfig(model_name="m", backend=backend).backend == backend


def test_model_name_required():
    with pytest.raises(ValueError):
        ArcticRLClientConfig()


def test_yaml_file_and_section(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(
        "arctic:\n  backend: cortex\n  model_name: m\n  seed: 7\n"
        "  cortex: {host: acct.example, database: DB, schema: S, token: nope}\n"
    )
    cfg = ArcticRLClientConfig.from_yaml(path, "arctic")
    assert (cfg.backend, cfg.seed) == ("cortex", 7)
    assert cfg.cortex.url() == "https://acct.example/api/v2/databases/DB/schemas/S/cortex-training"


def test_token_in_yaml_is_dropped_with_warning(tmp_path, caplog):
    path = tmp_path / "c.yaml"
    path.write_text(f"model_name: m\ncortex: {{base_url: 'http://x', token: {SECRET}}}\n")
    with caplog.at_level(logging.WARNING, logger="arctic_rl"):
        cfg = ArcticRLClientConfig.from_yaml(path)
    assert "token" in caplog.text
    assert SECRET not in caplog.text
    assert SECRET not in repr(cfg) and SECRET not in str(cfg.model_dump())


def test_omegaconf_section_is_accepted():
    from omegaconf import OmegaConf

    root = OmegaConf.create({"remote_backend": OmegaConf.load(GROUP_FILE)})
    root.remote_backend.cortex.base_url = "http://127.0.0.1:1/api"
    cfg = ArcticRLClientConfig.from_mapping(root, "remote_backend", model_name="m")
    assert cfg.backend == "cortex"
    assert cfg.cortex.url() == "http://127.0.0.1:1/api"


def test_yaml_wins_env_fills_only_unset(caplog):
    cfg = ArcticRLClientConfig.from_mapping(
        {"backend": "cortex", "model_name": "m", "cortex": {"host": "yaml.example"}}
    )
    env = {
        "ARCTIC_RL_BACKEND": "local",
        "CORTEX_HOST": "env.example",
        "CORTEX_DATABASE": "ENVDB",
        "CORTEX_SCHEMA": "ENVS",
        "CORTEX_ENDPOINT": "ep",
        "CORTEX_PAT_ENV_VAR": "MY_PAT",
        "MY_PAT": SECRET,
    }
    with caplog.at_level(logging.INFO, logger="arctic_rl"):
        resolved, sources = resolve_config(cfg, env)
    assert resolved.backend == "cortex" and sources["backend"].startswith("yaml")
    assert resolved.cortex.host == "yaml.example" and sources["cortex.host"].startswith("yaml")
    assert (
        resolved.cortex.database == "ENVDB" and sources["cortex.database"] == "env CORTEX_DATABASE"
    )
    assert resolved.cortex.schema_ == "ENVS"
    assert resolved.cortex.endpoint == "ep"
    assert resolved.cortex.pat_env == "MY_PAT"
    assert sources["cortex.base_url"] == "default"
    assert resolved.cortex.read_token(env).get_secret_value() == SECRET
    lines = [r for r in caplog.records if r.getMessage().startswith("arctic_rl config")]
    assert len(lines) == 1
    assert SECRET not in caplog.text and "env CORTEX_HOST" not in lines[0].getMessage()


def test_env_selects_backend_only_when_unset():
    env = {"ARCTIC_RL_BACKEND": "cortex"}
    assert effective_backend(ArcticRLClientConfig(model_name="m"), env) == "cortex"
    assert effective_backend(ArcticRLClientConfig(model_name="m", backend="local"), env) == "local"


def test_null_in_yaml_counts_as_unset():
    cfg = ArcticRLClientConfig.from_mapping({"model_name": "m", "cortex": {"host": None}})
    resolved, sources = resolve_config(cfg, {"CORTEX_HOST": "env.example"})
    assert resolved.cortex.host == "env.example" and sources["cortex.host"] == "env CORTEX_HOST"


def test_missing_token_and_incomplete_location_are_clear():
    cfg = ArcticRLClientConfig(model_name="m", cortex={"host": "h"})
    with pytest.raises(ConfigError, match="CORTEX_PAT"):
        cfg.cortex.read_token({})
    with pytest.raises(ConfigError, match="database, schema"):
        cfg.cortex.url()


def test_token_repr_masked_and_config_picklable():
    token = ArcticRLClientConfig(model_name="m").cortex.read_token({"CORTEX_PAT": SECRET})
    assert SECRET not in repr(token) and SECRET not in str(token)
    cfg = ArcticRLClientConfig.from_mapping({"model_name": "m", "cortex": {"base_url": "http://x"}})
    again = pickle.loads(pickle.dumps(cfg))
    assert again == cfg and again.cortex.base_url == "http://x"
