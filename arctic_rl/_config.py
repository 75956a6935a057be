"""Client configuration: the legacy `ArcticRLClientConfig` fields plus a `cortex` block.

Settings come from yaml (a file or a section of a Hydra/OmegaConf config). The
environment only fills what the yaml left unset, and the token is never part of the
configuration: the yaml names the environment variable that holds it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SecretStr

from arctic_rl._errors import ConfigError

__all__ = ["ArcticRLClientConfig", "CortexConfig", "resolve_config"]

log = logging.getLogger("arctic_rl")

Backend = Literal["local", "dss-platform", "cortex", "remote"]
CORTEX_BACKENDS = frozenset({"cortex", "remote"})
ON_PREM_BACKENDS = frozenset({"local", "dss-platform"})
DEFAULT_CHUNK_BYTES = 60 * 1024 * 1024

# Keys that look like secrets: dropped from yaml with a warning instead of being used.
_SECRET_KEYS = frozenset({"token", "pat", "password", "secret", "api_key"})

# Environment variables that may fill unset settings: name -> (block, field).
ENV_FALLBACKS: dict[str, tuple[str, str]] = {
    "ARCTIC_RL_BACKEND": ("", "backend"),
    "CORTEX_BASE_URL": ("cortex", "base_url"),
    "CORTEX_HOST": ("cortex", "host"),
    "CORTEX_DATABASE": ("cortex", "database"),
    "CORTEX_SCHEMA": ("cortex", "schema_"),
    "CORTEX_ENDPOINT": ("cortex", "endpoint"),
    "CORTEX_PAT_ENV_VAR": ("cortex", "pat_env"),
}


class CortexConfig(BaseModel):
    """Where the Cortex training service is and how patient the client is with it."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, validate_assignment=True)

    base_url: str | None = Field(None, description="Full service URL (mock, staging).")
    host: str | None = Field(None, description="Account host name.")
    scheme: Literal["https", "http"] = "https"
    database: str | None = None
    schema_: str | None = Field(None, alias="schema")
    endpoint: str = "cortex-training"
    pat_env: str = Field("CORTEX_PAT", description="NAME of the env var holding the PAT.")
    job_id: str | None = Field(None, description="Reconnect to this Cortex job.")
    experiment_name: str | None = None
    connect_timeout: float = 10.0
    read_timeout: float = 120.0
    poll_timeout: float = 1800.0
    long_poll_s: float = Field(10.0, description="wait_s sent when polling (0 = plain polling)")
    max_retries: int = 10
    retry_timeout: float = 600.0
    chunk_bytes: int = Field(DEFAULT_CHUNK_BYTES, gt=64 * 1024)
    verify_tls: bool = True
    progress: bool = True
    progress_min_bytes: int = 16 * 1024 * 1024
    cancel_on_shutdown: bool = Field(True, description="Cancel the job we created on shutdown.")

    def url(self) -> str:
        """The service prefix every route hangs off."""
        if self.base_url:
            return self.base_url.rstrip("/")
        missing = [n for n in ("host", "database", "schema_") if not getattr(self, n)]
        if missing:
            names = ", ".join("schema" if m == "schema_" else m for m in missing)
            raise ConfigError(
                f"cortex settings incomplete: set cortex.base_url, or cortex.host, "
                f"cortex.database and cortex.schema (missing: {names})"
            )
        host = str(self.host).removeprefix("https://").removeprefix("http://").rstrip("/")
        return (
            f"{self.scheme}://{host}/api/v2/databases/{self.database}"
            f"/schemas/{self.schema_}/{self.endpoint}"
        )

    def read_token(self, environ: Mapping[str, str] | None = None) -> SecretStr:
        """The PAT from the environment variable named by `pat_env` (never from a file)."""
        env = os.environ if environ is None else environ
        value = env.get(self.pat_env, "")
        if not value:
            raise ConfigError(
                f"no token: set the environment variable {self.pat_env} "
                f"(named by cortex.pat_env) to a programmatic access token"
            )
        return SecretStr(value)


class ArcticRLClientConfig(BaseModel):
    """The config both RL integrations build; unknown keys are ignored on purpose."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    backend: Backend = "local"
    comm_protocol: Literal["http", "ray"] = "http"
    host: str = "localhost"
    port: int = 8000
    model_name: str
    ds_config: dict[str, Any] = Field(default_factory=dict)
    training_config: dict[str, Any] | None = None
    vllm_config: dict[str, Any] | None = None
    log_prob_ds_config: dict[str, Any] | None = None
    ds_worker_config: dict[str, Any] | None = None
    arctic_inference_config: dict[str, Any] | None = None
    checkpoint_path: str | None = None
    full_determinism: bool = False
    seed: int = 42
    training_gpus: int = 0
    sampling_gpus: int = 0
    log_prob_gpus: int = 0
    log_prob_engine: Literal["vllm", "deepspeed"] = "vllm"
    colocate: bool = False
    cuda_ipc: bool = False
    low_memory: bool = False
    server_logs: bool | str | None = False
    startup_timeout: float = 300
    health_check_interval: float = 2
    job_ready_timeout: float = 600
    training_job_id: str | None = None
    sampling_job_id: str | None = None
    log_prob_job_id: str | None = None
    cortex: CortexConfig = Field(default_factory=CortexConfig)

    _origin: str = PrivateAttr(default="explicit")

    def __repr__(self) -> str:
        # The token is never stored here; keep the repr short and free of large dicts.
        return (
            f"ArcticRLClientConfig(backend={self.backend!r}, model_name={self.model_name!r}, "
            f"cortex_url={self.cortex.base_url or self.cortex.host!r}, "
            f"job_id={self.cortex.job_id!r})"
        )

    @property
    def is_cortex(self) -> bool:
        return self.backend in CORTEX_BACKENDS

    @classmethod
    def from_mapping(
        cls, data: Any, section: str | None = None, *, origin: str = "yaml", **overrides: Any
    ) -> ArcticRLClientConfig:
        """Build from a dict or an OmegaConf DictConfig, optionally from a dotted `section`."""
        data = _to_plain(data)
        for part in (section or "").split(".") if section else []:
            if not isinstance(data, Mapping) or part not in data:
                raise ConfigError(f"config section {section!r} not found")
            data = data[part]
        if not isinstance(data, Mapping):
            raise ConfigError(f"config section {section!r} is not a mapping")
        merged = dict(data)
        cortex = merged.get("cortex")
        if isinstance(cortex, Mapping):
            merged["cortex"] = _drop_secrets(dict(cortex))
        merged.update(overrides)
        cfg = cls.model_validate(merged)
        cfg._origin = origin
        return cfg

    @classmethod
    def from_yaml(
        cls, path: str | os.PathLike[str], section: str | None = None, **overrides: Any
    ) -> ArcticRLClientConfig:
        """Load a yaml file (the recommended way to select Cortex and its settings)."""
        import yaml

        text = Path(path).read_text(encoding="utf-8")
        return cls.from_mapping(
            yaml.safe_load(text) or {}, section, origin=f"yaml {path}", **overrides
        )

    def reconnect_copy(
        self, job_id: str, sub_jobs: Mapping[str, str | None]
    ) -> ArcticRLClientConfig:
        """A copy pointing at an existing job, so another process attaches instead of creating."""
        cfg = self.model_copy(deep=True)
        cfg.cortex = cfg.cortex.model_copy(update={"job_id": job_id})
        cfg.training_job_id = sub_jobs.get("training")
        cfg.sampling_job_id = sub_jobs.get("sampling")
        cfg.log_prob_job_id = sub_jobs.get("log_prob")
        cfg._origin = self._origin
        return cfg


def _to_plain(data: Any) -> Any:
    """OmegaConf objects -> plain containers (omegaconf imported only if given one)."""
    if type(data).__module__.startswith("omegaconf"):
        from omegaconf import OmegaConf

        return OmegaConf.to_container(data, resolve=True)
    return data


def _drop_secrets(block: dict[str, Any]) -> dict[str, Any]:
    found = sorted(k for k in block if k.lower() in _SECRET_KEYS)
    if found:
        log.warning(
            "arctic_rl: ignoring %s in the cortex config: the token is read only from the "
            "environment variable named by cortex.pat_env",
            ", ".join(found),
        )
    return {k: v for k, v in block.items() if k.lower() not in _SECRET_KEYS}


def effective_backend(
    config: ArcticRLClientConfig, environ: Mapping[str, str] | None = None
) -> str:
    """The backend after the environment fallback, without logging (for dispatch)."""
    env = os.environ if environ is None else environ
    if "backend" in config.model_fields_set or not env.get("ARCTIC_RL_BACKEND"):
        return config.backend
    return env["ARCTIC_RL_BACKEND"]


def resolve_config(
    config: ArcticRLClientConfig, environ: Mapping[str, str] | None = None
) -> tuple[ArcticRLClientConfig, dict[str, str]]:
    """Fill unset settings from the environment; return the result and each setting's source.

    Explicit settings (yaml or code) always win. One log line reports the sources.
    """
    env = os.environ if environ is None else environ
    resolved = config.model_copy(deep=True)
    resolved._origin = config._origin
    cortex_set = config.cortex.model_fields_set if "cortex" in config.model_fields_set else set()
    sources: dict[str, str] = {}
    for var, (block, field) in ENV_FALLBACKS.items():
        target: BaseModel = resolved.cortex if block else resolved
        chosen = cortex_set if block else config.model_fields_set
        explicit = field in chosen and getattr(target, field) is not None  # null = unset
        label = "schema" if field == "schema_" else field
        key = f"{block}.{label}" if block else label
        if explicit:
            sources[key] = config._origin
        elif env.get(var):
            setattr(target, field, env[var])
            sources[key] = f"env {var}"
        else:
            sources[key] = "default"
    sources["token"] = f"env {resolved.cortex.pat_env}"
    summary = ", ".join(f"{k}={_show(resolved, k)} ({v})" for k, v in sources.items())
    log.info("arctic_rl config: %s", summary)
    return resolved, sources


def _show(cfg: ArcticRLClientConfig, key: str) -> str:
    if key == "token":
        return "***"
    obj: Any = cfg
    for part in key.split("."):
        obj = getattr(obj, "schema_" if part == "schema" else part)
    return repr(obj)
