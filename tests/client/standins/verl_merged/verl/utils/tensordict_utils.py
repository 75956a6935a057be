"""Replay of the `verl.utils.tensordict_utils` helpers a forwarder worker uses, on a
plain dict standing in for TensorDict (non-tensor values read back as themselves)."""

from __future__ import annotations

from typing import Any


def get_non_tensor_data(data: dict[str, Any], key: str, default: Any) -> Any:
    return data.get(key, default)


def get_tensordict(tensor_dict: dict[str, Any], non_tensor_dict: dict | None = None) -> dict:
    return {**tensor_dict, **(non_tensor_dict or {})}
