"""Runtime settings of the mock, shared by the CLI, the app factory and test fixtures."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cortex_gs_contract import BATCH_BUDGET, GENERATION_BUDGET

from arctic_rl.wire import MAX_BODY_BYTES

INLINE_RESULT_BYTES = 1024 * 1024
# The JSON body of ``/operation`` (a ``forward`` carries its frame as base64): not chunked,
# at most 16 MiB on the service (the contract's ``x-max-json-bytes``; a test holds them equal).
MAX_OPERATION_BODY_BYTES = 16 * 1024 * 1024
# A body this small is joined and parsed on the event loop: that takes microseconds, less
# than a hop to a worker thread and back; a larger one is handled in a thread.
ON_LOOP_BYTES = 1024 * 1024

# The contract's proposed limits (openapi/cortex_gs.yaml, "Proposed: limits"): the Settings
# defaults, which tests lower to reach them cheaply.
MAX_OPEN_CHUNK_GROUPS = 64
CHUNK_GROUP_TTL_S = 3600.0
MAX_CHUNKS_PER_GROUP = 65536
MISSING_CHUNKS_LISTED = 64
MAX_PROMPTS = 1024
MAX_COMPLETIONS_PER_PROMPT = 64
# Its cost budgets, read from the contract (``x-cost-budgets``).
MAX_BATCH_COST = BATCH_BUDGET.maximum
MAX_GENERATION_TOKENS = GENERATION_BUDGET.maximum
# The contract's proposed retention ("Proposed: retention"), plus what the mock remembers.
RESULT_RETENTION_S = 3600.0
MAX_FINISHED_REQUESTS = 4096
MAX_PRUNED_IDS = 262144
MAX_LOG_LINES = 65536
PRUNE_EVERY = 64
# Which service the mock plays: ``today`` refuses what the live service refuses and answers
# in its shapes; ``proposed`` serves the contract's proposals as well.
TODAY = "today"
PROPOSED = "proposed"
SERVICES = (TODAY, PROPOSED)


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
    The ``max_*``, ``chunk_group_ttl_s`` and ``missing_chunks_listed`` fields are the
    contract's proposed limits: unfinished chunk groups per job and their lifetime from
    the first chunk (a client frees its own with the proposed abandon route),
    ``total_chunks`` per group, how many missing indexes a ``chunk_group_missing_chunks``
    answer lists, prompts per generate / generate-stream /
    log-probs and ``sampling_params.n``; ``max_batch_cost`` and ``max_generation_tokens``
    are the cost budgets (rows x width² of a forward batch, prompts x n x max_tokens of a
    generation).
    ``service`` is ``today`` (the live service as it runs: the contract's today view, its
    registries and answer shapes; see :mod:`arctic_rl_mock.today`) or ``proposed`` (the
    full contract, proposals included).
    Retention (:mod:`arctic_rl_mock.services.retention`): a finished request's result, events and
    chunk group are kept ``result_retention_s`` seconds after it ended and a job keeps
    its newest ``max_finished_requests`` (whichever prunes first), checked after every
    ``prune_every`` finished requests and at start-up; ``max_pruned_ids`` pruned ids per
    job are remembered (for 24 hours) to answer 410, and a job keeps its last
    ``max_log_lines`` log lines.
    """

    state_dir: Path
    token: str | None = field(default=None, repr=False)
    auth: bool = True
    backend: str = "canned"
    service: str = TODAY
    database: str = "RL_DB"
    schema: str = "PUBLIC"
    endpoint: str = "cortex-training"
    transition_delay_s: float = 0.0
    request_latency_s: float = 0.0
    max_body_bytes: int = MAX_BODY_BYTES
    max_operation_body_bytes: int = MAX_OPERATION_BODY_BYTES
    inline_result_bytes: int = INLINE_RESULT_BYTES
    result_chunk_bytes: int = INLINE_RESULT_BYTES
    device: str | None = None
    max_total_gpus: int = 64
    user_name: str = "MOCK_USER"
    role_name: str = "MOCK_ROLE"
    default_experiment: str = "ARCTIC_RL_MOCK"
    max_open_chunk_groups: int = MAX_OPEN_CHUNK_GROUPS
    chunk_group_ttl_s: float = CHUNK_GROUP_TTL_S
    max_chunks_per_group: int = MAX_CHUNKS_PER_GROUP
    missing_chunks_listed: int = MISSING_CHUNKS_LISTED
    max_prompts: int = MAX_PROMPTS
    max_completions_per_prompt: int = MAX_COMPLETIONS_PER_PROMPT
    max_batch_cost: int = MAX_BATCH_COST
    max_generation_tokens: int = MAX_GENERATION_TOKENS
    result_retention_s: float = RESULT_RETENTION_S
    max_finished_requests: int = MAX_FINISHED_REQUESTS
    max_pruned_ids: int = MAX_PRUNED_IDS
    max_log_lines: int = MAX_LOG_LINES
    prune_every: int = PRUNE_EVERY

    def __post_init__(self) -> None:
        if self.service not in SERVICES:
            raise ValueError(f"service must be one of {', '.join(SERVICES)}, not {self.service!r}")

    def body_limit(self, path: str) -> int:
        """The most bytes a request body on ``path`` may have (``/operation``: its JSON cap)."""
        if path.endswith("/operation"):
            return min(self.max_body_bytes, self.max_operation_body_bytes)
        return self.max_body_bytes

    @property
    def serves_proposals(self) -> bool:
        """Whether the contract's proposals are served (routes, headers, budgets, shapes)."""
        return self.service == PROPOSED

    @property
    def prefix(self) -> str:
        """The contract's path prefix with this mock's default database and schema."""
        return f"/api/v2/databases/{self.database}/schemas/{self.schema}/{self.endpoint}"


__all__ = ["INLINE_RESULT_BYTES", "PROPOSED", "SERVICES", "TODAY", "Settings"]
