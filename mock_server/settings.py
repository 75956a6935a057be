"""Runtime settings of the mock, shared by the CLI, the app factory and test fixtures."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arctic_rl.wire import MAX_BODY_BYTES

INLINE_RESULT_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Settings:
    """Everything ``create_app`` needs; defaults match ``make serve``.

    ``token`` is compared in constant time and never logged or shown in reprs.
    ``transition_delay_s`` is the pause between job states pending -> placing ->
    initializing -> running; ``request_latency_s`` how long each data-plane request stays
    ``running`` before its result is stored (a real service's latency). Results whose
    DSSST1 frame exceeds ``inline_result_bytes`` travel as ``result_chunk`` events of at
    most ``result_chunk_bytes`` each.
    ``database`` and ``schema`` only name the URL the mock logs: it serves every database
    and schema. Jobs created with auth on show ``user_name`` / ``role_name`` as
    ``submitted_by`` / ``owner_role``; ``default_experiment`` names the experiment of
    jobs created without ``experiment_name``.
    """

    state_dir: Path
    token: str | None = field(default=None, repr=False)
    auth: bool = True
    backend: str = "canned"
    database: str = "RL_DB"
    schema: str = "PUBLIC"
    endpoint: str = "cortex-training"
    transition_delay_s: float = 0.0
    request_latency_s: float = 0.0
    max_body_bytes: int = MAX_BODY_BYTES
    inline_result_bytes: int = INLINE_RESULT_BYTES
    result_chunk_bytes: int = INLINE_RESULT_BYTES
    device: str | None = None
    max_total_gpus: int = 64
    user_name: str = "MOCK_USER"
    role_name: str = "MOCK_ROLE"
    default_experiment: str = "ARCTIC_RL_MOCK"

    @property
    def prefix(self) -> str:
        """The contract's path prefix with this mock's default database and schema."""
        return f"/api/v2/databases/{self.database}/schemas/{self.schema}/{self.endpoint}"


__all__ = ["INLINE_RESULT_BYTES", "Settings"]
