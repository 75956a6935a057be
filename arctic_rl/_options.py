"""How a `CortexService` works: its settings, each default stated here and nowhere else.

`CortexConfig` takes its fields' defaults from `ServiceOptions` and hands a config over
as one object (`options_from`: each option read from the config field of its own name);
the service, its transport (`_endpoint.ClientSettings`) and its poll schedule
(`_polling`) read them from that object. Nothing heavy is imported here: the config
module loads it at ``import arctic_rl`` time.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["POLL_PREFIX", "PollSettings", "ServiceOptions", "options_from"]

MIB = 1024 * 1024
# A config names the poll schedule's settings with this prefix (``poll_initial_s``).
POLL_PREFIX = "poll_"


@dataclass(frozen=True)
class PollSettings:
    """The poll schedule's knobs (`_polling`'s module doc says how they are used)."""

    adaptive: bool = True  # False: the documented schedule alone
    initial_s: float = 0.5  # the documented schedule's first pause
    factor: float = 1.25  # how the pause grows after each poll
    max_s: float = 6.0  # the longest pause between polls
    probes: int = 3  # polls near the expected finish before the documented schedule resumes


@dataclass(frozen=True)
class ServiceOptions:
    """What a `CortexService` is opened with; the names are `CortexConfig`'s."""

    connect_timeout: float = 10.0
    read_timeout: float = 120.0
    verify_tls: bool = True
    # Attempts of one call, and the seconds they may take together (`_retry`).
    max_retries: int = 10
    retry_timeout: float = 600.0
    # Poll pages carry result chunks (base64) too; 256 MiB holds the largest page by far.
    max_answer_bytes: int = 256 * MIB
    allow_insecure_http: bool = False
    allow_insecure_proxy: bool = False
    chunk_bytes: int = 60 * MIB  # the largest request body an upload sends
    poll_timeout: float = 1800.0  # the whole wait for one request
    long_poll_s: float = 10.0  # wait_s sent when polling and with each submit (0: none)
    poll: PollSettings = field(default_factory=PollSettings)
    progress: bool = True  # bars, when stderr is a terminal
    progress_min_bytes: int = 16 * MIB  # the smallest upload shown with a bar


def options_from(settings: Any) -> ServiceOptions:
    """The options `settings` (a `CortexConfig`) holds, each read by its own name; the
    poll schedule's as ``poll_<name>``."""
    poll = {f.name: getattr(settings, POLL_PREFIX + f.name) for f in fields(PollSettings)}
    named = {f.name: getattr(settings, f.name) for f in fields(ServiceOptions) if f.name != "poll"}
    return ServiceOptions(**named, poll=PollSettings(**poll))
