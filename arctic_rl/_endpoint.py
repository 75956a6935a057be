"""Where the client connects and with what: the HTTP seam's settings, and the rules that
a token never crosses the network over plain http:// (loopback excepted), nor reaches a
proxy in clear.

Proxies: the one the environment names for the URL's scheme (``HTTP_PROXY``,
``HTTPS_PROXY``, else ``ALL_PROXY``; ``NO_PROXY`` honoured), never for a loopback target
(an ``ssh -L`` tunnel to the service is reached directly, as curl and requests reach
localhost). A plain ``http://`` target through a plain ``http://`` proxy off loopback
would hand the proxy the token in clear: refused unless ``cortex.allow_insecure_proxy``.
A proxy is only ever named without the credentials its URL may carry.
"""

from __future__ import annotations

import ipaddress
import os
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import SecretStr

from arctic_rl._errors import ConfigError
from arctic_rl._options import ServiceOptions

if TYPE_CHECKING:
    import httpx

__all__ = [
    "ClientSettings",
    "ServiceTraits",
    "check_scheme",
    "is_loopback",
    "proxy_for",
    "without_credentials",
]

LOOPBACK_NAMES = frozenset({"localhost"})


@dataclass(frozen=True)
class ClientSettings:
    """What the HTTP seam is opened with (kept until the first call opens it)."""

    base_url: str
    token: SecretStr
    # Timeouts, retries, the answer cap, TLS verification: `ServiceOptions`' defaults.
    options: ServiceOptions = field(default_factory=ServiceOptions)
    inner: httpx.AsyncBaseTransport | None = None
    token_env: str | None = None  # the variable the token came from (named in a 401)
    proxy: str | None = None  # the proxy the environment names for base_url (`proxy_for`)
    traits: ServiceTraits = field(default_factory=lambda: ServiceTraits())


@dataclass
class ServiceTraits:
    """What the client knows of the service it talks to; found out once per client."""

    # Whether the service recognises a call sent again by its Idempotency-Key. Today's
    # does not (`_retry`: such a call is then resent only when it provably never ran);
    # set when a service that serves the proposals is found.
    served_idempotency: bool = False


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


def without_credentials(url: str) -> str:
    """``scheme://host[:port]`` of a URL: what may be shown of a proxy's."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}"


def proxy_for(
    base_url: str,
    *,
    allow_insecure_proxy: bool = False,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """The proxy to reach ``base_url`` through, from the environment (see the module's doc)."""
    target = urlsplit(base_url)
    host = target.hostname or ""
    if is_loopback(host):
        return None
    env = os.environ if environ is None else environ
    proxies = _proxies(env)
    proxy = proxies.get(target.scheme) or proxies.get("all")
    if not proxy or _bypassed(host, env):
        return None
    via = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    in_clear = target.scheme == "http" and via.scheme == "http"
    if in_clear and not allow_insecure_proxy and not is_loopback(via.hostname or ""):
        raise ConfigError(
            f"refusing to send the token for http://{host} through the plain http:// proxy "
            f"{without_credentials(via.geturl())} (from the environment): the proxy would see "
            "it in clear. Use https:// for the service, name it in NO_PROXY, or set "
            "cortex.allow_insecure_proxy: true if that proxy is trusted"
        )
    return proxy


def _proxies(environ: Mapping[str, str]) -> dict[str, str]:
    """``{scheme: proxy}`` from ``*_PROXY`` variables (lower case wins, as in urllib)."""
    found: dict[str, str] = {}
    for upper_first in (True, False):
        for name, value in environ.items():
            if name.lower().endswith("_proxy") and value and (name.isupper() == upper_first):
                found[name[: -len("_proxy")].lower()] = value
    return found


def _bypassed(host: str, environ: Mapping[str, str]) -> bool:
    """Whether ``NO_PROXY`` names ``host``."""
    no_proxy = environ.get("no_proxy") or environ.get("NO_PROXY") or ""
    return bool(no_proxy) and bool(urllib.request.proxy_bypass_environment(host, {"no": no_proxy}))
