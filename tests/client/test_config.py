"""Config: legacy fields, yaml and settings files, the launcher override, env fallbacks,
base_url as scheme + host, the published legacy config's flat keys, token masking."""

from __future__ import annotations

import logging
import pickle

import pytest
from omegaconf import OmegaConf

from arctic_rl import ArcticRLClientConfig, ConfigError, CortexConfig
from arctic_rl._sources import effective_backend, resolve_config
from arctic_rl.integrations import skyrl, verl

SECRET = "pat-secret-value-123"
SERVICE = "/api/v2/databases/DB/schemas/S/cortex-training"

LEGACY_DEFAULTS = {
    "backend": "local",
    "host": None,
    "port": None,
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


def test_legacy_fields_and_defaults():
    cfg = ArcticRLClientConfig(model_name="m", comm_protocol="ray")
    for name, value in LEGACY_DEFAULTS.items():
        assert getattr(cfg, name) == value, name
    for name in (
        "ds_config", "training_config", "vllm_config", "log_prob_ds_config", "ds_worker_config",
        "arctic_inference_config", "checkpoint_path", "log_prob_engine", "server_logs",
    ):  # fmt: skip
        assert name in ArcticRLClientConfig.model_fields
    assert cfg.cortex.endpoint == "cortex-training"
    assert cfg.cortex.pat_env == "ARCTIC_CORTEX_PAT"
    assert cfg.cortex.chunk_bytes == 60 * 1024 * 1024


def test_host_and_port_may_be_none_as_the_verl_adapter_sends_them():
    cfg = ArcticRLClientConfig(model_name="m", host=None, port=None, comm_protocol="ray")
    assert (cfg.host, cfg.port) == (None, None)


@pytest.mark.parametrize("backend", ["local", "dss-platform", "cortex", "remote"])
def test_backend_aliases_accepted(backend):
    assert ArcticRLClientConfig(model_name="m", backend=backend).backend == backend


def test_model_name_required():
    with pytest.raises(ValueError, match="model_name"):
        ArcticRLClientConfig()


@pytest.mark.parametrize(
    ("cortex", "url"),
    [
        ({"host": "acct.example"}, f"https://acct.example{SERVICE}"),
        ({"host": "https://acct.example/"}, f"https://acct.example{SERVICE}"),
        ({"base_url": "https://acct.example"}, f"https://acct.example{SERVICE}"),
        ({"base_url": "http://127.0.0.1:8765/"}, f"http://127.0.0.1:8765{SERVICE}"),
        ({"base_url": f"http://127.0.0.1:1{SERVICE}/"}, f"http://127.0.0.1:1{SERVICE}"),
    ],
)
def test_base_url_is_scheme_and_host_and_a_full_url_still_works(cortex, url):
    block = {"database": "DB", "schema": "S", **cortex}
    assert CortexConfig.model_validate(block).url() == url


def test_full_service_url_needs_no_database_or_schema():
    assert CortexConfig(base_url=f"https://x{SERVICE}").url() == f"https://x{SERVICE}"


@pytest.mark.parametrize(
    ("cortex", "message"),
    [
        ({"host": "h"}, "missing: database, schema"),
        ({"base_url": "https://h", "database": "DB"}, "missing: schema"),
        ({"database": "DB", "schema": "S"}, "missing: host"),
        ({"base_url": "acct.example", "database": "DB", "schema": "S"}, "needs a scheme"),
    ],
)
def test_incomplete_location_is_a_clear_error(cortex, message):
    with pytest.raises(ConfigError, match=message):
        CortexConfig.model_validate(cortex).url()


def test_yaml_file_and_section(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(
        "arctic:\n  backend: cortex\n  model_name: m\n  seed: 7\n"
        "  cortex: {host: acct.example, database: DB, schema: S, token: nope}\n"
    )
    cfg = ArcticRLClientConfig.from_yaml(path, "arctic")
    assert (cfg.backend, cfg.seed) == ("cortex", 7)
    assert cfg.cortex.url() == f"https://acct.example{SERVICE}"


def test_token_in_yaml_is_dropped_with_warning(tmp_path, caplog):
    path = tmp_path / "c.yaml"
    path.write_text(f"model_name: m\ncortex: {{base_url: 'http://x', token: {SECRET}}}\n")
    with caplog.at_level(logging.WARNING, logger="arctic_rl"):
        cfg = ArcticRLClientConfig.from_yaml(path)
    assert "token" in caplog.text
    assert SECRET not in caplog.text
    assert SECRET not in repr(cfg) and SECRET not in str(cfg.model_dump())


@pytest.mark.parametrize("nested", [True, False])
def test_cortex_settings_file_either_form(tmp_path, nested):
    block = {"host": "acct.example", "database": "DB", "schema": "S", "pat": SECRET}
    path = tmp_path / "cortex.yaml"
    path.write_text(OmegaConf.to_yaml({"cortex": block} if nested else block))
    settings = CortexConfig.from_file(path)
    assert settings.url() == f"https://acct.example{SERVICE}"
    assert SECRET not in repr(settings) + str(settings.model_dump())


def test_missing_settings_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read the cortex settings file"):
        CortexConfig.from_file(tmp_path / "absent.yaml")


def test_verl_group_section_is_accepted():
    from arctic_rl.integrations.verl import GROUP_FILE

    root = OmegaConf.create(
        {"actor_rollout_ref": {"rollout": {"n": 4}}, "remote_backend": OmegaConf.load(GROUP_FILE)}
    )
    root.remote_backend.cortex.base_url = "http://127.0.0.1:1"
    root.remote_backend.cortex.database = "DB"
    root.remote_backend.cortex.schema = "S"
    cfg = verl.client_config(root, model_name="m")
    assert cfg.backend == "cortex" and cfg.cortex.url() == f"http://127.0.0.1:1{SERVICE}"
    assert root.remote_backend.train.zorro_train.max_rollouts == 4  # the adapter's keys resolve


def test_verl_section_missing_says_how_to_select():
    with pytest.raises(ConfigError, match="remote_backend=cortex"):
        verl.cortex_settings({"remote_backend": {"train": {}}})


def test_yaml_wins_env_fills_only_unset(caplog):
    cfg = ArcticRLClientConfig.from_mapping(
        {"backend": "cortex", "model_name": "m", "cortex": {"host": "yaml.example"}}
    )
    env = {
        "ARCTIC_CORTEX_HOST": "env.example",
        "ARCTIC_CORTEX_DATABASE": "ENVDB",
        "CORTEX_DATABASE": "OLDDB",
        "CORTEX_SCHEMA": "OLDS",
        "ARCTIC_CORTEX_ENDPOINT": "ep",
        "ARCTIC_CORTEX_MAX_RETRIES": "3",
        "CORTEX_PAT_ENV_VAR": "MY_PAT",
        "MY_PAT": SECRET,
    }
    with caplog.at_level(logging.INFO, logger="arctic_rl"):
        resolved, sources = resolve_config(cfg, env)
    assert resolved.cortex.host == "yaml.example" and sources["cortex.host"].startswith("yaml")
    assert resolved.cortex.database == "ENVDB"  # the published client's name first
    assert sources["cortex.database"] == "env ARCTIC_CORTEX_DATABASE"
    assert resolved.cortex.schema_ == "OLDS" and sources["cortex.schema"] == "env CORTEX_SCHEMA"
    assert resolved.cortex.endpoint == "ep" and resolved.cortex.max_retries == 3
    assert resolved.cortex.pat_env == "MY_PAT"
    assert sources["cortex.base_url"] == "default"
    assert resolved.cortex.read_token(env).get_secret_value() == SECRET
    lines = [r for r in caplog.records if r.getMessage().startswith("arctic_rl config")]
    assert len(lines) == 1
    assert SECRET not in caplog.text


def test_launcher_override_turns_hard_coded_local_into_cortex():
    env = {"ARCTIC_RL_BACKEND": "cortex"}
    explicit_local = ArcticRLClientConfig(model_name="m", backend="local")
    assert "backend" in explicit_local.model_fields_set
    assert effective_backend(explicit_local, env) == "cortex"
    assert (
        effective_backend(ArcticRLClientConfig(model_name="m"), {"ARCTIC_RL_BACKEND": " CORTEX "})
        == "cortex"
    )
    resolved, sources = resolve_config(explicit_local, env)
    assert resolved.backend == "cortex" and sources["backend"] == "env ARCTIC_RL_BACKEND"
    dss = ArcticRLClientConfig(model_name="m", backend="dss-platform")
    assert effective_backend(dss, env) == "dss-platform"


def test_arctic_platforms_own_switch_selects_cortex_too():
    """`ARCTIC_BACKEND=cortex`, the name Arctic-Platform's Cortex client reads."""
    resolved, sources = resolve_config(
        ArcticRLClientConfig(model_name="m"), {"ARCTIC_BACKEND": "cortex"}
    )
    assert resolved.backend == "cortex" and sources["backend"] == "env ARCTIC_BACKEND"
    env = {"ARCTIC_BACKEND": "onprem"}
    assert effective_backend(ArcticRLClientConfig(model_name="m"), env) == "local"


@pytest.mark.parametrize("value", ["onprem", "local", "remote", "dss-platform", ""])
def test_other_launcher_values_change_nothing(value):
    env = {"ARCTIC_RL_BACKEND": value}
    assert effective_backend(ArcticRLClientConfig(model_name="m"), env) == "local"
    resolved, sources = resolve_config(ArcticRLClientConfig(model_name="m"), env)
    assert resolved.backend == "local" and sources["backend"] == "default"


def test_null_in_yaml_counts_as_unset():
    cfg = ArcticRLClientConfig.from_mapping({"model_name": "m", "cortex": {"host": None}})
    resolved, sources = resolve_config(cfg, {"ARCTIC_CORTEX_HOST": "env.example"})
    assert resolved.cortex.host == "env.example"
    assert sources["cortex.host"] == "env ARCTIC_CORTEX_HOST"


def test_flat_legacy_keys_are_honoured():
    cfg = ArcticRLClientConfig(
        model_name="m",
        backend="cortex",
        cortex_host="acct.example",
        cortex_database="DB",
        cortex_schema="S",
        cortex_endpoint="ep",
        cortex_pat_env_var="ARCTIC_MY_PAT",
        cortex_base_url=None,
        max_seq_len=2048,
    )
    assert cfg.cortex.url() == "https://acct.example/api/v2/databases/DB/schemas/S/ep"
    assert cfg.cortex.pat_env == "ARCTIC_MY_PAT"
    assert cfg.training_config == {"max_seq_len": 2048}
    mapped = ArcticRLClientConfig.from_mapping({"model_name": "m", "cortex_base_url": "http://b"})
    assert mapped.cortex.base_url == "http://b"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"cortex_hots": "x"}, "unknown legacy setting 'cortex_hots'"),
        ({"cortex_host": "a", "cortex": {"host": "b"}}, "cortex_host='a' disagrees"),
        (
            {"max_seq_len": 10, "training_config": {"max_seq_len": 20}},
            "max_seq_len=10 disagrees",
        ),
    ],
)
def test_flat_legacy_keys_that_cannot_be_honoured_are_refused(fields, message):
    with pytest.raises(ValueError, match=message):  # pydantic's ValidationError carries it
        ArcticRLClientConfig(model_name="m", **fields)


def test_missing_token_names_the_variable():
    cfg = ArcticRLClientConfig(model_name="m", cortex={"host": "h"})
    with pytest.raises(ConfigError, match="ARCTIC_CORTEX_PAT"):
        cfg.cortex.read_token({})


def test_token_repr_masked_and_config_picklable():
    token = ArcticRLClientConfig(model_name="m").cortex.read_token({"ARCTIC_CORTEX_PAT": SECRET})
    assert SECRET not in repr(token) and SECRET not in str(token)
    cfg = ArcticRLClientConfig.from_mapping({"model_name": "m", "cortex": {"base_url": "http://x"}})
    again = pickle.loads(pickle.dumps(cfg))
    assert again.model_dump() == cfg.model_dump() and again.cortex.base_url == "http://x"


def test_skyrl_settings_lookup_order(tmp_path):
    path = tmp_path / "cortex.yaml"
    path.write_text("cortex: {host: file.example, database: DB, schema: S, long_poll_s: 3}\n")
    other = tmp_path / "other.yaml"
    other.write_text("host: env-file.example\n")
    argv = [f"arctic_rl.cortex_file={path}", "arctic_rl.cortex.long_poll_s=5", "x.y=1"]
    named = skyrl.cortex_settings(argv, {"ARCTIC_RL_CORTEX_FILE": str(other)})
    assert named.host == "file.example" and named.long_poll_s == 5  # entry > file > env file
    from_env = skyrl.cortex_settings(["x.y=1"], {"ARCTIC_RL_CORTEX_FILE": str(other)})
    assert from_env.host == "env-file.example"
    assert skyrl.cortex_settings([], {}).model_fields_set == set()
    with pytest.raises(ConfigError, match=r"arctic_rl\.cortex\.<key>=<value>"):
        skyrl.cortex_settings(["arctic_rl.cortex.host"], {})
    for entry in ("trainer.arctic_rl.cortex.host=h", "trainer.arctic_rl.backend=cortex"):
        with pytest.raises(ConfigError, match="SkyRL's config has no place for"):
            skyrl.cortex_settings([entry], {})


def test_skyrl_driver_refuses_a_token_the_ray_task_would_not_get(monkeypatch):
    settings = CortexConfig(host="h", database="DB", schema="S", pat_env="CORTEX_PAT")
    with pytest.raises(ConfigError, match="only ARCTIC_"):
        skyrl._checked(settings, {"CORTEX_PAT": SECRET})
    with pytest.raises(ConfigError, match="no token"):
        skyrl._checked(settings.model_copy(update={"pat_env": "ARCTIC_X"}), {})
    with pytest.raises(ConfigError, match="missing: database"):
        skyrl._checked(CortexConfig(host="h"), {"ARCTIC_CORTEX_PAT": SECRET})
