"""Today's live service: what it refuses before any model call, and the shapes it answers in.

The mock plays it by default (``Settings.service == "today"``). The rules come from the
contract's today view: the loss and post-processor registries (``x-registries`` on
``Processing``), the sampling parameters the engine knows (``x-engine-fields`` on
``SamplingParams``, ``n`` excepted), and the job-config rules a training sub-job meets at
model load (``x-model-load`` on ``TrainingConfig``). Each carries its ``x-evidence``.
Where the live status of a refusal is unknown the contract's error shape is used: 422
``validation_error`` with one detail located in the body.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import torch
import yaml
from cortex_gs_contract import ErrorCode

from arctic_rl_mock.errors import ApiError

# Request kinds whose frame names a loss and post-processors.
_TRAINING = "forward_backward"
_FORWARD = "forward"
_GENERATIONS = ("generate", "generate_stream")


@dataclass(frozen=True)
class LiveRules:
    """Today's registries and field lists, read once from the contract."""

    losses: tuple[str, ...]
    post_processors: tuple[str, ...]
    forward_post_processors: tuple[str, ...]
    grpo_losses: tuple[str, ...]
    grpo_context: tuple[str, ...]
    grpo_config: tuple[str, ...]
    sampling_params: tuple[str, ...]
    proposed_metrics: tuple[str, ...]


def _today(entries: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    return tuple(str(e["name"]) for e in entries if e.get("x-status") != "proposed")


@cache
def live_rules() -> LiveRules:
    """The rules as the contract shipped with the mock states them."""
    text = resources.files("cortex_gs_contract").joinpath("cortex_gs.yaml").read_text("utf-8")
    schemas = yaml.safe_load(text)["components"]["schemas"]
    registries = schemas["Processing"]["x-registries"]
    grpo = registries["grpo_inputs"]
    engine = schemas["SamplingParams"]["x-engine-fields"]
    return LiveRules(
        losses=_today(registries["losses"]),
        post_processors=_today(registries["post_processors"]),
        forward_post_processors=tuple(registries["forward_post_processors"]),
        grpo_losses=tuple(grpo["losses"]),
        grpo_context=tuple(grpo["context_required"]),
        grpo_config=tuple(grpo["config"]),
        sampling_params=tuple(name for name in engine["names"] if name not in engine["not_today"]),
        proposed_metrics=tuple(
            name
            for name, node in schemas["TrainMetrics"]["properties"].items()
            if node.get("x-status") == "proposed"
        ),
    )


def refusal(loc: Sequence[str | int], message: str, kind: str = "not_served") -> ApiError:
    """The contract's 422 shape for a request today's service refuses before any work."""
    issue = {"loc": ["body", *loc], "msg": message, "type": kind}
    return ApiError(422, ErrorCode.validation_error, message, details=[issue])


def nearest(missing: str, present: Sequence[str]) -> str | None:
    """The present key a misspelt ``missing`` most likely is (``advantage``, ``loss_masks``)."""
    found = difflib.get_close_matches(missing, list(present), n=1, cutoff=0.8)
    return found[0] if found else None


def missing_input(section: str, key: str, present: Sequence[str], loss: str) -> ApiError:
    """A required loss input is absent: name it, and the near miss that stood in for it."""
    near = nearest(key, present)
    hint = f" (found {near!r}: did you mean {key!r}?)" if near else ""
    return refusal([section, key], f"loss {loss} needs {section}.{key}{hint}", "missing")


def check_request(kind: str, value: Mapping[str, Any], training_gpus: int = 1) -> None:
    """Refuse what today's service refuses before any model call (422)."""
    if kind == _TRAINING:
        _check_processing(value, live_rules().post_processors, allow_loss=True)
        _check_grpo_inputs(value)
    elif kind == _FORWARD:
        _check_processing(value, live_rules().forward_post_processors, allow_loss=False)
    if kind in (_TRAINING, _FORWARD):
        check_left_aligned(value)
        _check_rows(value, training_gpus)
    elif kind in _GENERATIONS:
        _check_sampling_params(value)


def _check_rows(value: Mapping[str, Any], training_gpus: int) -> None:
    """A batch needs at least as many rows as the training sub-job has GPUs."""
    kwargs = value.get("kwargs")
    ids = kwargs.get("input_ids") if isinstance(kwargs, Mapping) else None
    if isinstance(ids, torch.Tensor) and ids.dim() == 2 and ids.shape[0] < training_gpus:
        raise refusal(
            ["kwargs", "input_ids"],
            f"{ids.shape[0]} rows for {training_gpus} training GPUs: a batch needs at least "
            "one row per GPU",
            "too_few_rows",
        )


def _processing(value: Mapping[str, Any]) -> Mapping[str, Any]:
    proc = value.get("processing")
    return proc if isinstance(proc, Mapping) else {}


def _check_processing(
    value: Mapping[str, Any], post_processors: Sequence[str], *, allow_loss: bool
) -> None:
    proc = _processing(value)
    loss = proc.get("loss_fn")
    if loss is not None and (not allow_loss or loss not in live_rules().losses):
        known = ", ".join(live_rules().losses) if allow_loss else "none"
        raise refusal(["processing", "loss_fn"], f"loss_fn {loss!r} is not registered ({known})")
    post = proc.get("post")
    names = [post] if isinstance(post, str) else list(post or ())
    for index, name in enumerate(names):
        if name not in post_processors:
            raise refusal(
                ["processing", "post", index],
                f"post-processor {name!r} is not registered ({', '.join(post_processors)})",
            )


def _check_grpo_inputs(value: Mapping[str, Any]) -> None:
    """Stock grpo reads ``context`` only: each required key there, never a fallback."""
    loss = _processing(value).get("loss_fn")
    if loss not in live_rules().grpo_losses:
        return
    context = value.get("context")
    context = context if isinstance(context, Mapping) else {}
    for key in live_rules().grpo_context:
        if context.get(key) is None:
            raise missing_input("context", key, [str(k) for k in context], str(loss))


def check_left_aligned(value: Mapping[str, Any]) -> None:
    """Each row's real tokens in its leading columns (the packer's rule), padding after."""
    kwargs = value.get("kwargs")
    mask = kwargs.get("attention_mask") if isinstance(kwargs, Mapping) else None
    if not isinstance(mask, torch.Tensor) or mask.dim() != 2 or mask.shape[1] < 2:
        return
    real = mask != 0
    # Left-aligned: once a row has a padding column, no real token follows it.
    late = real[:, 1:] & ~real[:, :-1]
    rows = late.any(dim=1).nonzero().flatten().tolist()
    if rows:
        raise refusal(
            ["kwargs", "attention_mask"],
            f"packing requires left-aligned rows: row {rows[0]} has padding before a real token",
            "not_left_aligned",
        )


def _check_sampling_params(value: Mapping[str, Any]) -> None:
    """The engine's parameters only; ``n`` is not one today (send the prompt n times)."""
    params = value.get("sampling_params")
    each = list(enumerate(params)) if isinstance(params, list) else [(None, params)]
    known = live_rules().sampling_params
    for index, entry in each:
        if not isinstance(entry, Mapping):
            continue
        for key in entry:
            if key in known:
                continue
            loc: list[str | int] = ["sampling_params", *([] if index is None else [index]), key]
            near = nearest(str(key), known)
            hint = f" (did you mean {near!r}?)" if near else ""
            raise refusal(loc, f"unknown sampling parameter {key!r}{hint}", "unknown_field")


# -- answers ---------------------------------------------------------------------------


def _training_answer(result: dict[str, Any]) -> dict[str, Any]:
    """Log-probs as nested lists under ``post_process_outputs`` (rectangular, full width);
    no entropy; none of the proposed metrics (grpo's own, such as ``importance_weight``
    and ``clip_ratio``, stay)."""
    outputs = result.get("post_process_outputs") or {}
    shaped: dict[str, Any] = {}
    logprobs = outputs.get("logprobs")
    if isinstance(logprobs, torch.Tensor):
        shaped["logprobs"] = logprobs.tolist()
    answer = {k: v for k, v in result.items() if k not in ("post_process_outputs", "metrics")}
    metrics = result.get("metrics") or {}
    answer["metrics"] = {k: v for k, v in metrics.items() if k not in live_rules().proposed_metrics}
    answer["post_process_outputs"] = shaped
    return answer


def _forward_answer(result: dict[str, Any], job_id: str) -> dict[str, Any]:
    """``{job_id, logprobs}``: the log-probs as one top-level tensor."""
    outputs = result.get("model_outputs") or {}
    return {"job_id": job_id, "logprobs": outputs.get("logprobs")}


def _generate_answer(result: dict[str, Any]) -> dict[str, Any]:
    """Per-position log-probs as dicts keyed by the token id as a string."""
    for output in result.get("results") or ():
        values, tokens = output.get("logprobs"), output.get("token_ids")
        if isinstance(values, list) and isinstance(tokens, list):
            output["logprobs"] = [
                {str(token): float(value)} for token, value in zip(tokens, values, strict=False)
            ]
    return result


def answer(kind: str, job_id: str, result: dict[str, Any]) -> dict[str, Any]:
    """A backend result in the shape today's service answers with."""
    shapers: dict[str, Callable[[], dict[str, Any]]] = {
        _TRAINING: lambda: _training_answer(result),
        _FORWARD: lambda: _forward_answer(result, job_id),
        "generate": lambda: _generate_answer(result),
    }
    shaper = shapers.get(kind)
    return shaper() if shaper is not None else result


# -- model load ------------------------------------------------------------------------


def model_load_failure(sub_jobs: Sequence[Mapping[str, Any]]) -> str | None:
    """Why today's image would fail this job's training sub-job at model load, or None."""
    for sub in sub_jobs:
        config = sub.get("training_config")
        if not isinstance(config, Mapping):
            continue
        attn = config.get("attn_implementation")
        if attn is not None and attn != "flash_attention_3":
            return (
                f"attn_implementation {attn!r} cannot load: the image ships FlashAttention 3 "
                "only (attn_implementation=flash_attention_3)"
            )
        ds = config.get("ds_config")
        if isinstance(ds, Mapping):
            reason = _deepspeed_failure(ds, config)
            if reason is not None:
                return reason
    return None


def _deepspeed_failure(ds: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    zero = ds.get("zero_optimization")
    if isinstance(zero, Mapping) and "offload_optimizer" in zero:
        return (
            "ds_config.zero_optimization.offload_optimizer is set: DeepSpeed builds CPUAdam "
            "(even for device none), which fails on the GPU parameters; leave the key out"
        )
    batch = ds.get("train_batch_size")
    micro = ds.get("train_micro_batch_size_per_gpu")
    accum = ds.get("gradient_accumulation_steps")
    if not all(isinstance(v, int | float) for v in (batch, micro, accum)):
        return None
    n_gpus = int(config.get("n_gpus") or 1)
    data_parallel = max(n_gpus // int(config.get("sp_size") or 1), 1)
    if batch != micro * accum * data_parallel:
        return (
            f"DeepSpeed requires train_batch_size == micro x accumulation x data parallel: "
            f"{batch} != {micro} x {accum} x {data_parallel}"
        )
    return None


__all__ = [
    "LiveRules",
    "answer",
    "check_left_aligned",
    "check_request",
    "live_rules",
    "missing_input",
    "model_load_failure",
    "nearest",
    "refusal",
]
