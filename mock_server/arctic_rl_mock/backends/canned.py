"""The canned backend: instant, shape-correct, deterministic answers.

For client tests that care about the protocol (shapes, keys, dtypes, polling, chunking)
rather than learning: every answer is a pure function of the request and the job's
call count, so tests can assert exact values. The counters are committed under the job's
state directory after each request that changed them (:mod:`arctic_rl_mock.backends.persist`),
so a restarted mock keeps counting where it stopped.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from cortex_gs_contract import ErrorCode

from arctic_rl_mock.backends import BackendError
from arctic_rl_mock.backends.common import (
    JobSettings,
    TrainView,
    input_ids_of,
    output_view,
    peak_memory,
    uniform_logprob,
    wants,
)
from arctic_rl_mock.backends.persist import Applied, SavedState, state_lost
from arctic_rl_mock.backends.prompts import (
    decode_tokens,
    encode_prompt,
    generation_rows,
    max_tokens_of,
)
from arctic_rl_mock.backends.sampling import log_prob_inputs
from arctic_rl_mock.hooks import Hooks

CANNED_METRICS = {
    "grad_norm": 1.0,
    "ppo_kl": 0.0,
    "pg_clipfrac_lower": 0.0,
    "pg_loss": 0.5,
    "kl_loss": 0.0,
    "kl_coef": 0.0,
}
CANNED_LOSS = 0.5
STATE_FILE = "canned_state.json"


def _uniform(batch: Mapping[str, Any], value: float) -> torch.Tensor:
    """A float32 per-token output in the roll layout: [B, T], last column 0."""
    bsz, width = input_ids_of(batch).shape
    return output_view(torch.full((bsz, max(width - 1, 0)), value, dtype=torch.float32))


class CannedBackend:
    """Answers every operation without a model; keeps only step and sync counters."""

    name = "canned"

    def __init__(self, hooks: Hooks | None = None) -> None:
        self.hooks = hooks or Hooks()  # what the saved counters are written through
        self._settings: dict[str, JobSettings] = {}
        self._counters: dict[str, dict[str, int]] = {}
        self._saved: dict[str, SavedState] = {}
        self._changed: set[str] = set()  # jobs whose counters moved since their last commit
        self._lock = threading.Lock()

    def prepare_job(
        self, job_id: str, sub_jobs: Sequence[Mapping[str, Any]], state_dir: Path
    ) -> None:
        """Remember the job's optimizer settings for ``last_lr``; save zeroed counters."""
        with self._lock:
            if job_id in self._settings:
                return
            self._settings[job_id] = JobSettings.from_sub_jobs(job_id, sub_jobs)
            self._counters[job_id] = {"steps": 0, "version": 0}
            self._saved[job_id] = SavedState.fresh(state_dir, self.name, self.hooks)
            self._changed.add(job_id)
        self.commit_job(job_id, None)

    def restore_job(
        self,
        job_id: str,
        sub_jobs: Sequence[Mapping[str, Any]],
        state_dir: Path,
        applied: Applied,
    ) -> int:
        """Take the saved counters back; returns the step count."""
        saved, counters, _ = SavedState.restore(state_dir, self.name, applied, self.hooks)
        try:
            restored = {"steps": int(counters["steps"]), "version": int(counters["version"])}
        except (KeyError, TypeError, ValueError) as exc:
            raise state_lost(f"its counters are malformed ({type(exc).__name__})") from exc
        with self._lock:
            self._settings[job_id] = JobSettings.from_sub_jobs(job_id, sub_jobs)
            self._counters[job_id] = restored
            self._saved[job_id] = saved
        return restored["steps"]

    def commit_job(self, job_id: str, request_id: str | None) -> None:
        """Save the job's counters when a request moved them."""
        with self._lock:
            if job_id in self._changed:
                self._saved[job_id].commit(request_id, self._counters[job_id], {})
                self._changed.discard(job_id)

    def release_job(self, job_id: str) -> None:
        """Forget the job's counters."""
        with self._lock:
            self._settings.pop(job_id, None)
            self._counters.pop(job_id, None)
            self._saved.pop(job_id, None)
            self._changed.discard(job_id)

    def _state(self, job_id: str) -> tuple[JobSettings, dict[str, int]]:
        if job_id not in self._settings:
            raise BackendError(ErrorCode.job_not_found, f"backend has no state for job {job_id}")
        return self._settings[job_id], self._counters[job_id]

    def forward_backward(self, job_id: str, batch: Mapping[str, Any]) -> dict[str, Any]:
        """Fixed loss and metrics; logprobs/entropy shaped like input_ids."""
        self._state(job_id)
        TrainView.parse(batch, need_advantages=True)
        outputs: dict[str, Any] = {}
        if wants(batch, "logprobs"):
            outputs["logprobs"] = _uniform(batch, uniform_logprob())
        if wants(batch, "entropy"):
            outputs["entropy"] = _uniform(batch, -uniform_logprob())
        return {
            "job_id": job_id,
            "avg_loss": CANNED_LOSS,
            "loss": CANNED_LOSS,
            "metrics": dict(CANNED_METRICS),
            "post_process_outputs": outputs,
        }

    def forward_no_grad(self, job_id: str, batch: Mapping[str, Any]) -> dict[str, Any]:
        """Uniform-model logprobs and entropy, shifted, float32 [B, T]."""
        self._state(job_id)
        outputs: dict[str, Any] = {"logprobs": _uniform(batch, uniform_logprob())}
        if wants(batch, "entropy"):
            outputs["entropy"] = _uniform(batch, -uniform_logprob())
        return {"model_outputs": outputs, "metrics": {"entropy": -uniform_logprob()}}

    def step(self, job_id: str, learning_rate: float | None) -> dict[str, Any]:
        """Counts steps; ``last_lr`` is the request's rate or the configured one."""
        settings, counters = self._state(job_id)
        with self._lock:
            counters["steps"] += 1
            steps = counters["steps"]
            self._changed.add(job_id)
        lr = settings.lr if learning_rate is None else float(learning_rate)
        result: dict[str, Any] = {
            "global_steps": steps,
            "last_lr": lr,
            "metrics": dict(CANNED_METRICS),
        }
        if settings.peak_memory_log:
            result["peak_memory"] = peak_memory(0)
        return result

    def generate(self, job_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Echoes each prompt's bytes cyclically up to ``max_tokens`` (``n`` times)."""
        self._state(job_id)
        results = []
        for ids, params in generation_rows(request):
            n = max_tokens_of(params)
            source = ids or [ord("a")]
            tokens = [source[i % len(source)] for i in range(n)]
            results.append(
                {
                    "text": decode_tokens(tokens),
                    "token_ids": tokens,
                    "finish_reason": "length",
                    "logprobs": [uniform_logprob()] * n,
                    "prompt_len": len(ids),
                    "generation_len": n,
                }
            )
        return {"job_id": job_id, "results": results}

    def log_probs(self, job_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Uniform logprobs, one per scored token."""
        self._state(job_id)
        prompts, completions, top_k = log_prob_inputs(request)
        logprobs, token_ids, top = [], [], []
        for prompt, completion in zip(prompts, completions, strict=True):
            ids = encode_prompt(completion) if completion is not None else encode_prompt(prompt)[1:]
            logprobs.append(torch.full((len(ids),), uniform_logprob(), dtype=torch.float32))
            token_ids.append(torch.tensor(ids, dtype=torch.int64))
            top.append(torch.arange(top_k, dtype=torch.int64).repeat(len(ids), 1))
        result: dict[str, Any] = {"logprobs": logprobs, "token_ids": token_ids}
        if top_k:
            result["top_k_token_ids"] = top
        return result

    def sync_weights(self, job_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Bumps the weight version."""
        settings, counters = self._state(job_id)
        with self._lock:
            counters["version"] += 1
            version = counters["version"]
            self._changed.add(job_id)
        targets = request.get("target_sub_job_ids") or settings.sync_targets
        return {
            "synced_sub_job_ids": list(targets),
            "weight_format": request.get("weight_format") or "vllm",
            "version": version,
        }

    def save_checkpoint(self, job_id: str, directory: Path, checkpoint_type: str) -> dict[str, Any]:
        """Writes a small JSON file so the checkpoint path really exists."""
        _, counters = self._state(job_id)
        directory.mkdir(parents=True, exist_ok=True)
        state = json.dumps({"steps": counters["steps"]}).encode()
        self.hooks.write_file(directory / STATE_FILE, state)  # through the hooks, as all writes
        return {"global_steps": counters["steps"], "avg_loss": CANNED_LOSS}

    def load_checkpoint(self, job_id: str, directory: Path) -> dict[str, Any]:
        """Restores the step counter."""
        _, counters = self._state(job_id)
        path = directory / STATE_FILE
        if not path.is_file():
            raise BackendError(ErrorCode.checkpoint_not_found, "checkpoint has no canned state")
        steps = int(json.loads(path.read_text())["steps"])
        with self._lock:
            counters["steps"] = steps
            self._changed.add(job_id)
        return {"global_steps": steps}
