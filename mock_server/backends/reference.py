"""The reference backend: a tiny causal LM that really trains.

Small enough to run an RL loop on two CPU cores in seconds, real enough that client
code exercising it sees genuine losses, gradients, optimizer steps, log-probabilities
and checkpoints. Each job holds three copies of the model: the policy (trained), a
frozen reference (initial weights, for KL and ``reference_model`` forwards) and a
sampling copy that only changes on sync-weights, as on the real service where sampling
runs on separate GPUs.
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch import nn

from mock_server.backends import BackendError
from mock_server.backends.common import (
    BYTE_TOKENS,
    DEFAULT_KL_COEF,
    EOS_ID,
    VOCAB_SIZE,
    JobSettings,
    TrainView,
    as_scalar,
    decode_tokens,
    encode_prompt,
    generation_rows,
    max_tokens_of,
    output_view,
    peak_memory,
    wants,
    wants_reference,
)

MODEL_FILE = "model.safetensors"
OPTIMIZER_FILE = "optimizer.safetensors"
# Reserved ids start nearly impossible so an untrained model emits bytes, yet stay learnable.
RESERVED_BIAS = -15.0


@dataclass(frozen=True)
class TinyConfig:
    """Model size; defaults keep a forward on a [32, 64] batch in the low milliseconds."""

    vocab_size: int = VOCAB_SIZE
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    max_positions: int = 1024


class _Block(nn.Module):
    """Pre-norm transformer block."""

    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.n_heads = cfg.n_heads
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.d_model, 4 * cfg.d_model),
            nn.GELU(),
            nn.Linear(4 * cfg.d_model, cfg.d_model),
        )

    def forward(self, x: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
        """``allowed`` is a [B, 1, T, T] boolean attention mask."""
        bsz, width, dim = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(dim, dim=-1)
        shape = (bsz, width, self.n_heads, dim // self.n_heads)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        att = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        x = x + self.proj(att.transpose(1, 2).reshape(bsz, width, dim))
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    """A byte-level GPT-style causal LM."""

    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_positions, cfg.d_model)
        self.blocks = nn.ModuleList(_Block(cfg) for _ in range(cfg.n_layers))
        self.norm = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size)
        with torch.no_grad():
            self.head.bias[BYTE_TOKENS + 1 :] = RESERVED_BIAS

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        position_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Logits [B, T, V]; padded keys are masked, every query may see itself."""
        width = input_ids.shape[1]
        if position_ids is None:
            position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
        position_ids = position_ids.clamp(0, self.cfg.max_positions - 1)
        causal = torch.ones(width, width, dtype=torch.bool, device=input_ids.device).tril()
        allowed = causal[None] & attention_mask.bool()[:, None, :]
        allowed = (allowed | torch.eye(width, dtype=torch.bool, device=input_ids.device))[:, None]
        x = self.tok(input_ids) + self.pos(position_ids)
        for block in self.blocks:
            x = block(x, allowed)
        return self.head(self.norm(x))


def shifted_logprobs(
    logits: torch.Tensor, targets: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(logprobs, entropy), both [B, T-1]: column i is log p(targets[:, i]) at position i.

    ``targets`` is ``input_ids[:, 1:]`` unless the batch carries ``labels``.
    """
    logp = logits[:, :-1].float().log_softmax(-1)
    chosen = logp.gather(-1, targets[:, :, None]).squeeze(-1)
    entropy = -(logp.exp() * logp).sum(-1)
    return chosen, entropy


def _aggregate(
    values: torch.Tensor, mask: torch.Tensor, mode: str, num_tokens: float | None
) -> torch.Tensor:
    """Reduce a per-token loss as verl-style ``loss_agg_mode`` names it."""
    if mode == "token-mean":
        denom = num_tokens if num_tokens else mask.sum().clamp(min=1.0)
        return (values * mask).sum() / denom
    per_seq = (values * mask).sum(-1)
    if mode == "seq-mean-token-sum":
        return per_seq.mean()
    if mode == "seq-mean-token-mean":
        return (per_seq / mask.sum(-1).clamp(min=1.0)).mean()
    if mode == "seq-mean-token-sum-norm":
        return per_seq.sum() / (mask.shape[0] * mask.shape[1])
    raise BackendError("bad_value", f"unknown loss_agg_mode {mode!r}")


def _kl(logp: torch.Tensor, ref: torch.Tensor, kind: str) -> torch.Tensor:
    """Per-token KL estimators between policy and reference log-probs."""
    diff = ref - logp
    if kind in ("low_var_kl", "k3"):
        return (diff.clamp(-20, 20).exp() - diff - 1).clamp(-10, 10)
    if kind in ("kl", "k1"):
        return -diff
    if kind == "abs":
        return diff.abs()
    if kind in ("mse", "k2"):
        return 0.5 * diff.square()
    raise BackendError("bad_value", f"unknown kl_loss_type {kind!r}")


def _first(cfg: Mapping[str, Any], *keys: str) -> Any:
    """The first of several synonymous config keys that is present (verl vs. tinker names)."""
    return next((cfg[k] for k in keys if cfg.get(k) is not None), None)


def _loss_family(name: str) -> str:
    """Map loss names (``grpo``, ``verl_grpo``, ``ppo``, ``vanilla``, ...) to a loss."""
    key = name.lower().removeprefix("verl_").removeprefix("verl.")
    if key in ("grpo", "ppo", "ppo_clip", "policy_loss", "vanilla", "clip"):
        return "clip"
    if key in ("importance_sampling", "is"):
        return "importance_sampling"
    if key in ("cross_entropy", "sft", "nll"):
        return "cross_entropy"
    raise BackendError("bad_value", f"unknown loss_fn {name!r}")


@dataclass
class _Losses:
    """One forward-backward's loss and the metrics the contract names."""

    loss: torch.Tensor
    metrics: dict[str, float]


def policy_loss(logp: torch.Tensor, entropy: torch.Tensor, view: TrainView) -> _Losses:
    """PPO-clip / GRPO (with dual clip), importance sampling or cross-entropy loss."""
    cfg = view.config
    mask = view.mask.to(logp.device)
    adv = view.advantages.to(logp.device)
    old = logp.detach() if view.old_log_probs is None else view.old_log_probs.to(logp.device)
    mode = str(cfg.get("loss_agg_mode") or "token-mean")
    num_tokens = as_scalar(cfg.get("batch_num_tokens"), 0.0) or None
    eps_low = as_scalar(_first(cfg, "eps_clip", "clip_ratio_low", "clip_ratio"), 0.2)
    eps_high = as_scalar(_first(cfg, "eps_clip_high", "clip_ratio_high"), eps_low)
    clip_c = as_scalar(cfg.get("clip_ratio_c"), 3.0)

    log_ratio = (logp - old).clamp(-20.0, 20.0)
    ratio = log_ratio.exp()
    tokens = mask.sum().clamp(min=1.0)
    clip_frac_lower = torch.zeros((), device=logp.device)
    family = _loss_family(view.loss_fn)
    if family == "clip":
        unclipped = -adv * ratio
        clipped = -adv * ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
        per_token = torch.maximum(unclipped, clipped)
        dual = -adv * clip_c
        lower_active = (adv < 0) & (dual < per_token)
        per_token = torch.where(adv < 0, torch.minimum(per_token, dual), per_token)
        clip_frac_lower = (lower_active.float() * mask).sum() / tokens
    elif family == "importance_sampling":
        per_token = -adv * ratio
    elif family == "cross_entropy":
        per_token = -logp
    else:
        raise BackendError("bad_value", f"unknown loss_fn {view.loss_fn!r}")
    if view.is_weights is not None:
        per_token = per_token * view.is_weights.to(logp.device)
    pg_loss = _aggregate(per_token, mask, mode, num_tokens)
    loss = pg_loss

    kl_coef = 0.0
    kl_loss = torch.zeros((), device=logp.device)
    if view.ref_log_prob is not None:
        kl_coef = as_scalar(cfg.get("kl_coef", cfg.get("kl_loss_coef")), DEFAULT_KL_COEF)
        kind = str(cfg.get("kl_loss_type") or "low_var_kl")
        kl_loss = _aggregate(
            _kl(logp, view.ref_log_prob.to(logp.device), kind), mask, mode, num_tokens
        )
        loss = loss + kl_coef * kl_loss
    entropy_coeff = as_scalar(cfg.get("entropy_coeff"), 0.0)
    if entropy_coeff:
        loss = loss - entropy_coeff * _aggregate(entropy, mask, mode, num_tokens)
    loss = loss * as_scalar(cfg.get("loss_scale"), 1.0)
    metrics = {
        "ppo_kl": float(((old - logp.detach()) * mask).sum() / tokens),
        "pg_clipfrac_lower": float(clip_frac_lower),
        "pg_loss": float(pg_loss.detach()),
        "kl_loss": float(kl_loss.detach()),
        "kl_coef": float(kl_coef),
        "entropy": float((entropy.detach() * mask).sum() / tokens),
    }
    return _Losses(loss=loss, metrics=metrics)


class AdamW:
    """Decoupled-weight-decay Adam over named parameters.

    Written out (a dozen lines) instead of ``torch.optim.AdamW`` because constructing a
    torch optimizer imports ``torch._dynamo``, which costs several seconds per process,
    far more than the whole tiny model; state is keyed by parameter name so checkpoints
    are plain safetensors.
    """

    def __init__(self, params: dict[str, nn.Parameter], settings: JobSettings) -> None:
        self.params = params
        self.lr = settings.lr
        self.betas = settings.betas
        self.eps = settings.eps
        self.weight_decay = settings.weight_decay
        self.steps = 0
        self.state: dict[str, dict[str, torch.Tensor]] = {}

    def zero_grad(self) -> None:
        """Drop accumulated gradients."""
        for param in self.params.values():
            param.grad = None

    def grad_norm(self) -> float:
        """Global L2 norm of the accumulated gradients."""
        grads = [p.grad.detach().float().norm() for p in self.params.values() if p.grad is not None]
        return float(torch.stack(grads).norm()) if grads else 0.0

    @torch.no_grad()
    def step(self, clip: float | None) -> float:
        """One update; returns the pre-clipping gradient norm."""
        norm = self.grad_norm()
        scale = clip / (norm + 1e-6) if clip and norm > clip else 1.0
        self.steps += 1
        beta1, beta2 = self.betas
        fix1, fix2 = 1 - beta1**self.steps, 1 - beta2**self.steps
        for name, param in self.params.items():
            if param.grad is None:
                continue
            grad = param.grad * scale
            state = self.state.setdefault(
                name, {"exp_avg": torch.zeros_like(param), "exp_avg_sq": torch.zeros_like(param)}
            )
            state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
            state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            param.mul_(1 - self.lr * self.weight_decay)
            denom = (state["exp_avg_sq"] / fix2).sqrt_().add_(self.eps)
            param.addcdiv_(state["exp_avg"], denom, value=-self.lr / fix1)
        return norm

    def tensors(self) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
        """State as safetensors tensors plus string metadata."""
        flat = {
            f"{name}.{key}": value.detach().cpu().contiguous()
            for name, fields in self.state.items()
            for key, value in fields.items()
        }
        meta = {"steps": str(self.steps), "lr": repr(self.lr)}
        return flat or {"__empty__": torch.zeros(1)}, meta

    def restore(self, flat: dict[str, torch.Tensor], meta: dict[str, str]) -> None:
        """Inverse of :meth:`tensors`."""
        self.state = {}
        for key, value in flat.items():
            if key == "__empty__":
                continue
            name, field_name = key.rsplit(".", 1)
            device = self.params[name].device
            self.state.setdefault(name, {})[field_name] = value.to(device)
        self.steps = int(meta.get("steps", 0))
        self.lr = float(meta.get("lr", self.lr))


@dataclass
class _Job:
    """Everything one job's model state needs; guarded by ``lock``."""

    settings: JobSettings
    policy: TinyLM
    reference: TinyLM
    sampler: TinyLM
    optimizer: AdamW
    global_steps: int = 0
    weight_version: int = 0
    generate_calls: int = 0
    losses: list[float] = field(default_factory=list)
    metrics: list[dict[str, float]] = field(default_factory=list)
    last_avg_loss: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class ReferenceBackend:
    """Trains :class:`TinyLM`; deterministic for a given seed and call sequence.

    On CPU it sets torch's intra-op thread count (process-wide) to ``cpu_threads``
    (default 1); pass ``cpu_threads=0`` to leave torch's setting alone.
    """

    name = "reference"

    def __init__(
        self, device: str | None = None, model: TinyConfig | None = None, cpu_threads: int = 1
    ) -> None:
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        if self.device.type == "cpu" and cpu_threads:
            # The model is far too small to gain from intra-op threads, and on a busy
            # two-core machine their spin-waiting makes every op many times slower.
            torch.set_num_threads(cpu_threads)
        self.model_config = model or TinyConfig()
        self._jobs: dict[str, _Job] = {}
        self._jobs_lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------------------
    def prepare_job(self, job_id: str, sub_jobs: Sequence[Mapping[str, Any]]) -> None:
        """Build the job's models from its seed (again after a mock restart)."""
        with self._jobs_lock:
            if job_id in self._jobs:
                return
            settings = JobSettings.from_sub_jobs(job_id, sub_jobs)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(settings.seed)
                policy = TinyLM(self.model_config).to(self.device)
            reference = copy.deepcopy(policy).requires_grad_(False).eval()
            sampler = copy.deepcopy(policy).requires_grad_(False).eval()
            optimizer = AdamW(dict(policy.named_parameters()), settings)
            self._jobs[job_id] = _Job(settings, policy, reference, sampler, optimizer)

    def release_job(self, job_id: str) -> None:
        """Drop a finished job's models."""
        with self._jobs_lock:
            self._jobs.pop(job_id, None)

    def _job(self, job_id: str) -> _Job:
        job = self._jobs.get(job_id)
        if job is None:
            raise BackendError("job_not_found", f"backend has no state for job {job_id}")
        return job

    # -- training --------------------------------------------------------------------
    def forward_backward(self, job_id: str, batch: Mapping[str, Any]) -> dict[str, Any]:
        """Real loss, ``backward()`` into the policy's accumulated gradients."""
        job = self._job(job_id)
        view = TrainView.parse(batch, need_advantages=True, default_loss_fn=job.settings.loss_fn)
        with job.lock:
            job.policy.train()
            logits = job.policy(*self._inputs(view))
            logp, entropy = shifted_logprobs(logits, view.targets.to(self.device))
            losses = policy_loss(logp, entropy, view)
            losses.loss.backward()
            loss = float(losses.loss.detach())
            job.losses.append(loss)
            job.metrics.append(losses.metrics)
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

    def forward_no_grad(self, job_id: str, batch: Mapping[str, Any]) -> dict[str, Any]:
        """Shifted logprobs and entropy from the policy or the frozen reference."""
        job = self._job(job_id)
        view = TrainView.parse(batch, need_advantages=False)
        model = job.reference if wants_reference(batch) else job.policy
        with job.lock, torch.no_grad():
            logits = model(*self._inputs(view))
            logp, entropy = shifted_logprobs(logits, view.targets.to(self.device))
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
            metrics = _mean_metrics(job.metrics)
            metrics["grad_norm"] = norm
            if job.losses:
                job.last_avg_loss = sum(job.losses) / len(job.losses)
            job.losses.clear()
            job.metrics.clear()
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
            job.generate_calls += 1
            seed = next((int(p["seed"]) for p in params if p.get("seed") is not None), None)
            if seed is None:
                seed = job.settings.seed * 1_000_003 + job.generate_calls
            with torch.no_grad():
                samples = _sample(job.sampler, encoded, params, seed, self.device)
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
        prompts, completions, top_k = _log_prob_inputs(request)
        out_lp: list[torch.Tensor] = []
        out_ids: list[torch.Tensor] = []
        out_top: list[torch.Tensor] = []
        with job.lock, torch.no_grad():
            for prompt, completion in zip(prompts, completions, strict=True):
                head = encode_prompt(prompt)
                seq = head + (encode_prompt(completion) if completion is not None else [])
                if len(seq) < 2:
                    raise BackendError("bad_value", "each sequence needs at least two tokens")
                start = 0 if completion is None else max(len(head) - 1, 0)
                ids = torch.tensor([seq], dtype=torch.int64, device=self.device)
                logits = job.sampler(ids, torch.ones_like(ids))
                logp, _ = shifted_logprobs(logits, ids[:, 1:])
                out_lp.append(logp[0, start:].cpu())
                out_ids.append(ids[0, start + 1 :].cpu())
                if top_k:
                    rows = logits[0, start : len(seq) - 1].float()
                    out_top.append(rows.topk(min(top_k, VOCAB_SIZE), dim=-1).indices.cpu())
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
                "model": json.dumps(self.model_config.__dict__),
            }
            weights = {k: v.detach().cpu().contiguous() for k, v in job.policy.state_dict().items()}
            save_file(weights, str(directory / MODEL_FILE), metadata=meta)
            if checkpoint_type != "weights-only":
                tensors, opt_meta = job.optimizer.tensors()
                save_file(tensors, str(directory / OPTIMIZER_FILE), metadata=opt_meta)
            return {"global_steps": job.global_steps, "avg_loss": job.last_avg_loss}

    def load_checkpoint(self, job_id: str, directory: Path) -> dict[str, Any]:
        """Restore the policy (and optimizer when saved); pending gradients are dropped."""
        job = self._job(job_id)
        model_path = directory / MODEL_FILE
        if not model_path.is_file():
            raise BackendError("checkpoint_not_found", "checkpoint has no model weights")
        with job.lock:
            job.policy.load_state_dict(load_file(str(model_path), device=str(self.device)))
            job.optimizer.zero_grad()
            job.losses.clear()
            job.metrics.clear()
            opt_path = directory / OPTIMIZER_FILE
            if opt_path.is_file() and job.settings.load_optimizer_states:
                job.optimizer.restore(load_file(str(opt_path)), _metadata(opt_path))
            job.global_steps = int(_metadata(model_path).get("global_steps", 0))
            return {"global_steps": job.global_steps}

    # -- helpers ---------------------------------------------------------------------
    def _inputs(self, view: TrainView) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        pos = None if view.position_ids is None else view.position_ids.to(self.device)
        return view.input_ids.to(self.device), view.attention_mask.to(self.device), pos


def _mean_metrics(rows: list[dict[str, float]]) -> dict[str, float]:
    """Average per-call metrics over the calls accumulated into one step."""
    keys = ("ppo_kl", "pg_clipfrac_lower", "pg_loss", "kl_loss", "kl_coef")
    if not rows:
        return dict.fromkeys(keys, 0.0)
    return {k: sum(r.get(k, 0.0) for r in rows) / len(rows) for k in keys}


def _sample(
    model: TinyLM,
    prompts: list[list[int]],
    params: list[dict[str, Any]],
    seed: int,
    device: torch.device,
) -> list[tuple[list[int], list[float], str]]:
    """Left-padded batched sampling; per-row temperature/top-k/top-p/max_tokens."""
    bsz = len(prompts)
    width = max(max(len(p) for p in prompts), 1)
    ids = torch.zeros(bsz, width, dtype=torch.int64)
    attn = torch.zeros(bsz, width, dtype=torch.int64)
    for row, prompt in enumerate(prompts):
        if prompt:
            ids[row, width - len(prompt) :] = torch.tensor(prompt)
            attn[row, width - len(prompt) :] = 1
    attn[:, -1] = 1  # an empty prompt still needs one visible position
    ids, attn = ids.to(device), attn.to(device)
    limits = [max_tokens_of(p) for p in params]
    temps = torch.tensor([float(p.get("temperature", 1.0) or 0.0) for p in params])
    gen = torch.Generator().manual_seed(seed)
    tokens: list[list[int]] = [[] for _ in range(bsz)]
    logprobs: list[list[float]] = [[] for _ in range(bsz)]
    reasons = ["length"] * bsz
    done = [limit == 0 for limit in limits]
    for _ in range(max(limits, default=0)):
        if all(done):
            break
        logits = model(ids, attn)[:, -1].float().cpu()
        raw = logits.log_softmax(-1)
        scaled = logits / temps.clamp(min=1e-6)[:, None]
        for row, p in enumerate(params):
            scaled[row] = _filter_logits(scaled[row], p)
        probs = scaled.softmax(-1)
        sampled = torch.multinomial(probs, 1, generator=gen).squeeze(-1)
        greedy = scaled.argmax(-1)
        choice = torch.where(temps <= 0, greedy, sampled)
        for row in range(bsz):
            if done[row]:
                continue
            tok = int(choice[row])
            tokens[row].append(tok)
            logprobs[row].append(float(raw[row, tok]))
            if tok == EOS_ID or tok in (params[row].get("stop_token_ids") or []):
                done[row], reasons[row] = True, "stop"
            elif len(tokens[row]) >= limits[row]:
                done[row] = True
        ids = torch.cat([ids, choice[:, None].to(device)], dim=1)
        attn = torch.cat([attn, torch.ones(bsz, 1, dtype=attn.dtype, device=device)], dim=1)
    return [(tokens[r], logprobs[r], reasons[r]) for r in range(bsz)]


def _filter_logits(logits: torch.Tensor, params: Mapping[str, Any]) -> torch.Tensor:
    """Apply top-k / top-p to one row of logits."""
    top_k = int(params.get("top_k") or 0)
    if 0 < top_k < logits.numel():
        cutoff = logits.topk(top_k).values[-1]
        logits = logits.masked_fill(logits < cutoff, float("-inf"))
    top_p = float(params.get("top_p") or 1.0)
    if top_p < 1.0:
        sorted_logits, order = logits.sort(descending=True)
        cum = sorted_logits.softmax(-1).cumsum(-1)
        drop = cum - sorted_logits.softmax(-1) > top_p
        logits = logits.masked_fill(torch.zeros_like(drop).scatter(0, order, drop), float("-inf"))
    return logits


def _log_prob_inputs(request: Mapping[str, Any]) -> tuple[list[Any], list[Any], int]:
    """Validate a LogProbsRequest: prompts, optional matching completions, top_k."""
    prompts = request.get("prompts")
    if not isinstance(prompts, list) or not prompts:
        raise BackendError("bad_value", "prompts must be a non-empty list")
    completions = request.get("completions")
    if completions is None:
        completions = [None] * len(prompts)
    elif not isinstance(completions, list) or len(completions) != len(prompts):
        raise BackendError("bad_value", "completions must match prompts")
    return prompts, completions, int(request.get("top_k") or 0)


def _metadata(path: Path) -> dict[str, str]:
    """A safetensors file's ``__metadata__`` (read from its header only)."""
    with open(path, "rb") as fh:
        header_len = int.from_bytes(fh.read(8), "little")
        return dict(json.loads(fh.read(header_len)).get("__metadata__") or {})
