"""What ``cortex-gs-mock`` prints when it starts: where it is, and how SkyRL and verl reach it.

A user trying a recipe locally copies these lines as they are: the SkyRL cortex yaml and
verl's ``remote_backend.cortex.*`` overrides hold the same settings the guides
(docs/skyrl.md, docs/verl.md) show for a real account, pointed at this mock. The token is
never printed, only where the framework's process must find it.
"""

from __future__ import annotations

from dataclasses import dataclass

from arctic_rl_mock.settings import Settings

PAT_ENV = "ARCTIC_CORTEX_PAT"
"""The variable the SDK reads the token from by default (``cortex.pat_env``)."""
_WILDCARDS = {"0.0.0.0", "::", ""}


@dataclass(frozen=True)
class Listening:
    """Where the mock serves and which token it accepts (``token_env``: the variable that
    held it; None when it came from ``--token``)."""

    host: str
    port: int
    settings: Settings
    token_env: str | None = None

    @property
    def base_url(self) -> str:
        """Scheme and host, what the SDK's ``cortex.base_url`` means."""
        host = "127.0.0.1" if self.host in _WILDCARDS else self.host
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    def cortex_settings(self) -> dict[str, str]:
        """The SDK's cortex settings that reach this mock, in the guides' order."""
        found = {
            "base_url": self.base_url,
            "database": self.settings.database,
            "schema": self.settings.schema,
        }
        if self.settings.endpoint != Settings.endpoint:
            found["endpoint"] = self.settings.endpoint
        return found

    def token_line(self) -> str:
        """Where the framework's process finds a token this mock accepts."""
        if not self.settings.auth:
            return f"token: none is checked; the SDK still reads one: export {PAT_ENV}=anything"
        if self.token_env == PAT_ENV:
            return f"token: the one in ${PAT_ENV}; export the same value where the framework runs"
        return f"token: export {PAT_ENV}=<the token this mock was given> where the framework runs"


def connection_guide(where: Listening) -> str:
    """The lines printed at start: base_url, the SkyRL yaml, the verl overrides, the token."""
    settings = where.cortex_settings()
    yaml_lines = [f"  {key}: {value}" for key, value in settings.items()]
    overrides = [f"  remote_backend.cortex.{key}={value} \\" for key, value in settings.items()]
    overrides[-1] = overrides[-1].removesuffix(" \\")
    return "\n".join(
        [
            f"mock Cortex GS: base_url {where.base_url}",
            f"  (service URL {where.base_url}{where.settings.prefix})",
            "",
            "SkyRL: save as cortex-local.yaml, then run your recipe with",
            "arctic_rl.cortex_file=cortex-local.yaml (see docs/skyrl.md):",
            "cortex:",
            *yaml_lines,
            f"  pat_env: {PAT_ENV}",
            "",
            "verl: these overrides in place of remote_backend.cortex.host/database/schema",
            "(see docs/verl.md):",
            *overrides,
            "",
            where.token_line(),
        ]
    )
