"""Which Cortex service a client talks to: today's, as it runs, or one serving the proposals.

The live service is narrower than its published description (docs/layout.md, "Against
today's service"): no ``verl_grpo``, no ``apply_temperature`` or
``compute_entropy_and_logprobs``, no ``/forward-no-grad``, no ``n``, no
``Idempotency-Key``. A client finds out once which one it talks to, from the proposed
capabilities route (``GET {service}/capabilities``): a service serving the proposals
answers it, today's answers 404. ``cortex.service`` in the yaml (``auto``, ``today``,
``proposed``) skips the question. What today's registers is read from the contract
(``x-registries``), by name, so a request naming something it lacks is refused before it
is sent.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from arctic_rl._config_check import nearest
from arctic_rl._errors import NotServedError

__all__ = [
    "PROPOSED",
    "PROPOSED_REGISTRIES",
    "SERVICE_SETTINGS",
    "TODAY",
    "Registries",
    "ServiceKind",
    "announce",
    "contract_schemas",
    "registries_of",
    "today_registries",
]

log = logging.getLogger("arctic_rl")

ServiceKind = Literal["today", "proposed"]
TODAY: ServiceKind = "today"
PROPOSED: ServiceKind = "proposed"
SERVICE_SETTINGS = ("auto", TODAY, PROPOSED)


@dataclass(frozen=True)
class Registries:
    """The losses and post-processors a service registers (None: an open registry, the
    deployed backend's, which the client cannot know and leaves to the service)."""

    service: ServiceKind
    losses: frozenset[str] | None
    post_processors: frozenset[str] | None

    def check(self, processing: Mapping[str, Any] | None) -> None:
        """Refuse a loss or post-processor this service does not register, before sending."""
        processing = processing or {}
        loss = processing.get("loss_fn")
        if loss is not None:
            self._refuse_unknown("loss", [str(loss)], self.losses)
        post = processing.get("post")
        if post:
            names = [post] if isinstance(post, str) else [str(p) for p in post]
            self._refuse_unknown("post-processor", names, self.post_processors)

    def _refuse_unknown(
        self, what: str, names: Iterable[str], known: frozenset[str] | None
    ) -> None:
        if known is None:
            return
        for name in names:
            if name not in known:
                near = nearest(name, known)
                hint = f" (did you mean {near!r}?)" if near else ""
                raise NotServedError(
                    f"{self.service}'s Cortex service registers no {what} {name!r}{hint}; "
                    f"it registers {sorted(known)}",
                    code="not_registered",
                    details=[{"kind": what, "name": name, "registered": sorted(known)}],
                )


@cache
def contract_schemas() -> dict[str, Any]:
    """The contract's component schemas (read once, when a client starts: the checks
    before each call read them)."""
    import yaml

    text = resources.files("cortex_gs_contract").joinpath("cortex_gs.yaml").read_text("utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's: 0.1 s, not 0.7 s
    return dict(yaml.load(text, Loader=loader)["components"]["schemas"])


def _today_names(entries: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    return frozenset(str(e["name"]) for e in entries if e.get("x-status") != "proposed")


@cache
def today_registries() -> Registries:
    """What live jobs register: the contract's ``x-registries``, proposals left out."""
    registries = contract_schemas()["Processing"]["x-registries"]
    return Registries(
        TODAY,
        losses=_today_names(registries["losses"]),
        post_processors=_today_names(registries["post_processors"]),
    )


# The contract's proposals keep the registries open (the deployed backend's).
PROPOSED_REGISTRIES = Registries(PROPOSED, losses=None, post_processors=None)


def registries_of(kind: ServiceKind) -> Registries:
    return today_registries() if kind == TODAY else PROPOSED_REGISTRIES


def announce(kind: ServiceKind, base_url: str, how: str) -> None:
    """The one log line per client naming the service it found and what that means."""
    if kind == TODAY:
        log.info(
            "arctic_rl: %s serves today's Cortex API, not the proposals (%s): the legacy "
            "client lowers requests onto it (verl_grpo as grpo, fwd_no_grad through the "
            "forward operation, n as repeated prompts; rows left-aligned and answers put "
            "back in the caller's layout)",
            base_url,
            how,
        )
    else:
        log.info(
            "arctic_rl: %s serves the contract's proposals (%s): requests are sent as the "
            "contract states them, not lowered",
            base_url,
            how,
        )
