# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SamplingParams")


@_attrs_define
class SamplingParams:
    """vLLM-style sampling settings; other engine parameters (`x-engine-fields`) pass through
    to the engine. A key the engine does not know is fatal today: the request is refused.
    Fields vLLM types as optional may be null (the engine's default). There is no `n`
    today: n samples mean sending the prompt n times.

        Attributes:
            max_tokens (int | None | Unset): Most tokens to generate.
            temperature (float | Unset): Sampling temperature; 0 is greedy.
            top_p (float | Unset): Nucleus sampling mass.
            top_k (int | Unset): Sample from the k most likely tokens; -1 for all.
            n (int | Unset): Completions per prompt<!-- proposed:start --> (at most 64, see the proposed limits)<!--
                proposed:end -->.
            stop (list[str] | None | Unset): Stop strings.
            seed (int | None | Unset): Per-request seed.
            logprobs (int | None | Unset): Also return this many log-probabilities per generated token (see
                `GenerationOutput.logprobs`).
    """

    max_tokens: int | None | Unset = UNSET
    temperature: float | Unset = UNSET
    top_p: float | Unset = UNSET
    top_k: int | Unset = UNSET
    n: int | Unset = UNSET
    stop: list[str] | None | Unset = UNSET
    seed: int | None | Unset = UNSET
    logprobs: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_tokens: int | None | Unset
        if isinstance(self.max_tokens, Unset):
            max_tokens = UNSET
        else:
            max_tokens = self.max_tokens

        temperature = self.temperature

        top_p = self.top_p

        top_k = self.top_k

        n = self.n

        stop: list[str] | None | Unset
        if isinstance(self.stop, Unset):
            stop = UNSET
        elif isinstance(self.stop, list):
            stop = self.stop

        else:
            stop = self.stop

        seed: int | None | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        logprobs: int | None | Unset
        if isinstance(self.logprobs, Unset):
            logprobs = UNSET
        else:
            logprobs = self.logprobs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if top_p is not UNSET:
            field_dict["top_p"] = top_p
        if top_k is not UNSET:
            field_dict["top_k"] = top_k
        if n is not UNSET:
            field_dict["n"] = n
        if stop is not UNSET:
            field_dict["stop"] = stop
        if seed is not UNSET:
            field_dict["seed"] = seed
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_max_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tokens = _parse_max_tokens(d.pop("max_tokens", UNSET))

        temperature = d.pop("temperature", UNSET)

        top_p = d.pop("top_p", UNSET)

        top_k = d.pop("top_k", UNSET)

        n = d.pop("n", UNSET)

        def _parse_stop(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                stop_type_0 = cast(list[str], data)

                return stop_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        stop = _parse_stop(d.pop("stop", UNSET))

        def _parse_seed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        def _parse_logprobs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        logprobs = _parse_logprobs(d.pop("logprobs", UNSET))

        sampling_params = cls(
            max_tokens=max_tokens,
            temperature=temperature,
            top_p=top_p,
            top_k=top_k,
            n=n,
            stop=stop,
            seed=seed,
            logprobs=logprobs,
        )

        sampling_params.additional_properties = d
        return sampling_params

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
