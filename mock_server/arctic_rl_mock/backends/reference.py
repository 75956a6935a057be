"""The reference backend: a tiny causal LM that really trains.

Small enough to run an RL loop on two CPU cores in seconds, real enough that client
code exercising it sees genuine losses, gradients, optimizer steps, log-probabilities
and checkpoints. Each job holds three copies of the model: the policy (trained), a
frozen reference (initial weights, for KL and ``reference_model`` forwards) and a
sampling copy that only changes on sync-weights, as on the real service where sampling
runs on separate GPUs.

What survives a mock restart (committed by :meth:`ReferenceBackend.commit_job` after
each request that changed it, see :mod:`arctic_rl_mock.backends.persist`): the policy and
its optimizer state, the sampling copy (which names the policy's file as of its sync
rather than writing its own), the accumulated gradients with the losses and metrics
behind them (a restart between forward-backward and step must not make the step apply
less than the client sent), and the counters (steps, weight version, unseeded generate
calls). The frozen reference is rebuilt from the seed.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from cortex_gs_contract import ErrorCode
from safetensors.torch import load_file, save

from arctic_rl_mock.backends import BackendError
from arctic_rl_mock.backends.common import (
    VOCAB_SIZE,
    JobSettings,
    TrainView,
    output_view,
    peak_memory,
    wants,
    wants_reference,
)
from arctic_rl_mock.backends.grpo import StockGrpoBatch, is_stock_grpo, run_stock_grpo
from arctic_rl_mock.backends.job_state import COUNTERS, GRADS, SAMPLER, TRAIN, JobState
from arctic_rl_mock.backends.losses import mean_metrics, policy_loss
from arctic_rl_mock.backends.persist import Applied, SavedState, file_metadata, state_lost
from arctic_rl_mock.backends.prompts import decode_tokens, encode_prompt, generation_rows
from arctic_rl_mock.backends.sampling import log_prob_inputs, sample
from arctic_rl_mock.backends.tiny import AdamW, TinyConfig, TinyLM, TokenScores, shifted_logprobs
from arctic_rl_mock.hooks import Hooks

MODEL_FILE = "model.safetensors"
OPTIMIZER_FILE = "optimizer.safetensors"


class ReferenceBackend:
    """Trains :class:`TinyLM`; deterministic for a given seed and call sequence.

    On CPU it sets torch's intra-op thread count (process-wide) to ``cpu_threads``
    (default 1); pass ``cpu_threads=0`` to leave torch's setting alone. The saved state
    is written through ``hooks`` (the app's hooks).
    """

    name = "reference"

    def __init__(
        self,
        device: str | None = None,
        model: TinyConfig | None = None,
        cpu_threads: int = 1,
        hooks: Hooks | None = None,
    ) -> None:
        self.hooks = hooks or Hooks()
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        if self.device.type == "cpu" and cpu_threads:
            # The model is far too small to gain from intra-op threads, and on a busy
            # two-core machine their spin-waiting makes every op many times slower.
            torch.set_num_threads(cpu_threads)
        self.model_config = model or TinyConfig()
        self._jobs: dict[str, JobState] = {}
        self._jobs_lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------------------
    def prepare_job(
        self, job_id: str, sub_jobs: Sequence[Mapping[str, Any]], state_dir: Path
    ) -> None:
        """Build the job's models from its seed and save that first state."""
        with self._jobs_lock:
            if job_id in self._jobs:
                return
            job = self._build(job_id, sub_jobs, SavedState.fresh(state_dir, self.name, self.hooks))
            job.changed = {TRAIN, SAMPLER}
            self._jobs[job_id] = job
        self.commit_job(job_id, None)

    def restore_job(
        self,
        job_id: str,
        sub_jobs: Sequence[Mapping[str, Any]],
        state_dir: Path,
        applied: Applied,
    ) -> int:
        """Rebuild the job as its saved state left it; returns its ``global_steps``."""
        saved, counters, parts = SavedState.restore(
            state_dir, self.name, applied, self.hooks, self.device
        )
        job = self._build(job_id, sub_jobs, saved)
        try:
            train = parts[TRAIN]
            job.policy.load_state_dict(train["weights"])
            job.sampler.load_state_dict(parts[SAMPLER]["weights"])
            meta = {"steps": str(counters["optimizer_steps"]), "lr": repr(counters["lr"])}
            job.optimizer.restore(train["optimizer"], meta)
            for name, grad in (parts.get(GRADS) or {}).items():
                job.optimizer.params[name].grad = grad
            job.global_steps = int(counters["global_steps"])
            job.weight_version = int(counters["weight_version"])
            job.generate_calls = int(counters["generate_calls"])
            job.losses = [float(x) for x in counters["losses"]]
            job.metrics = [dict(m) for m in counters["metrics"]]
            job.last_avg_loss = counters["last_avg_loss"]
        except (KeyError, RuntimeError, TypeError, ValueError) as exc:
            raise state_lost(f"it does not fit this model ({type(exc).__name__})") from exc
        with self._jobs_lock:
            self._jobs[job_id] = job
        return job.global_steps

    def commit_job(self, job_id: str, request_id: str | None) -> None:
        """Save what changed since the last commit, tagged with the request that did it."""
        job = self._job(job_id)
        with job.lock:
            if not job.changed:
                return
            parts = {name: job.part(name) for name in job.changed - {COUNTERS, SAMPLER}}
            # A synced sampling copy equals the policy, whose weights the TRAIN file holds.
            same_as = {SAMPLER: TRAIN} if SAMPLER in job.changed else {}
            job.saved.commit(request_id, job.counters(), parts, same_as)
            job.changed.clear()

    def _build(
        self, job_id: str, sub_jobs: Sequence[Mapping[str, Any]], saved: SavedState
    ) -> JobState:
        """The job's models as its seed makes them."""
        settings = JobSettings.from_sub_jobs(job_id, sub_jobs)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(settings.seed)
            policy = TinyLM(self.model_config).to(self.device)
        reference = copy.deepcopy(policy).requires_grad_(False).eval()
        sampler = copy.deepcopy(policy).requires_grad_(False).eval()
        optimizer = AdamW(dict(policy.named_parameters()), settings)
        return JobState(settings, policy, reference, sampler, optimizer, saved)

    def release_job(self, job_id: str) -> None:
        """Drop a finished job's models."""
        with self._jobs_lock:
            self._jobs.pop(job_id, None)

    def _job(self, job_id: str) -> JobState:
        job = self._jobs.get(job_id)
        if job is None:
            raise BackendError(ErrorCode.job_not_found, f"backend has no state for job {job_id}")
        return job

    # -- training --------------------------------------------------------------------
    def forward_backward(self, job_id: str, batch: Mapping[str, Any]) -> dict[str, Any]:
        """Real loss, ``backward()`` into the policy's accumulated gradients."""
        job = self._job(job_id)
        if is_stock_grpo(batch):
            return self._stock_grpo(job_id, job, StockGrpoBatch.parse(batch))
        view = TrainView.parse(batch, need_advantages=True, default_loss_fn=job.settings.loss_fn)
        with job.lock:
            job.policy.train()
            scores = job.policy(*self._inputs(view))
            logp, entropy = shifted_logprobs(scores, view.targets.to(self.device))
            losses = policy_loss(logp, entropy, view)
            losses.loss.backward()
            loss = float(losses.loss.detach())
            job.losses.append(loss)
            job.metrics.append(losses.metrics)
            job.changed.add(GRADS)
            metrics = {"grad_norm": job.optimizer.grad_norm(), **losses.metrics}
            outputs: dict[str, Any] = {}
            if wants(batch, "logprobs"):
                outputs["logprobs"] = output_view(logp.detach().cpu())
            if wants(batch, "entropy"):
                outputs["entropy"] = output_view(entropy.detach().cpu())
            return {
                "job_id": job_id,
                "avg_loss": sum(job.losses) / len(job.losses),
                "loss": loss,
                "metrics": metrics,
                "post_process_outputs": outputs,
            }

    def _stock_grpo(self, job_id: str, job: JobState, batch: StockGrpoBatch) -> dict[str, Any]:
        """Today's ``grpo``, row by row (:mod:`arctic_rl_mock.backends.grpo`)."""

        def model(ids: torch.Tensor, attn: torch.Tensor, pos: torch.Tensor | None) -> Any:
            pos = None if pos is None else pos.to(self.device)
            return job.policy(ids.to(self.device), attn.to(self.device), pos)

        def logprobs_of(scores: TokenScores, targets: torch.Tensor) -> Any:
            return shifted_logprobs(scores, targets.to(self.device))

        with job.lock:
            job.policy.train()
            loss, logp, metrics = run_stock_grpo(batch, model, logprobs_of)
            job.losses.append(loss)
            job.changed.add(GRADS)
            return {
                "job_id": job_id,
                "avg_loss": sum(job.losses) / len(job.losses),
                "loss": loss,
                "metrics": metrics,
                "post_process_outputs": {"logprobs": output_view(logp)},
            }

    def forward_no_grad(self, job_id: str, batch: Mapping[str, Any]) -> dict[str, Any]:
        """Shifted logprobs and entropy from the policy or the frozen reference."""
        job = self._job(job_id)
        view = TrainView.parse(batch, need_advantages=False)
        model = job.reference if wants_reference(batch) else job.policy
        ids, attn, pos = self._inputs(view)
        with job.lock, torch.no_grad():
            # Row by row, as grpo trains: the same tokens score the same bits in both.
            targets = view.targets.to(self.device)
            rows = [
                shifted_logprobs(
                    model(ids[r : r + 1], attn[r : r + 1], None if pos is None else pos[r : r + 1]),
                    targets[r : r + 1],
                )
                for r in range(ids.shape[0])
            ]
            logp = torch.cat([row_logp for row_logp, _ in rows])
            entropy = torch.cat([row_entropy for _, row_entropy in rows])
        outputs: dict[str, Any] = {"logprobs": output_view(logp.cpu())}
        if wants(batch, "entropy"):
            outputs["entropy"] = output_view(entropy.cpu())
        tokens = view.mask.sum().clamp(min=1.0)
        return {
            "model_outputs": outputs,
            "metrics": {"entropy": float((entropy.cpu() * view.mask).sum() / tokens)},
        }

    def step(self, job_id: str, learning_rate: float | None) -> dict[str, Any]:
        """AdamW on the accumulated gradients, with the job's gradient clipping."""
        job = self._job(job_id)
        with job.lock:
            if learning_rate is not None:
                job.optimizer.lr = float(learning_rate)
            norm = job.optimizer.step(job.settings.gradient_clipping)
            job.optimizer.zero_grad()
            job.global_steps += 1
            metrics = mean_metrics(job.metrics)
            metrics["grad_norm"] = norm
            if job.losses:
                job.last_avg_loss = sum(job.losses) / len(job.losses)
            job.losses.clear()
            job.metrics.clear()
            job.changed |= {TRAIN, GRADS}
            result: dict[str, Any] = {
                "global_steps": job.global_steps,
                "last_lr": job.optimizer.lr,
                "metrics": metrics,
            }
            if job.settings.peak_memory_log:
                cuda = self.device.type == "cuda"
                gpu = torch.cuda.max_memory_allocated(self.device) if cuda else 0
                result["peak_memory"] = peak_memory(gpu)
            return result

    # -- sampling --------------------------------------------------------------------
    def generate(self, job_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Batched sampling from the sampling copy (changes only on sync-weights)."""
        job = self._job(job_id)
        rows = generation_rows(request)
        encoded = [ids for ids, _ in rows]
        params = [p for _, p in rows]
        with job.lock:
            calls = job.generate_calls + 1
            seed = next((int(p["seed"]) for p in params if p.get("seed") is not None), None)
            if seed is None:
                seed = job.settings.seed * 1_000_003 + calls
            with torch.no_grad():
                samples = sample(job.sampler, encoded, params, seed, self.device)
            job.generate_calls = calls  # only a generate that answered counts
            job.changed.add(COUNTERS)
        results = [
            {
                "text": decode_tokens(tokens),
                "token_ids": tokens,
                "finish_reason": reason,
                "logprobs": logprobs,
                "prompt_len": len(prompt),
                "generation_len": len(tokens),
            }
            for prompt, (tokens, logprobs, reason) in zip(encoded, samples, strict=True)
        ]
        return {"job_id": job_id, "results": results}

    def log_probs(self, job_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Score each completion (or each prompt when none) with the sampling copy."""
        job = self._job(job_id)
        prompts, completions, top_k = log_prob_inputs(request)
        out_lp: list[torch.Tensor] = []
        out_ids: list[torch.Tensor] = []
        out_top: list[torch.Tensor] = []
        with job.lock, torch.no_grad():
            for prompt, completion in zip(prompts, completions, strict=True):
                head = encode_prompt(prompt)
                seq = head + (encode_prompt(completion) if completion is not None else [])
                if len(seq) < 2:
                    raise BackendError(
                        ErrorCode.bad_value, "each sequence needs at least two tokens"
                    )
                start = 0 if completion is None else max(len(head) - 1, 0)
                ids = torch.tensor([seq], dtype=torch.int64, device=self.device)
                scores = job.sampler(ids, torch.ones_like(ids))
                logp, _ = shifted_logprobs(scores, ids[:, 1:])
                out_lp.append(logp[0, start:].cpu())
                out_ids.append(ids[0, start + 1 :].cpu())
                if top_k:
                    rows = scores[0, start : len(seq) - 1].log_softmax()
                    out_top.append(rows.top_k(min(top_k, VOCAB_SIZE)).cpu())
        result: dict[str, Any] = {"logprobs": out_lp, "token_ids": out_ids}
        if top_k:
            result["top_k_token_ids"] = out_top
        return result

    def sync_weights(self, job_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Copy policy weights into the sampling copy; bumps the weight version."""
        job = self._job(job_id)
        with job.lock:
            job.sampler.load_state_dict(job.policy.state_dict())
            job.weight_version += 1
            job.changed.add(SAMPLER)
            targets = request.get("target_sub_job_ids") or job.settings.sync_targets
            return {
                "synced_sub_job_ids": list(targets),
                "weight_format": request.get("weight_format") or "vllm",
                "version": job.weight_version,
            }

    # -- checkpoints -----------------------------------------------------------------
    def save_checkpoint(self, job_id: str, directory: Path, checkpoint_type: str) -> dict[str, Any]:
        """Model (and, when resumable, optimizer) state as safetensors files."""
        job = self._job(job_id)
        directory.mkdir(parents=True, exist_ok=True)
        with job.lock:
            meta = {
                "global_steps": str(job.global_steps),
                "weight_version": str(job.weight_version),
                "generate_calls": str(job.generate_calls),
                "model": json.dumps(self.model_config.__dict__),
            }
            weights = {k: v.detach().cpu().contiguous() for k, v in job.policy.state_dict().items()}
            # Serialised here, written through the hooks: a full disk is an OSError there.
            self.hooks.write_file(directory / MODEL_FILE, save(weights, metadata=meta))
            if checkpoint_type != "weights-only":
                tensors, opt_meta = job.optimizer.tensors()
                self.hooks.write_file(directory / OPTIMIZER_FILE, save(tensors, metadata=opt_meta))
            return {"global_steps": job.global_steps, "avg_loss": job.last_avg_loss}

    def load_checkpoint(self, job_id: str, directory: Path) -> dict[str, Any]:
        """Restore the policy (and optimizer when saved); pending gradients are dropped.

        The sampling counters come back too (the weight version and the count of unseeded
        generate calls, which seeds the next one), so a run resumed from a checkpoint
        samples what the uninterrupted run sampled after its save; the sampling copy
        changes on the next sync-weights, as on the service."""
        job = self._job(job_id)
        model_path = directory / MODEL_FILE
        if not model_path.is_file():
            raise BackendError(ErrorCode.checkpoint_not_found, "checkpoint has no model weights")
        with job.lock:
            job.policy.load_state_dict(load_file(str(model_path), device=str(self.device)))
            job.optimizer.zero_grad()
            job.losses.clear()
            job.metrics.clear()
            opt_path = directory / OPTIMIZER_FILE
            if opt_path.is_file() and job.settings.load_optimizer_states:
                job.optimizer.restore(load_file(str(opt_path)), file_metadata(opt_path))
            saved = file_metadata(model_path)
            job.global_steps = int(saved.get("global_steps", 0))
            job.weight_version = int(saved.get("weight_version", job.weight_version))
            job.generate_calls = int(saved.get("generate_calls", job.generate_calls))
            job.changed |= {TRAIN, GRADS}
            return {"global_steps": job.global_steps}

    # -- helpers ---------------------------------------------------------------------
    def _inputs(self, view: TrainView) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        pos = None if view.position_ids is None else view.position_ids.to(self.device)
        return view.input_ids.to(self.device), view.attention_mask.to(self.device), pos


__all__ = ["ReferenceBackend", "TinyConfig", "TinyLM"]
