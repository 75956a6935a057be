"""The service under test: its URL (TLS unless it is this machine), its token, and how a
request is written down for a person without the token in it.

The token is read from the environment variable the caller names and is sent only to the
target. It never appears in an argument, a repr, a log line or the report: the ``curl``
lines the report carries say ``$VARNAME`` where the token went, so they still reproduce
the request for whoever has that variable set.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from cortex_gs_contract import TOKEN_TYPE, TOKEN_TYPE_HEADER

from arctic_rl.shared import TokenMask, is_loopback, misplaced_variable_name

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Headers worth showing in a reproduction; transport noise (user agent, lengths) is not.
SAVED_BODY_LIMIT = 1 << 20
SHOWN_HEADERS = ("authorization", TOKEN_TYPE_HEADER.lower(), "content-type", "idempotency-key")


class TargetError(ValueError):
    """The target cannot be checked as given (bad URL, no token); says what to fix."""


def check_url(url: str) -> str:
    """The service prefix without a trailing slash; ``http://`` only for loopback."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise TargetError(f"URL must be https://HOST/... (got {url!r})")
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        raise TargetError(
            f"refusing plain http:// to {parts.hostname}: the token would cross the network "
            "unencrypted; use https:// (http:// is accepted only for localhost/127.0.0.1/::1)"
        )
    if parts.username or parts.password:
        raise TargetError("the URL must not carry credentials; the token comes from PAT_ENV")
    return url.rstrip("/")


@dataclass(frozen=True)
class Target:
    """Where to send requests and the credentials to send with them."""

    base_url: str
    pat_env: str
    token: str = field(repr=False)

    @classmethod
    def from_env(cls, url: str, pat_env: str, environ: Mapping[str, str] | None = None) -> Target:
        """Validate ``url`` and read the token from the variable named ``pat_env``."""
        problem = misplaced_variable_name(pat_env or "")
        if problem is not None:  # never echoed: it may be the token itself
            raise TargetError(
                f"PAT_ENV (--pat-env) must be the NAME of an environment variable, and the "
                f"value given {problem}; the token itself never goes on a command line"
            )
        env = os.environ if environ is None else environ
        token = env.get(pat_env, "")
        if not token:
            raise TargetError(f"the environment variable {pat_env} (PAT_ENV) is empty or unset")
        return cls(base_url=check_url(url), pat_env=pat_env, token=token)

    def auth_headers(self) -> dict[str, str]:
        """Both PAT headers a call needs."""
        return {"Authorization": f"Bearer {self.token}", TOKEN_TYPE_HEADER: TOKEN_TYPE}

    @functools.cached_property
    def _runs(self) -> TokenMask:
        return TokenMask(self.token)

    def mask(self, text: str) -> str:
        """``text`` with the token replaced by ``$PAT_ENV``, and any run of 8 or more of its
        characters (a quote cut mid-token) masked: the report's last safeguard."""
        return self._runs(text.replace(self.token, f"${self.pat_env}"))

    def curl(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | None,
        body_dir: Path | None = None,
    ) -> str:
        """A ``curl`` line reproducing a request, the token written as ``$PAT_ENV``.

        A binary body is saved under ``body_dir`` (named by its hash) and sent with
        ``--data-binary @file``; a text body goes inline.
        """
        parts = ["curl", "-sS", "-X", method.upper(), shlex.quote(url)]
        for name, value in headers.items():
            if name.lower() not in SHOWN_HEADERS:
                continue
            # Double quotes, so the shell expands $VAR where the token went, and only there.
            pieces = value.split(self.token) if self.token else [value]
            escaped = f"${{{self.pat_env}}}".join(_double_quoted(piece) for piece in pieces)
            parts += ["-H", f'"{name}: {escaped}"']
        if body:
            parts += _body_args(body, body_dir)
        return self.mask(" ".join(parts))


def _double_quoted(text: str) -> str:
    """``text`` safe inside double quotes (nothing in it expands)."""
    for char in ("\\", '"', "`", "$"):
        text = text.replace(char, "\\" + char)
    return text


def _body_args(body: bytes, body_dir: Path | None) -> list[str]:
    if len(body) > SAVED_BODY_LIMIT and body.count(0) == len(body):
        return ["--data-binary", f"@<(head -c {len(body)} /dev/zero)"]
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and text.isprintable() and len(text) <= 4096:
        return ["--data-raw", shlex.quote(text)]
    if len(body) > SAVED_BODY_LIMIT:
        return ["--data-binary", "@BODY", f"# {len(body)} bytes, too large to keep"]
    name = f"body-{hashlib.sha256(body).hexdigest()[:16]}.bin"
    if body_dir is not None:
        body_dir.mkdir(parents=True, exist_ok=True)
        (body_dir / name).write_bytes(body)
        return ["--data-binary", f"@{shlex.quote(str(body_dir / name))}"]
    return ["--data-binary", f"@{name}", f"# {len(body)} bytes, not saved"]
