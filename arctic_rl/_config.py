"""Client configuration: the legacy `ArcticRLClientConfig` fields plus a `cortex` block.

Settings come from yaml (a file or a section of a Hydra/OmegaConf config). The
environment only fills what the yaml left unset (`ARCTIC_CORTEX_*`, the published
client's names, then the older `CORTEX_*`), and the token is never part of the
configuration: the yaml names the environment variable that holds it.

Selection is separate: `ARCTIC_RL_BACKEND=cortex` turns a config whose backend is
"local" (hard-coded by SkyRL and verl) into a Cortex one; any other value changes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from arctic_rl._config_check import (
    explain,
    key_lines,
    load_yaml,
    misplaced_variable_name,
    refuse_unknown,
)
from arctic_rl._errors import ConfigError
from arctic_rl._legacy_keys import drop_secrets, folded_legacy_keys
from arctic_rl._options import ServiceOptions, options_from

__all__ = [
    "ArcticRLClientConfig",
    "CortexConfig",
]


Backend = Literal["local", "dss-platform", "cortex", "remote"]
CORTEX_BACKENDS = frozenset({"cortex", "remote"})
DEFAULT_PAT_ENV = "ARCTIC_CORTEX_PAT"
SELECT_ENV = "ARCTIC_RL_BACKEND"
# Either selects Cortex; the second is the name Arctic-Platform's own Cortex client reads.
SELECT_ENVS = (SELECT_ENV, "ARCTIC_BACKEND")
CORTEX_FILE_ENV = "ARCTIC_RL_CORTEX_FILE"  # the small cortex yaml a recipe may name
# A full service URL carries this path; a bare base_url is scheme + host (+ port).
_SERVICE_PATH = "/api/v2/"
# The service's settings' defaults: `ServiceOptions` states them, the fields below take them.
_SERVICE = ServiceOptions()


# Environment variables that may fill unset cortex settings, first match wins:
# field -> names. ARCTIC_* ones reach SkyRL's Ray task; CORTEX_* are the older names.
ENV_FALLBACKS: dict[str, tuple[str, ...]] = {
    "base_url": ("ARCTIC_CORTEX_BASE_URL", "CORTEX_BASE_URL"),
    "host": ("ARCTIC_CORTEX_HOST", "CORTEX_HOST"),
    "database": ("ARCTIC_CORTEX_DATABASE", "CORTEX_DATABASE"),
    "schema_": ("ARCTIC_CORTEX_SCHEMA", "CORTEX_SCHEMA"),
    "endpoint": ("ARCTIC_CORTEX_ENDPOINT", "CORTEX_ENDPOINT"),
    "max_retries": ("ARCTIC_CORTEX_MAX_RETRIES",),
    "pat_env": ("CORTEX_PAT_ENV_VAR",),
}


class CortexConfig(BaseModel):
    """Where the Cortex training service is and how patient the client is with it."""

    # An error never echoes its input: a token given by mistake would be in it.
    model_config = ConfigDict(
        extra="ignore", populate_by_name=True, validate_assignment=True, hide_input_in_errors=True
    )

    base_url: str | None = Field(
        None,
        description="Scheme and host (https://acct.example); a full service URL with "
        "/api/v2/ in it is used as given.",
    )
    host: str | None = Field(None, description="Account host name (https is implied).")
    scheme: Literal["https", "http"] = "https"
    database: str | None = None
    schema_: str | None = Field(None, alias="schema")
    endpoint: str = "cortex-training"
    pat_env: str = Field(DEFAULT_PAT_ENV, description="NAME of the env var holding the PAT.")
    job_id: str | None = Field(None, description="Reconnect to this Cortex job.")
    experiment_name: str | None = None
    connect_timeout: float = _SERVICE.connect_timeout
    read_timeout: float = _SERVICE.read_timeout
    poll_timeout: float = _SERVICE.poll_timeout
    long_poll_s: float = Field(
        _SERVICE.long_poll_s,
        description="wait_s sent when polling and with each submit (0 = plain polling)",
    )
    poll_adaptive: bool = Field(
        _SERVICE.poll.adaptive,
        description="First poll a request when recent ones of its kind took to finish "
        "(False: the documented schedule alone)",
    )
    poll_initial_s: float = Field(
        _SERVICE.poll.initial_s, gt=0, description="The documented schedule's first pause"
    )
    poll_factor: float = Field(
        _SERVICE.poll.factor, ge=1, description="How the pause grows after each poll"
    )
    poll_max_s: float = Field(
        _SERVICE.poll.max_s, gt=0, description="The longest pause between polls"
    )
    poll_probes: int = Field(
        _SERVICE.poll.probes,
        ge=1,
        description="Polls near the expected finish before the schedule resumes",
    )
    max_retries: int = _SERVICE.max_retries
    retry_timeout: float = _SERVICE.retry_timeout
    chunk_bytes: int = Field(_SERVICE.chunk_bytes, gt=64 * 1024)
    verify_tls: bool = _SERVICE.verify_tls
    allow_insecure_http: bool = Field(
        _SERVICE.allow_insecure_http,
        description="Allow plain http:// to a host other than loopback (token in clear).",
    )
    allow_insecure_proxy: bool = Field(
        _SERVICE.allow_insecure_proxy,
        description="Allow a plain http:// proxy off loopback for a plain http:// URL "
        "(the proxy sees the token in clear).",
    )
    max_answer_bytes: int = Field(
        _SERVICE.max_answer_bytes,
        gt=0,
        description="Largest answer accepted, once decompressed (a gzip bomb is refused).",
    )
    progress: bool = _SERVICE.progress
    progress_min_bytes: int = _SERVICE.progress_min_bytes
    cancel_on_shutdown: bool = Field(True, description="Cancel the job we created on shutdown.")
    service: Literal["auto", "today", "proposed"] = Field(
        "auto",
        description="Which service this is: today's (requests lowered onto what it runs), one "
        "serving the contract's proposals, or auto (asked once per client)",
    )

    @field_validator("pat_env")
    @classmethod
    def _variable_name(cls, value: str) -> str:
        """The NAME of the token's variable, never the token (refused without an echo)."""
        problem = misplaced_variable_name(value)
        if problem is not None:
            raise ValueError(
                f"must be the NAME of the environment variable holding the PAT; "
                f"the value given {problem}"
            )
        return value

    @model_validator(mode="before")
    @classmethod
    def _refuse_unknown_keys(cls, data: Any) -> Any:
        """A misspelt setting is an error naming the nearest valid one, never ignored."""
        if isinstance(data, Mapping):
            data = drop_secrets(dict(data))
            fields = cls.model_fields.items()
            refuse_unknown(data, {n for n, _ in fields} | {f.alias for _, f in fields if f.alias})
        return data

    @classmethod
    def checked(cls, data: Any, prefix: str) -> CortexConfig:
        """Validate settings given as ``<prefix>.<key>`` (``arctic_rl.cortex`` on the command
        line, ``remote_backend.cortex`` in verl's config); a problem is a
        :class:`ConfigError` naming the setting by that full name."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise explain(exc, "", tuple(prefix.split("."))) from None

    def url(self) -> str:
        """The service prefix every route hangs off."""
        if self.base_url and _SERVICE_PATH in self.base_url:
            return self.base_url.rstrip("/")
        missing = [n for n in ("database", "schema_") if not getattr(self, n)]
        if not (self.base_url or self.host):
            missing.insert(0, "host")
        if missing:
            names = ", ".join("schema" if m == "schema_" else m for m in missing)
            raise ConfigError(
                f"cortex settings incomplete: set cortex.host (or cortex.base_url), "
                f"cortex.database and cortex.schema (missing: {names})"
            )
        if self.base_url:
            root = self.base_url.rstrip("/")
            if "://" not in root:
                raise ConfigError(f"cortex.base_url needs a scheme (https://...): {root!r}")
        else:
            host = str(self.host).removeprefix("https://").removeprefix("http://").rstrip("/")
            root = f"{self.scheme}://{host}"
        return f"{root}/api/v2/databases/{self.database}/schemas/{self.schema_}/{self.endpoint}"

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> CortexConfig:
        """The small cortex yaml a recipe names: the fields at the top, or under `cortex:`."""
        data = load_yaml(path, "cortex settings file") or {}
        prefix: tuple[str, ...] = ()
        if isinstance(data, Mapping) and isinstance(data.get("cortex"), Mapping):
            data, prefix = data["cortex"], ("cortex",)
        if not isinstance(data, Mapping):
            raise ConfigError(f"the cortex settings file {path} must hold a mapping")
        try:
            return cls.model_validate(dict(data))
        except ValidationError as exc:
            raise explain(exc, str(path), prefix, key_lines(path)) from None

    def service_options(self) -> ServiceOptions:
        """The service's settings from this config, handed over as one object."""
        return options_from(self)

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
    """The config both RL integrations build: the published config's fields, so the
    frameworks' own code builds it unchanged, plus `cortex`. Unlike the published config,
    an unknown key is refused with the nearest valid name: a typo must not become a default.
    """

    model_config = ConfigDict(extra="ignore", validate_assignment=True, hide_input_in_errors=True)

    backend: Backend = "local"
    comm_protocol: Literal["http", "ray"] = "http"
    host: str | None = None  # on-prem server address; Cortex ignores both
    port: int | None = None
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
    ray_auto_attach: bool = True  # on-prem Ray only, like colocate; Cortex ignores both
    startup_timeout: float = 300
    health_check_interval: float = 2
    job_ready_timeout: float = 600
    training_job_id: str | None = None
    sampling_job_id: str | None = None
    log_prob_job_id: str | None = None
    cortex: CortexConfig = Field(default_factory=CortexConfig)

    _origin: str = PrivateAttr(default="explicit")
    # The token-layout convention of the path that built the client (reconnect copies
    # carry it to other processes): arctic_rl._layout.
    _token_layout: str | None = PrivateAttr(default=None)
    # A copy made to attach another process to this run's job (not a user naming a job).
    _reconnecting: bool = PrivateAttr(default=False)

    def __repr__(self) -> str:
        # The token is never stored here; keep the repr short and free of large dicts.
        return (
            f"ArcticRLClientConfig(backend={self.backend!r}, model_name={self.model_name!r}, "
            f"cortex_url={self.cortex.base_url or self.cortex.host!r}, "
            f"job_id={self.cortex.job_id!r})"
        )

    @model_validator(mode="before")
    @classmethod
    def _fold_legacy_keys(cls, data: Any) -> Any:
        """Honour the published legacy config's flat keys instead of ignoring them, and
        refuse any other key this config does not have.

        `cortex_host`, `cortex_base_url`, ... set the `cortex` block; top-level
        `max_seq_len` sets `training_config.max_seq_len`. A flat key that disagrees with
        the nested setting, or an unknown `cortex_*` key, is an error, never dropped.
        """
        if not isinstance(data, Mapping):
            return data
        data = folded_legacy_keys(data)
        refuse_unknown(data, cls.model_fields)
        return data

    @property
    def is_cortex(self) -> bool:
        return self.backend in CORTEX_BACKENDS

    @classmethod
    def from_mapping(
        cls, data: Any, section: str | None = None, *, origin: str = "yaml", **overrides: Any
    ) -> ArcticRLClientConfig:
        """Build from a dict or an OmegaConf DictConfig, optionally from a dotted `section`."""
        return cls._validated(data, section, origin, "the config", None, overrides)

    @classmethod
    def from_yaml(
        cls, path: str | os.PathLike[str], section: str | None = None, **overrides: Any
    ) -> ArcticRLClientConfig:
        """Load a yaml file (the recommended way to select Cortex and its settings)."""
        data = load_yaml(path) or {}
        return cls._validated(data, section, f"yaml {path}", str(path), key_lines(path), overrides)

    @classmethod
    def _validated(
        cls,
        data: Any,
        section: str | None,
        origin: str,
        where: str,
        lines: Mapping[tuple[str, ...], int] | None,
        overrides: Mapping[str, Any],
    ) -> ArcticRLClientConfig:
        data = _to_plain(data)
        prefix = tuple(section.split(".")) if section else ()
        for part in prefix:
            if not isinstance(data, Mapping) or part not in data:
                raise ConfigError(f"config section {section!r} not found")
            data = data[part]
        if not isinstance(data, Mapping):
            raise ConfigError(f"config section {section!r} is not a mapping")
        try:
            cfg = cls.model_validate({**data, **overrides})
        except ValidationError as exc:
            raise explain(exc, where, prefix, lines) from None
        cfg._origin = origin
        return cfg

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
        cfg._reconnecting = True
        return cfg


def _to_plain(data: Any) -> Any:
    """OmegaConf objects -> plain containers (omegaconf imported only if given one)."""
    if type(data).__module__.startswith("omegaconf"):
        from omegaconf import OmegaConf

        return OmegaConf.to_container(data, resolve=True)
    return data
