# generated from openapi/cortex_gs.yaml by make generate; do not edit
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sampling_params import SamplingParams


T = TypeVar("T", bound="GenerateRequest")


@_attrs_define
class GenerateRequest:
    """The value inside a generate frame (and the JSON body of generate-stream).

    Attributes:
        prompts (list[list[int] | str]): Prompts as text and/or token-id lists<!-- proposed:start --> (at most 1024, see
            the proposed limits)<!-- proposed:end -->.
        sampling_params (list[None | SamplingParams] | SamplingParams | Unset): One object for every prompt, or a list
            aligned with `prompts` whose entries may be null (engine defaults).
        routing_key (list[None | str] | str | Unset): One key for every prompt, or a list aligned with `prompts` whose
            entries may be null.
        strict (bool | Unset): Strict routing-key affinity (requests with the same key must stay on the same replica).
            Default: False.
    """

    prompts: list[list[int] | str]
    sampling_params: list[None | SamplingParams] | SamplingParams | Unset = UNSET
    routing_key: list[None | str] | str | Unset = UNSET
    strict: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.sampling_params import SamplingParams  # noqa: PLC0415

        prompts = []
        for prompts_item_data in self.prompts:
            prompts_item: list[int] | str
            if isinstance(prompts_item_data, list):
                prompts_item = prompts_item_data

            else:
                prompts_item = prompts_item_data
            prompts.append(prompts_item)

        sampling_params: dict[str, Any] | list[dict[str, Any] | None] | Unset
        if isinstance(self.sampling_params, Unset):
            sampling_params = UNSET
        elif isinstance(self.sampling_params, SamplingParams):
            sampling_params = self.sampling_params.to_dict()
        else:
            sampling_params = []
            for sampling_params_type_1_item_data in self.sampling_params:
                sampling_params_type_1_item: dict[str, Any] | None
                if isinstance(sampling_params_type_1_item_data, SamplingParams):
                    sampling_params_type_1_item = sampling_params_type_1_item_data.to_dict()
                else:
                    sampling_params_type_1_item = sampling_params_type_1_item_data
                sampling_params.append(sampling_params_type_1_item)

        routing_key: list[None | str] | str | Unset
        if isinstance(self.routing_key, Unset):
            routing_key = UNSET
        elif isinstance(self.routing_key, list):
            routing_key = []
            for routing_key_type_1_item_data in self.routing_key:
                routing_key_type_1_item: None | str
                routing_key_type_1_item = routing_key_type_1_item_data
                routing_key.append(routing_key_type_1_item)

        else:
            routing_key = self.routing_key

        strict = self.strict

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "prompts": prompts,
            }
        )
        if sampling_params is not UNSET:
            field_dict["sampling_params"] = sampling_params
        if routing_key is not UNSET:
            field_dict["routing_key"] = routing_key
        if strict is not UNSET:
            field_dict["strict"] = strict

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sampling_params import SamplingParams  # noqa: PLC0415

        d = dict(src_dict)
        prompts = []
        _prompts = d.pop("prompts")
        for prompts_item_data in _prompts:

            def _parse_prompts_item(data: object) -> list[int] | str:
                try:
                    if not isinstance(data, list):
                        raise TypeError()
                    componentsschemas_prompt_type_1 = cast(list[int], data)

                    return componentsschemas_prompt_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(list[int] | str, data)

            prompts_item = _parse_prompts_item(prompts_item_data)

            prompts.append(prompts_item)

        def _parse_sampling_params(
            data: object,
        ) -> list[None | SamplingParams] | SamplingParams | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                sampling_params_type_0 = SamplingParams.from_dict(data)

                return sampling_params_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, list):
                raise TypeError()
            sampling_params_type_1 = []
            _sampling_params_type_1 = data
            for sampling_params_type_1_item_data in _sampling_params_type_1:

                def _parse_sampling_params_type_1_item(data: object) -> None | SamplingParams:
                    if data is None:
                        return data
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        sampling_params_type_1_item_type_0 = SamplingParams.from_dict(data)

                        return sampling_params_type_1_item_type_0
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    return cast(None | SamplingParams, data)

                sampling_params_type_1_item = _parse_sampling_params_type_1_item(
                    sampling_params_type_1_item_data
                )

                sampling_params_type_1.append(sampling_params_type_1_item)

            return sampling_params_type_1

        sampling_params = _parse_sampling_params(d.pop("sampling_params", UNSET))

        def _parse_routing_key(data: object) -> list[None | str] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                routing_key_type_1 = []
                _routing_key_type_1 = data
                for routing_key_type_1_item_data in _routing_key_type_1:

                    def _parse_routing_key_type_1_item(data: object) -> None | str:
                        if data is None:
                            return data
                        return cast(None | str, data)

                    routing_key_type_1_item = _parse_routing_key_type_1_item(
                        routing_key_type_1_item_data
                    )

                    routing_key_type_1.append(routing_key_type_1_item)

                return routing_key_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[None | str] | str | Unset, data)

        routing_key = _parse_routing_key(d.pop("routing_key", UNSET))

        strict = d.pop("strict", UNSET)

        generate_request = cls(
            prompts=prompts,
            sampling_params=sampling_params,
            routing_key=routing_key,
            strict=strict,
        )

        generate_request.additional_properties = d
        return generate_request

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
