"""One reference job's model state: its three models, optimizer and counters, and the
parts of it that its saved state holds."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from arctic_rl_mock.backends.common import JobSettings
from arctic_rl_mock.backends.persist import SavedState
from arctic_rl_mock.backends.tiny import AdamW, TinyLM

# Parts of a job's saved state, each its own blob so a commit writes only what changed;
# COUNTERS marks a change to the manifest's counters alone.
TRAIN, SAMPLER, GRADS, COUNTERS = "train", "sampler", "grads", "counters"

__all__ = ["COUNTERS", "GRADS", "SAMPLER", "TRAIN", "JobState"]


@dataclass
class JobState:
    """Everything one job's model state needs; guarded by ``lock``."""

    settings: JobSettings
    policy: TinyLM
    reference: TinyLM
    sampler: TinyLM
    optimizer: AdamW
    saved: SavedState
    global_steps: int = 0
    weight_version: int = 0
    generate_calls: int = 0
    losses: list[float] = field(default_factory=list)
    metrics: list[dict[str, float]] = field(default_factory=list)
    last_avg_loss: float | None = None
    # Saved-state parts changed since the last commit (the counters always go along).
    changed: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def counters(self) -> dict[str, Any]:
        """The small state that travels in the manifest."""
        return {
            "global_steps": self.global_steps,
            "weight_version": self.weight_version,
            "generate_calls": self.generate_calls,
            "losses": list(self.losses),
            "metrics": [dict(m) for m in self.metrics],
            "last_avg_loss": self.last_avg_loss,
            "optimizer_steps": self.optimizer.steps,
            "lr": self.optimizer.lr,
        }

    def part(self, name: str) -> Any:
        """The content of the TRAIN or GRADS blob (``None``: no gradients)."""
        if name == TRAIN:
            return {"weights": self.policy.state_dict(), "optimizer": self.optimizer.tensors()[0]}
        grads = {n: p.grad for n, p in self.optimizer.params.items() if p.grad is not None}
        return grads or None
