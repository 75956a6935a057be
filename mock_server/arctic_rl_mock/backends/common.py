"""Batch and config conventions shared by the canned and reference backends.

Kept in one place so both backends accept exactly the same inputs: a batch that the
canned backend answers is one the reference backend can train on.

Conventions (also documented in the contract's TrainBatch description):
- Token space: ids 0..255 are bytes (text prompts are UTF-8 encoded), 256 is end of
  sequence, 257..LOW_IDS-1 are reserved ids; ids LOW_IDS..VOCAB_SIZE-1 are room for any
  real tokenizer's ids (over half a million). Only bytes decode to text.
- Logprobs and entropy come back in the real post-processors' roll layout: the
  input's shape [B, T], ``logprobs[:, i]`` is log p(input_ids[:, i + 1]) and the last
  column (the wrapped one) is zero, with or without ``responses``. Entropy comes back
  when asked for by name, or with ``compute_entropy_and_logprobs`` and
  ``meta.calculate_entropy`` set.
- Per-token inputs (advantages, old_log_probs, ref_log_prob, loss/response masks,
  rollout_is_weights) have the contract's one input layout (TrainBatch's
  x-token-layout): token-aligned, right-justified against input_ids, column j of a
  width-w tensor holding the value of token input_ids[:, T - w + j]. So [B, R] response
  tensors, [B, T-1] shifted tensors and [B, T] whole-sequence tensors (first column
  unused: token 0 has no log-probability) all work, every input the same way.
  rollout_is_weights may also sit in ``meta`` (where verl puts it).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from cortex_gs_contract import ErrorCode, JobType

from arctic_rl_mock.backends import BackendError, sub_job_ids

# The byte-level ids (bytes, EOS, reserved), and every id a model accepts: a multiple.
LOW_IDS = 1024
VOCAB_SIZE = 512 * LOW_IDS
EOS_ID = 256
BYTE_TOKENS = 256
DEFAULT_LR = 1e-5
DEFAULT_MAX_TOKENS = 16
DEFAULT_KL_COEF = 1e-3
IGNORE_INDEX = -100
# The contract's per-token inputs (TrainBatch, x-token-layout).
PER_TOKEN_INPUTS = (
    "old_log_probs",
    "ref_log_prob",
    "advantages",
    "loss_mask",
    "response_mask",
    "rollout_is_weights",
)
# Where a batch's fields may sit, in the order they are looked for (then the top level).
BATCH_SECTIONS = ("kwargs", "context")


@dataclass(frozen=True)
class JobSettings:
    """What a backend needs from ``sub_job_configs`` (training sub-job first)."""

    seed: int = 0
    lr: float = DEFAULT_LR
    betas: tuple[float, float] = (0.9, 0.999)
    weight_decay: float = 0.01
    eps: float = 1e-8
    gradient_clipping: float | None = None
    load_optimizer_states: bool = True
    loss_fn: str = "grpo"
    max_seq_len: int = 512
    model_name: str = "tiny-byte-lm"
    peak_memory_log: bool = False
    sub_job_ids: dict[str, list[str]] = field(default_factory=dict)

    @property
    def sync_targets(self) -> list[str]:
        """Default sync-weights targets: every sampling and log-probability sub-job."""
        targets = (JobType.sampling, JobType.log_probability)
        return [sid for kind in targets for sid in self.sub_job_ids.get(kind, [])]

    @classmethod
    def from_sub_jobs(cls, job_id: str, sub_jobs: Sequence[Mapping[str, Any]]) -> JobSettings:
        """Read seed, optimizer and clipping; tolerate absent optional fields."""
        if not sub_jobs:
            return cls()
        training = next((s for s in sub_jobs if s.get("job_type") == JobType.training), sub_jobs[0])
        tcfg = training.get("training_config") or training.get("inference_config") or {}
        opt = tcfg.get("optimizer") or {}
        lr = opt.get("lr", opt.get("learning_rate", DEFAULT_LR))
        betas = opt.get("betas") or (0.9, 0.999)
        clip = tcfg.get("gradient_clipping")  # absent: no clipping, as the contract says
        return cls(
            seed=int(training.get("seed") or 0),
            lr=float(lr),
            betas=(float(betas[0]), float(betas[1])),
            weight_decay=float(opt.get("weight_decay", 0.01)),
            eps=float(opt.get("eps", 1e-8)),
            gradient_clipping=float(clip) if clip else None,
            load_optimizer_states=bool(tcfg.get("load_optimizer_states", True)),
            loss_fn=str(tcfg.get("loss_fn") or "grpo"),
            max_seq_len=int(tcfg.get("max_seq_len") or 512),
            model_name=str(training.get("model_name") or "tiny-byte-lm"),
            peak_memory_log=bool(tcfg.get("step_peak_memory_log")),
            sub_job_ids=_ids_by_type(job_id, sub_jobs),
        )


def _ids_by_type(job_id: str, sub_jobs: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Sub-job ids grouped by job type (sync-weights targets the sampling ones)."""
    out: dict[str, list[str]] = {}
    for sub, sub_id in zip(sub_jobs, sub_job_ids(job_id, sub_jobs), strict=True):
        out.setdefault(str(sub.get("job_type")), []).append(sub_id)
    return out


def peak_memory(gpu_peak: int) -> dict[str, int]:
    """A step's ``peak_memory``: GPU high-water mark and this process's current RSS, bytes."""
    with open(f"/proc/{os.getpid()}/statm", encoding="ascii") as statm:
        resident_pages = int(statm.read().split()[1])
    return {"gpu_peak": int(gpu_peak), "cpu_peak": resident_pages * os.sysconf("SC_PAGE_SIZE")}


def lookup(batch: Mapping[str, Any], name: str) -> Any:
    """A batch field from ``kwargs``, then ``context``, then the top level."""
    sections = (batch.get(section) for section in BATCH_SECTIONS)
    holder = next((s for s in sections if isinstance(s, Mapping) and name in s), batch)
    return holder.get(name)


def processing_of(batch: Mapping[str, Any]) -> dict[str, Any]:
    """The ``processing`` block (``post``, ``loss_fn``, ``config``), always a dict."""
    proc = batch.get("processing")
    return dict(proc) if isinstance(proc, Mapping) else {}


def wants(batch: Mapping[str, Any], what: str) -> bool:
    """Whether ``processing.post`` asks for ``what`` (or ``compute_<what>``); all if absent."""
    post = processing_of(batch).get("post")
    if post is None:
        return True
    names = [post] if isinstance(post, str) else list(post)
    if what in names or f"compute_{what}" in names:
        return True
    if "compute_entropy_and_logprobs" not in names:
        return False
    meta = batch.get("meta")
    return what == "logprobs" or bool(isinstance(meta, Mapping) and meta.get("calculate_entropy"))


def wants_reference(batch: Mapping[str, Any]) -> bool:
    """ForwardNoGradBatch's ``reference_model`` flag (top level, meta or processing)."""
    for part in (batch, batch.get("meta"), batch.get("processing")):
        if isinstance(part, Mapping) and part.get("reference_model"):
            return True
    return False


def as_scalar(value: Any, default: float) -> float:
    """A config number that may arrive as a JSON number or a 0-d tensor."""
    if value is None:
        return default
    if isinstance(value, torch.Tensor):
        return float(value.reshape(-1)[0].item())
    return float(value)


def input_ids_of(batch: Mapping[str, Any]) -> torch.Tensor:
    """The 2-D int64 ``input_ids`` every model batch must carry."""
    ids = lookup(batch, "input_ids")
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
        raise BackendError(ErrorCode.bad_value, "batch needs a 2-D input_ids tensor")
    if ids.dtype.is_floating_point or ids.dtype == torch.bool:
        raise BackendError(ErrorCode.bad_value, "input_ids must be an integer tensor")
    ids = ids.to(torch.int64)
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= VOCAB_SIZE):
        raise BackendError(ErrorCode.bad_value, f"input_ids must lie in [0, {VOCAB_SIZE})")
    return ids


def misalignment(batch: Mapping[str, Any]) -> tuple[list[str], str] | None:
    """Where and why a per-token input (or ``responses``) cannot line up with
    ``input_ids``; None when all do, or when there is no 2-D ``input_ids`` to line up with
    (the backend refuses that batch itself).

    The rule (the contract's TrainBatch): each per-token input is a 2-D tensor with the
    rows of ``input_ids`` [B, T] and at most T columns; ``responses`` [B, R] has R < T
    (they are the last R tokens), and every per-token input then has at least R columns,
    so that each response token has its value.
    """
    ids = lookup(batch, "input_ids")
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
        return None
    rows, width = ids.shape
    responses = lookup(batch, "responses")
    narrowest = 0
    if responses is not None:
        shaped = isinstance(responses, torch.Tensor) and responses.dim() == 2
        if not shaped or responses.shape[0] != rows or responses.shape[1] >= width:
            why = f"responses must be a [{rows}, R] tensor with R < {width}, like input_ids"
            return ["kwargs", "responses"], why
        narrowest = responses.shape[1]
    meta = batch.get("meta") if isinstance(batch.get("meta"), Mapping) else {}
    for name in PER_TOKEN_INPUTS:
        in_meta = name == "rollout_is_weights" and lookup(batch, name) is None
        value = _is_weights(batch, meta) if in_meta else lookup(batch, name)
        problem = _alignment(value, name, rows, width, narrowest)
        if problem is not None:
            return ["meta" if in_meta else "kwargs", name], problem
    return None


def _alignment(value: Any, name: str, rows: int, width: int, narrowest: int = 0) -> str | None:
    """Why a per-token input cannot line up with input_ids [rows, width], or None."""
    if value is None:
        return None
    if not isinstance(value, torch.Tensor) or value.dim() != 2 or value.shape[0] != rows:
        return f"{name} must be a [{rows}, w] tensor, as input_ids have {rows} rows"
    cols = value.shape[1]
    if cols > width:
        return f"{name} is {cols} columns wide, wider than input_ids ({width})"
    if cols < narrowest:
        return (
            f"{name} is {cols} columns wide, narrower than responses ({narrowest}): "
            "some response tokens would have no value"
        )
    return None


def to_shifted_frame(value: Any, name: str, batch_size: int, width: int) -> torch.Tensor | None:
    """Place a token-aligned, right-justified per-token tensor into the [B, T-1] shifted
    frame (frame column i is token i + 1; a width-T tensor's column 0 is dropped)."""
    problem = _alignment(value, name, batch_size, width)
    if problem is not None:
        raise BackendError(ErrorCode.bad_value, problem)
    if value is None:
        return None
    cols = value.shape[1]
    value = value.to(torch.float32)
    if cols == width:
        return value[:, 1:]
    out = torch.zeros(batch_size, width - 1, dtype=torch.float32)
    out[:, width - 1 - cols :] = value
    return out


def output_view(frame: torch.Tensor) -> torch.Tensor:
    """A [B, T-1] shifted tensor in the roll layout callers slice: [B, T], last column 0."""
    return torch.cat([frame, frame.new_zeros(frame.shape[0], 1)], dim=1)


@dataclass
class TrainView:
    """A training batch with every per-token tensor in the shifted [B, T-1] frame."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    position_ids: torch.Tensor | None
    targets: torch.Tensor
    mask: torch.Tensor
    advantages: torch.Tensor
    old_log_probs: torch.Tensor | None
    ref_log_prob: torch.Tensor | None
    is_weights: torch.Tensor | None
    loss_fn: str
    config: dict[str, Any]

    @classmethod
    def parse(
        cls,
        batch: Mapping[str, Any],
        *,
        need_advantages: bool = True,
        default_loss_fn: str = "grpo",
    ) -> TrainView:
        """Validate and align a TrainBatch / ForwardBackwardBatch value.

        Loss settings: ``meta.policy_loss_config`` (verl) overridden by
        ``processing.config``; ``batch_num_tokens`` may also sit in ``meta``; an absent
        ``processing.loss_fn`` means the job's configured one, except for a batch without
        advantages (the service's minimal ``{input_ids, labels}`` frame): cross-entropy.
        ``labels`` (``-100`` = ignored) are next-token targets, as the service's helper
        builds them: ``labels[:, i]`` is what position ``i`` predicts; absent, the targets
        are ``input_ids`` rolled left.
        """
        ids = input_ids_of(batch)
        bsz, width = ids.shape
        attn = lookup(batch, "attention_mask")
        attn = torch.ones_like(ids) if attn is None else attn.to(torch.int64)
        if attn.shape != ids.shape:
            raise BackendError(ErrorCode.bad_value, "attention_mask must match input_ids")
        pos = lookup(batch, "position_ids")
        if pos is not None and (not isinstance(pos, torch.Tensor) or pos.shape != ids.shape):
            raise BackendError(ErrorCode.bad_value, "position_ids must match input_ids")
        if width < 2:
            raise BackendError(ErrorCode.bad_value, "input_ids need at least two tokens per row")
        # A shifted column is valid only when its target token is a real token.
        target_valid = attn[:, 1:].to(torch.float32)
        mask_src = lookup(batch, "loss_mask")
        if mask_src is None:
            mask_src = lookup(batch, "response_mask")
        mask = to_shifted_frame(mask_src, "loss_mask", bsz, width)
        mask = target_valid if mask is None else (mask != 0).to(torch.float32) * target_valid
        targets, labelled = _targets(ids, lookup(batch, "labels"))
        mask = mask * labelled
        proc = processing_of(batch)
        advantages = to_shifted_frame(lookup(batch, "advantages"), "advantages", bsz, width)
        if advantages is None:
            if need_advantages and proc.get("loss_fn") is not None:
                raise BackendError(
                    ErrorCode.bad_value, f"loss_fn {proc['loss_fn']} needs advantages"
                )
            if need_advantages:
                default_loss_fn = "cross_entropy"
            advantages = torch.zeros(bsz, width - 1)
        meta = batch.get("meta") if isinstance(batch.get("meta"), Mapping) else {}
        base = meta.get("policy_loss_config")
        config = {**(base if isinstance(base, Mapping) else {}), **(proc.get("config") or {})}
        if "batch_num_tokens" not in config and "batch_num_tokens" in meta:
            config["batch_num_tokens"] = meta["batch_num_tokens"]
        return cls(
            input_ids=ids,
            attention_mask=attn,
            position_ids=None if pos is None else pos.to(torch.int64),
            targets=targets,
            mask=mask,
            advantages=advantages,
            old_log_probs=to_shifted_frame(
                lookup(batch, "old_log_probs"), "old_log_probs", bsz, width
            ),
            ref_log_prob=to_shifted_frame(
                lookup(batch, "ref_log_prob"), "ref_log_prob", bsz, width
            ),
            is_weights=to_shifted_frame(_is_weights(batch, meta), "rollout_is_weights", bsz, width),
            loss_fn=str(proc.get("loss_fn") or default_loss_fn),
            config=config,
        )


def _is_weights(batch: Mapping[str, Any], meta: Mapping[str, Any]) -> Any:
    """``rollout_is_weights`` from the tensors, else from ``meta`` (verl's place for it)."""
    found = lookup(batch, "rollout_is_weights")
    return meta.get("rollout_is_weights") if found is None else found


def _targets(ids: torch.Tensor, labels: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """The [B, T-1] token each shifted column predicts, and 1.0 where it is not ignored."""
    if labels is None:
        return ids[:, 1:], torch.ones(ids.shape[0], ids.shape[1] - 1)
    if not isinstance(labels, torch.Tensor) or labels.shape != ids.shape:
        raise BackendError(ErrorCode.bad_value, "labels must match input_ids")
    if labels.dtype.is_floating_point or labels.dtype == torch.bool:
        raise BackendError(ErrorCode.bad_value, "labels must be an integer tensor")
    shifted = labels[:, :-1].to(torch.int64)
    kept = shifted != IGNORE_INDEX
    if bool(((shifted < 0) | (shifted >= VOCAB_SIZE))[kept].any()):
        raise BackendError(ErrorCode.bad_value, f"labels must lie in [0, {VOCAB_SIZE}) or be -100")
    return torch.where(kept, shifted, 0), kept.to(torch.float32)


def uniform_logprob() -> float:
    """log(1/VOCAB_SIZE): what an untrained model predicts, used by the canned backend."""
    return -math.log(VOCAB_SIZE)
