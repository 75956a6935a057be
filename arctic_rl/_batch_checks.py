"""What a request must carry, checked before it is sent: never a silent fallback.

A GRPO-family loss without advantages or a loss mask would still train, on the next-token
objective, and log it as the policy loss; a misspelt key (``advantage``, ``loss_masks``)
does the same with the right name one letter away; a misspelt sampling parameter
(``max_token``) is fatal on today's service and ignored by others. So each is refused
here, naming what is missing or the known name nearest to what was written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arctic_rl._config_check import nearest
from arctic_rl._errors import InvalidRequestError
from arctic_rl._services import contract_schemas

__all__ = [
    "BATCH_KEYS",
    "check_sampling_params",
    "check_training_batch",
    "is_policy_loss",
    "sampling_keys",
]

# The contract's TrainBatch fields, today's grpo context, and what SkyRL's and verl's
# batches carry besides.
BATCH_KEYS = frozenset(
    {
        "input_ids",
        "attention_mask",
        "position_ids",
        "labels",
        "prompts",
        "responses",
        "response_mask",
        "loss_mask",
        "advantages",
        "returns",
        "values",
        "old_log_probs",
        "old_log_probs_shifted",
        "ref_log_prob",
        "rollout_log_probs",
        "rollout_is_weights",
        "token_level_scores",
        "token_level_rewards",
        "logprob_weights_shifted",
        "multi_modal_inputs",
        "temperature",
    }
)
_POLICY_LOSSES = frozenset({"ppo", "ppo_clip", "vanilla", "clip", "policy_loss", "is"})
_SECTIONS = ("kwargs", "context")


def sampling_keys() -> frozenset[str]:
    """The contract's SamplingParams fields and the engine fields it names."""
    schema = contract_schemas()["SamplingParams"]
    return frozenset({*schema.get("properties", {}), *schema["x-engine-fields"]["names"]})


def is_policy_loss(name: Any) -> bool:
    """A loss that reads advantages and a loss mask (grpo, grpo_echo_v1, verl_grpo, ppo...)."""
    if not isinstance(name, str):
        return False
    key = name.lower().removeprefix("verl_").removeprefix("verl.")
    return "grpo" in key or key in _POLICY_LOSSES or key == "importance_sampling"


def _refused(message: str, loc: Sequence[str], kind: str) -> InvalidRequestError:
    issue = {"loc": ["body", *loc], "msg": message, "type": kind}
    return InvalidRequestError(message, code="validation_error", details=[issue])


def _tensor_keys(body: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    """(section, key) of every input a forward body carries."""
    for section in _SECTIONS:
        part = body.get(section)
        if isinstance(part, Mapping):
            yield from ((section, key) for key in part)


def check_training_batch(body: Mapping[str, Any]) -> None:
    """Refuse a near-miss key, and a policy loss's batch without what the loss reads.

    ``body``: a forward body as `forward_request` shapes it (``kwargs``, ``context``,
    ``processing``)."""
    present: set[str] = set()
    for section, key in _tensor_keys(body):
        present.add(key)
        if key in BATCH_KEYS:
            continue
        near = nearest(key, BATCH_KEYS)
        if near is not None:
            raise _refused(
                f"the batch has {key!r}, which is not a known input; did you mean {near!r}? "
                "(sent as it is, the loss would not read it)",
                (section, key),
                "near_miss",
            )
    loss = (body.get("processing") or {}).get("loss_fn")
    if not is_policy_loss(loss):
        return
    missing = []
    if "advantages" not in present and "advantages" not in (body.get("meta") or {}):
        missing.append("advantages")
    if not present & {"loss_mask", "response_mask"}:
        missing.append("loss_mask (or response_mask)")
    if missing:
        raise _refused(
            f"loss {loss!r} reads {' and '.join(missing)}, which the batch lacks: without "
            "them it would train on every token's likelihood instead of the policy loss",
            ("kwargs",),
            "missing_input",
        )


def check_sampling_params(params: Any) -> None:
    """Refuse a sampling parameter the engine does not know (the contract's
    ``x-engine-fields``), before sending."""
    known = sampling_keys()
    entries = params if isinstance(params, Sequence) and not isinstance(params, str) else [params]
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            continue
        for key in entry:
            if key in known:
                continue
            near = nearest(str(key), known)
            hint = f"; did you mean {near!r}?" if near else ""
            where = (
                ("sampling_params", str(index), str(key))
                if entries is params
                else (
                    "sampling_params",
                    str(key),
                )
            )
            raise _refused(
                f"unknown sampling parameter {key!r}{hint} (today's service fails a "
                "request that names one)",
                where,
                "unknown_sampling_parameter",
            )
