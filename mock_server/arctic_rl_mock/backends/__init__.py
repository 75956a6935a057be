"""Compute backends behind the mock's routes.

The routes and the request worker speak only in decoded DSSST1 values (nested dicts,
lists and tensors produced by ``arctic_rl.wire``) and JSON dicts; everything that knows
about models, optimisers or devices lives behind the :class:`Backend` protocol, so a new
backend never touches HTTP code and the HTTP code never imports torch models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from cortex_gs_contract import JobType

from arctic_rl_mock.hooks import Hooks

__all__ = ["BACKEND_NAMES", "Backend", "BackendError", "make_backend", "sub_job_ids"]

BACKEND_NAMES = ("canned", "reference")


class BackendError(Exception):
    """A request the backend cannot execute; becomes the request's ``error``.

    ``code`` is one of the contract's error codes (``bad_value`` for malformed batches).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@runtime_checkable
class Backend(Protocol):
    """What the request worker needs from a model backend.

    Every method runs on the worker thread, never on the event loop. ``sub_jobs`` are the
    job's validated ``sub_job_configs`` as plain dicts. A job's state lives in memory and
    under its ``state_dir``: ``prepare_job`` builds a new job's, ``restore_job`` brings a
    running job's back after a mock restart, and ``commit_job`` saves what a request
    changed before the worker stores that request as done.
    """

    name: str

    def prepare_job(
        self, job_id: str, sub_jobs: Sequence[Mapping[str, Any]], state_dir: Path
    ) -> None:
        """Build a new job's state and save it under ``state_dir`` (idempotent)."""

    def restore_job(
        self,
        job_id: str,
        sub_jobs: Sequence[Mapping[str, Any]],
        state_dir: Path,
        applied: Callable[[str], bool],
    ) -> int:
        """Reload the state saved under ``state_dir``; returns the job's ``global_steps``.

        ``applied(request_id)`` tells whether that request's changes stand (done, or
        pruned once finished); state saved by a request that is not is rolled back.
        Raises :class:`BackendError` when the state cannot come back (missing,
        unreadable, another backend's).
        """

    def commit_job(self, job_id: str, request_id: str | None) -> None:
        """Save what changed since the last commit (``request_id``: the request that did)."""

    def release_job(self, job_id: str) -> None:
        """Free a cancelled or finished job's in-memory state."""

    def forward_backward(self, job_id: str, batch: Mapping[str, Any]) -> dict[str, Any]:
        """Loss + accumulated gradients; returns a ForwardBackwardResult value."""

    def forward_no_grad(self, job_id: str, batch: Mapping[str, Any]) -> dict[str, Any]:
        """Shifted logprobs/entropy without gradients; returns a ForwardNoGradResult value."""

    def step(self, job_id: str, learning_rate: float | None) -> dict[str, Any]:
        """Apply the optimizer to accumulated gradients; returns a StepResult dict."""

    def generate(self, job_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Sample from the sampling copy; returns a GenerateResult value."""

    def log_probs(self, job_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Score prompts/completions; returns a LogProbsResult value."""

    def sync_weights(self, job_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Copy training weights into the sampling copy; returns a SyncWeightsResult dict."""

    def save_checkpoint(self, job_id: str, directory: Path, checkpoint_type: str) -> dict[str, Any]:
        """Write the job's state under ``directory``; returns ``{global_steps, avg_loss}``."""

    def load_checkpoint(self, job_id: str, directory: Path) -> dict[str, Any]:
        """Restore state written by ``save_checkpoint``; returns ``{global_steps}``."""


def make_backend(name: str, *, device: str | None = None, hooks: Hooks | None = None) -> Backend:
    """Build a backend by CLI name; torch is only imported for the reference backend.

    ``hooks`` are the app's hooks, which the backend writes its saved state through.
    """
    if name == "canned":
        from arctic_rl_mock.backends.canned import CannedBackend

        return CannedBackend(hooks=hooks)
    if name == "reference":
        from arctic_rl_mock.backends.reference import ReferenceBackend

        return ReferenceBackend(device=device, hooks=hooks)
    raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKEND_NAMES)}")


# Job types as they appear in sub-job ids (the SubJobId pattern says ``log_prob``).
_ID_KIND = {
    JobType.training: "training",
    JobType.sampling: "sampling",
    JobType.log_probability: "log_prob",
}


def sub_job_ids(job_id: str, sub_jobs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Sub-job ids in creation order, ``{job_id}:{training|sampling|log_prob}:{index}``."""
    counts: dict[str, int] = {}
    out = []
    for sub in sub_jobs:
        kind = _ID_KIND.get(str(sub.get("job_type")), str(sub.get("job_type")))
        out.append(f"{job_id}:{kind}:{counts.get(kind, 0)}")
        counts[kind] = counts.get(kind, 0) + 1
    return out
