"""The published legacy config's flat keys (`cortex_host`, ..., `max_seq_len`) folded
where they belong, and secret-looking keys dropped: the token is read only from the
environment."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from arctic_rl._errors import ConfigError

__all__ = ["LEGACY_FLAT_KEYS", "drop_secrets", "folded_legacy_keys"]

log = logging.getLogger("arctic_rl")


# Keys that look like secrets: dropped from yaml with a warning instead of being used.
_SECRET_KEYS = frozenset({"token", "pat", "password", "secret", "api_key"})


# The published legacy config's flat Cortex keys -> the cortex field they set.
LEGACY_FLAT_KEYS: dict[str, str] = {
    "cortex_host": "host",
    "cortex_base_url": "base_url",
    "cortex_database": "database",
    "cortex_schema": "schema",
    "cortex_endpoint": "endpoint",
    "cortex_pat_env_var": "pat_env",
}


def folded_legacy_keys(given: Mapping[Any, Any]) -> dict[Any, Any]:
    """The published config's flat `cortex_*` keys and `max_seq_len` moved where they belong."""
    data = dict(given)
    cortex = data.get("cortex")
    block = dict(cortex) if isinstance(cortex, Mapping) else {}
    for key in sorted(k for k in data if isinstance(k, str) and k.startswith("cortex_")):
        value = data.pop(key)
        field = LEGACY_FLAT_KEYS.get(key)
        if field is None:
            known = ", ".join(sorted(LEGACY_FLAT_KEYS))
            raise ConfigError(f"unknown legacy setting {key!r} (known: {known})")
        if value is None:
            continue
        if block.get(field) not in (None, value):
            raise ConfigError(f"{key}={value!r} disagrees with cortex.{field}")
        block[field] = value
    if block or isinstance(cortex, Mapping):
        data["cortex"] = drop_secrets(block)
    seq_len = data.pop("max_seq_len", None)
    if seq_len is not None:
        training = dict(data.get("training_config") or {})
        if training.get("max_seq_len") not in (None, seq_len):
            raise ConfigError(f"max_seq_len={seq_len!r} disagrees with training_config.max_seq_len")
        training["max_seq_len"] = seq_len
        data["training_config"] = training
    return data


def drop_secrets(block: dict[str, Any]) -> dict[str, Any]:
    """`block` without its secret-looking keys, each dropped with a warning."""
    found = sorted(k for k in block if k.lower() in _SECRET_KEYS)
    if found:
        log.warning(
            "arctic_rl: ignoring %s in the cortex config: the token is read only from the "
            "environment variable named by cortex.pat_env",
            ", ".join(found),
        )
    return {k: v for k, v in block.items() if k.lower() not in _SECRET_KEYS}
