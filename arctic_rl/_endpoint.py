"""Where the client connects and with what: the HTTP seam's settings, and the rule that
a token never crosses the network over plain http:// (loopback excepted)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import SecretStr

from arctic_rl._errors import ConfigError

if TYPE_CHECKING:
    import httpx

__all__ = ["DEFAULT_MAX_ANSWER_BYTES", "ClientSettings", "check_scheme", "is_loopback"]

DEFAULT_MAX_ANSWER_BYTES = 256 * 1024 * 1024
LOOPBACK_NAMES = frozenset({"localhost"})


@dataclass(frozen=True)
class ClientSettings:
    """What the HTTP seam is opened with (kept until the first call opens it)."""

    base_url: str
    token: SecretStr
    connect_timeout: float = 10.0
    read_timeout: float = 120.0
    verify_tls: bool = True
    max_retries: int = 10
    retry_timeout: float = 600.0
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    inner: httpx.AsyncBaseTransport | None = None
    token_env: str | None = None  # the variable the token came from (named in a 401)


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP literal (127.0.0.0/8, ::1)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_scheme(base_url: str, *, allow_insecure_http: bool = False) -> None:
    """Plain http:// only to loopback (or when explicitly allowed): the token rides along."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if parts.scheme == "http" and not allow_insecure_http and not is_loopback(host):
        raise ConfigError(
            f"refusing plain http:// to {host}: the token would cross the network "
            f"unencrypted. Use https://, or set cortex.allow_insecure_http: true if the "
            f"network in between is trusted (http:// to localhost/127.0.0.1/::1 is allowed)"
        )
