"""Where each setting comes from: the launcher override, then the environment.

Both frameworks hard-code ``backend="local"``; exporting ``ARCTIC_RL_BACKEND=cortex`` (or
``ARCTIC_BACKEND=cortex``) serves such a config from Cortex. Settings the yaml or code left
unset are filled from the published client's variables; one log line says where each came
from (never the token).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from arctic_rl._config import ENV_FALLBACKS, SELECT_ENVS, ArcticRLClientConfig
from arctic_rl._config_check import explain

__all__ = ["cortex_selected", "effective_backend", "resolve_config", "selecting_env"]

log = logging.getLogger("arctic_rl")


def selecting_env(environ: Mapping[str, str] | None = None) -> str | None:
    """The variable that selects Cortex (`ARCTIC_RL_BACKEND` or `ARCTIC_BACKEND` set to
    `cortex`), or None when neither does."""
    env = os.environ if environ is None else environ
    return next((n for n in SELECT_ENVS if env.get(n, "").strip().lower() == "cortex"), None)


def cortex_selected(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the launcher override (`ARCTIC_RL_BACKEND=cortex` or `ARCTIC_BACKEND=cortex`)
    is exported."""
    return selecting_env(environ) is not None


def effective_backend(
    config: ArcticRLClientConfig, environ: Mapping[str, str] | None = None
) -> str:
    """The backend after the launcher override: "local" becomes "cortex" when selected.

    Both frameworks hard-code backend="local", so the override must beat it; any other
    value of the selecting variables, and any other backend, is left alone.
    """
    if config.backend == "local" and cortex_selected(environ):
        return "cortex"
    return config.backend


def resolve_config(
    config: ArcticRLClientConfig, environ: Mapping[str, str] | None = None
) -> tuple[ArcticRLClientConfig, dict[str, str]]:
    """Apply the launcher override and fill unset cortex settings from the environment.

    Explicit settings (yaml or code) always win over the environment. Returns the result
    and each setting's source; one log line reports them (never the token).
    """
    env = os.environ if environ is None else environ
    resolved = config.model_copy(deep=True)
    resolved._origin = config._origin
    sources: dict[str, str] = {}
    backend = effective_backend(config, env)
    if backend != config.backend:
        resolved.backend = backend  # type: ignore[assignment]
        sources["backend"] = f"env {selecting_env(env)}"
    else:
        explicit = "backend" in config.model_fields_set
        sources["backend"] = config._origin if explicit else "default"
    cortex_set = config.cortex.model_fields_set if "cortex" in config.model_fields_set else set()
    for field, names in ENV_FALLBACKS.items():
        label = "schema" if field == "schema_" else field
        if field in cortex_set and getattr(config.cortex, field) is not None:  # null = unset
            sources[f"cortex.{label}"] = config._origin
            continue
        name = next((n for n in names if env.get(n)), None)
        if name is None:
            sources[f"cortex.{label}"] = "default"
            continue
        try:
            setattr(resolved.cortex, field, env[name])
        except ValidationError as exc:  # never echoes the value (it may be the token)
            raise explain(exc, f"${name}", ("cortex",)) from None
        sources[f"cortex.{label}"] = f"env {name}"
    pat_env = resolved.cortex.pat_env
    sources["token"] = f"env {pat_env}" if env.get(pat_env) else f"env {pat_env}, which is not set"
    summary = ", ".join(f"{k}={_show(resolved, k, env)} ({v})" for k, v in sources.items())
    log.info("arctic_rl config: %s", summary)
    return resolved, sources


def _show(cfg: ArcticRLClientConfig, key: str, env: Mapping[str, str]) -> str:
    if key == "token":
        return "***" if env.get(cfg.cortex.pat_env) else "unset"
    obj: Any = cfg
    for part in key.split("."):
        obj = getattr(obj, "schema_" if part == "schema" else part)
    return repr(obj)
