"""What the legacy callers read back: Cortex results in the shapes SkyRL and verl expect.

Tensors where the frameworks index tensors, `loss` beside `avg_loss`, metrics as a dict
without None values (both reduce every metric with np.mean) that also holds the call's
``timing/*`` figures (floats, which both frameworks log), and generate's per-prompt list.
Used by `_shim.LegacyCortexClient`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any, Generic, TypeVar

from arctic_rl._timing import TIMING_KEY

__all__ = [
    "Done",
    "as_tensor",
    "normalize_forward",
    "normalize_generate",
    "normalize_step",
    "tensors_in",
]

T = TypeVar("T")


def as_tensor(value: Any) -> Any:
    """A tensor of an answer's value: as it came, or built from nested lists of numbers
    (today's forward-backward log-probs) in one pass; ragged lists stay lists rather than
    failing the call."""
    import torch

    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, list):
        numbers = _numbers(value)
        if numbers is not None:
            return numbers
    try:
        return torch.as_tensor(value)
    except (TypeError, ValueError, RuntimeError):
        return value


def _numbers(value: list[Any]) -> Any:
    """Nested lists of numbers as torch builds them (floats in its default dtype), through
    numpy: one C pass, several times faster than torch's own; None for anything else."""
    import numpy as np
    import torch

    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        return None
    if array.dtype.kind not in "bif":
        return None
    tensor = torch.from_numpy(array)
    return tensor.to(torch.get_default_dtype()) if array.dtype.kind == "f" else tensor


def tensors_in(result: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    out = dict(result)
    for key in keys:
        if out.get(key) is not None:
            out[key] = as_tensor(out[key])
    return out


def normalize_forward(
    result: Mapping[str, Any], warn: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """post_process_outputs / model_outputs -> batch (tensors); loss <-> avg_loss; grad_norm up.

    Metrics never hold None (verl reduces each with np.mean): such keys are left out.
    """
    out = dict(result)
    outputs = out.get("post_process_outputs") or out.get("model_outputs") or out.get("batch") or {}
    batch = {k: as_tensor(v) for k, v in dict(outputs).items() if v is not None}
    if "logprobs" in batch or "log_probs" in batch:
        batch.setdefault("logprobs", batch.get("log_probs"))
        batch.setdefault("log_probs", batch["logprobs"])
    out["batch"] = batch
    out.setdefault("post_process_outputs", batch)
    out.setdefault("model_outputs", batch)
    metrics = _without_none(out.get("metrics"), warn)
    loss = out.get("loss", out.get("avg_loss", metrics.get("loss")))
    if loss is not None:
        out.setdefault("loss", loss)
        out.setdefault("avg_loss", loss)
        metrics.setdefault("loss", loss)
    if "grad_norm" in metrics:
        out.setdefault("grad_norm", metrics["grad_norm"])
    metrics.update(out.pop(TIMING_KEY, None) or {})
    out["metrics"] = metrics
    return out


def normalize_step(
    result: Mapping[str, Any] | None, warn: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Cortex answers {global_steps, last_lr}; callers read result["metrics"] as a dict.

    `last_lr` and `grad_norm` are lifted into metrics when reported; a missing or None
    one is left out (and `warn` told once) rather than put in as None.
    """
    out = dict(result or {})
    metrics = _without_none(out.get("metrics"), warn)
    for key in ("last_lr", "grad_norm"):
        value = metrics.get(key, out.get(key))
        if value is None:
            if warn is not None:
                warn(key)
            continue
        metrics[key] = value
        out[key] = value
    metrics.update(out.pop(TIMING_KEY, None) or {})
    out["metrics"] = metrics
    return out


def _without_none(
    metrics: Mapping[str, Any] | None, warn: Callable[[str], None] | None
) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in dict(metrics or {}).items():
        if value is None:
            if warn is not None:
                warn(key)
            continue
        kept[key] = value
    return kept


def normalize_generate(result: Mapping[str, Any] | Sequence[Any]) -> list[dict[str, Any]]:
    """GenerateResult -> the list of per-prompt dicts callers iterate over."""
    items = result.get("results", []) if isinstance(result, Mapping) else result
    outputs: list[dict[str, Any]] = []
    for item in items:
        entry = dict(item)
        entry.setdefault("text", "")
        entry["token_ids"] = [int(t) for t in _as_list(entry.get("token_ids"))]
        entry.setdefault("finish_reason", None)
        outputs.append(entry)
    return outputs


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    tolist = getattr(value, "tolist", None)
    return list(tolist() if callable(tolist) else value)


class Done(Generic[T]):
    """A finished result that may also be awaited: for calls some callers await and some don't."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, None, T]:
        return self.value
        yield  # pragma: no cover  (makes this a generator)

    def __float__(self) -> float:
        return float(self.value)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"Done({self.value!r})"
