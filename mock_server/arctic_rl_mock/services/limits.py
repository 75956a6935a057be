"""The contract's proposed request limits, checked before a request is queued.

Each limit bounds what one small request can make the mock compute (openapi/cortex_gs.yaml,
"Proposed: limits"): prompts per generation or scoring request, ``sampling_params.n``,
sequence width against the job's ``max_seq_len``, and the cost budgets the fields
multiply into (:mod:`arctic_rl_mock.services.budgets`, from the contract's ``x-cost-budgets``:
rows x width² of a batch, tokens of a generation). A chunked frame is checked when its
final chunk has been decoded; a JSON body after its schema validation (the schema
carries the contract's numbers, the settings may lower them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cortex_gs_contract import ErrorCode, JobType

from arctic_rl_mock import today
from arctic_rl_mock.backends.common import (
    BATCH_SECTIONS,
    DEFAULT_MAX_TOKENS,
    lookup,
    misalignment,
    processing_of,
)
from arctic_rl_mock.errors import ApiError
from arctic_rl_mock.services.budgets import input_shape, overrun
from arctic_rl_mock.settings import Settings

# Which sub-job's max_seq_len bounds each operation, in order of preference.
_WIDTH_SOURCES: dict[str, tuple[str, ...]] = {
    "forward_backward": (JobType.training,),
    "forward_no_grad": (JobType.training,),
    "log_probs": (JobType.log_probability, JobType.sampling, JobType.training),
}
_GENERATIONS = ("generate", "generate_stream")
# The proposed service's policy-gradient losses, which read advantages and a token mask.
_POLICY_LOSSES = ("grpo", "grpo_echo_v1", "verl_grpo", "ppo", "importance_sampling")
_MASKS = ("loss_mask", "response_mask")


def check_request(settings: Settings, job: Mapping[str, Any], kind: str, value: Any) -> None:
    """Refuse a request of operation ``kind`` whose ``value`` breaks a limit (422)."""
    if not isinstance(value, Mapping):
        return  # its shape is the backend's to refuse
    if not settings.serves_proposals:
        today.check_request(kind, value, training_gpus(job))
    if kind in _GENERATIONS or kind == "log_probs":
        _check_prompt_count(settings, value)
    if kind in _GENERATIONS and settings.serves_proposals:
        _check_completions(settings, value)
    if settings.serves_proposals:
        _check_budgets(settings, kind, value)
    if kind == "forward_backward" and settings.serves_proposals:  # kwargs are a TrainBatch
        _check_alignment(value)
        _check_loss_inputs(value)
    limit = max_seq_len(job, _WIDTH_SOURCES.get(kind, ()))
    if limit is None:
        return
    if kind == "log_probs":
        _check_scored_lengths(value, limit)
    elif kind in _WIDTH_SOURCES:
        _check_input_width(value, limit)


def training_gpus(job: Mapping[str, Any]) -> int:
    """The GPUs of the job's training sub-job (1 when it names none)."""
    for sub in job.get("sub_jobs") or ():
        config = sub.get("training_config") if isinstance(sub, Mapping) else None
        if isinstance(config, Mapping) and sub.get("job_type") == JobType.training:
            return int(config.get("n_gpus") or 1)
    return 1


def max_seq_len(job: Mapping[str, Any], job_types: Sequence[str]) -> int | None:
    """The ``max_seq_len`` of the first sub-job of the first listed type that has one."""
    for job_type in job_types:
        for sub in job.get("sub_jobs") or ():
            if not isinstance(sub, Mapping) or sub.get("job_type") != job_type:
                continue
            config = sub.get("training_config") or sub.get("inference_config")
            limit = config.get("max_seq_len") if isinstance(config, Mapping) else None
            if isinstance(limit, int) and limit > 0:
                return limit
    return None


def _invalid(loc: list[str | int], message: str, problem: str) -> ApiError:
    issue = {"loc": ["body", *loc], "msg": message, "type": problem}
    return ApiError(422, ErrorCode.validation_error, message, details=[issue])


def _check_prompt_count(settings: Settings, value: Mapping[str, Any]) -> None:
    prompts = value.get("prompts")
    if _is_list(prompts) and len(prompts) > settings.max_prompts:
        raise _invalid(
            ["prompts"],
            f"{len(prompts)} prompts in one request; at most {settings.max_prompts}",
            "too_long",
        )


def _check_completions(settings: Settings, value: Mapping[str, Any]) -> None:
    """``sampling_params.n``: one object for every prompt, or one (or null) per prompt."""
    params = value.get("sampling_params")
    each = list(enumerate(params)) if _is_list(params) else [(None, params)]
    cap = settings.max_completions_per_prompt
    for index, entry in each:
        n = entry.get("n") if isinstance(entry, Mapping) else None
        if isinstance(n, int) and n > cap:
            loc: list[str | int] = ["sampling_params", *([] if index is None else [index]), "n"]
            raise _invalid(loc, f"n={n} completions per prompt; at most {cap}", "less_than_equal")


def _check_budgets(settings: Settings, kind: str, value: Mapping[str, Any]) -> None:
    """The cost budgets (:mod:`arctic_rl_mock.services.budgets`): 422 with the budget's code, before
    any work."""
    refusal = overrun(
        kind,
        value,
        max_batch_cost=settings.max_batch_cost,
        max_generation_tokens=settings.max_generation_tokens,
        default_max_tokens=DEFAULT_MAX_TOKENS,
    )
    if refusal is not None:
        raise refusal


def _check_alignment(value: Mapping[str, Any]) -> None:
    """Not a limit, but refused as early: per-token inputs that cannot line up with
    ``input_ids`` / ``responses`` (TrainBatch's layout; ``misalignment`` has the rule)."""
    found = misalignment(value)
    if found is not None:
        loc, message = found
        raise _invalid(loc, message, "token_layout")


def _check_loss_inputs(value: Mapping[str, Any]) -> None:
    """A policy-gradient loss needs advantages and a token mask, wherever the batch holds
    them; a missing one is refused naming it (and the near miss that stood in for it),
    never trained as next-token prediction instead."""
    loss = processing_of(value).get("loss_fn")
    if str(loss).lower() not in _POLICY_LOSSES:
        return
    present = [
        str(k) for s in BATCH_SECTIONS if isinstance(value.get(s), Mapping) for k in value[s]
    ]
    if lookup(value, "advantages") is None:
        raise today.missing_input("kwargs", "advantages", present, str(loss))
    if all(lookup(value, mask) is None for mask in _MASKS):
        intended = next((m for m in _MASKS if today.nearest(m, present)), _MASKS[0])
        raise today.missing_input("kwargs", intended, present, str(loss))


def _check_input_width(value: Mapping[str, Any], limit: int) -> None:
    """The last dimension of ``input_ids`` (a tensor, or nested lists) against the job's."""
    shape = input_shape(value)
    if shape is None:
        return  # no recognisable input_ids: the backend refuses the batch
    width = shape[1]
    if width > limit:
        raise _too_long(["kwargs", "input_ids"], f"input_ids are {width} tokens wide", limit)


def _check_scored_lengths(value: Mapping[str, Any], limit: int) -> None:
    """Each prompt plus its completion, in the mock's tokens (UTF-8 bytes for text)."""
    prompts = value.get("prompts")
    completions = value.get("completions")
    if not _is_list(prompts):
        return
    if not _is_list(completions):
        completions = [None] * len(prompts)
    for index, (prompt, completion) in enumerate(zip(prompts, completions, strict=False)):
        length = _tokens(prompt) + _tokens(completion)
        if length > limit:
            message = f"prompt {index} and its completion are {length} tokens"
            raise _too_long(["prompts", index], message, limit)


def _too_long(loc: list[str | int], message: str, limit: int) -> ApiError:
    text = f"{message}; the job's max_seq_len is {limit}"
    issue = {"loc": ["body", *loc], "msg": text, "type": "sequence_too_long"}
    return ApiError(422, ErrorCode.sequence_too_long, text, details=[issue])


def _tokens(prompt: Any) -> int:
    if isinstance(prompt, str):
        return len(prompt.encode("utf-8"))
    return len(prompt) if _is_list(prompt) else 0


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)
