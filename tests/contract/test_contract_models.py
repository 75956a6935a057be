"""The generated models agree with the contract's own examples and its integer policy."""

from __future__ import annotations

import enum
import re
from datetime import datetime
from typing import Any

import cortex_gs_client.models as attrs_models
import cortex_gs_models
import pytest
import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError

from .conftest import HTTP_METHODS, SPEC_PATH

SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
SCHEMAS: dict[str, Any] = SPEC["components"]["schemas"]
SCHEMA_EXAMPLES = [
    pytest.param(name, index, example, id=f"{name}[{index}]")
    for name, schema in SCHEMAS.items()
    for index, example in enumerate(schema.get("examples", []))
]
DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def _media_examples() -> list[Any]:
    """(where, schema name, example) for every JSON example of a named request/response."""
    found = []
    responses = SPEC["components"]["responses"]
    for path, item in SPEC["paths"].items():
        for method in HTTP_METHODS:
            operation = item.get(method)
            if not operation:
                continue
            bodies = [("request", operation.get("requestBody", {}))]
            for status, response in operation["responses"].items():
                if "$ref" in response:
                    response = responses[response["$ref"].rsplit("/", 1)[1]]
                bodies.append((status, response))
            for where, body in bodies:
                media = body.get("content", {}).get("application/json")
                if media and "example" in media and "$ref" in media["schema"]:
                    name = media["schema"]["$ref"].rsplit("/", 1)[1]
                    label = f"{method.upper()} {path} {where}"
                    found.append(pytest.param(name, media["example"], id=label))
    for name, response in responses.items():
        media = response.get("content", {}).get("application/json")
        if media and "example" in media:
            ref = media["schema"]["$ref"].rsplit("/", 1)[1]
            found.append(pytest.param(ref, media["example"], id=f"responses/{name}"))
    return found


def _normalise(value: Any) -> Any:
    """Make equal data compare equal: date-times by instant (attrs writes +00:00, not Z)."""
    if isinstance(value, dict):
        return {key: _normalise(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_normalise(item) for item in value]
    if isinstance(value, str) and DATE_TIME.match(value):
        return datetime.fromisoformat(value)
    return value


def pydantic_round_trip(name: str, example: Any) -> Any:
    """Validate with the pydantic model (or alias/enum) and dump back to JSON-able data."""
    target = getattr(cortex_gs_models, name)
    if isinstance(target, type) and issubclass(target, BaseModel):
        model = target.model_validate(example)
        return model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    adapter = TypeAdapter(target)
    return adapter.dump_python(adapter.validate_python(example), mode="json")


@pytest.mark.parametrize(("name", "index", "example"), SCHEMA_EXAMPLES)
def test_pydantic_models_round_trip_schema_examples(name: str, index: int, example: Any) -> None:
    assert pydantic_round_trip(name, example) == example


@pytest.mark.parametrize(("name", "index", "example"), SCHEMA_EXAMPLES)
def test_attrs_models_round_trip_schema_examples(name: str, index: int, example: Any) -> None:
    target = getattr(attrs_models, name, None)
    if target is None:
        # openapi-python-client inlines non-object schemas (ids, unions) instead of classes.
        assert SCHEMAS[name].get("type") != "object", f"no attrs model for object {name}"
        return
    if isinstance(target, type) and issubclass(target, enum.Enum):
        assert target(example).value == example
        return
    assert _normalise(target.from_dict(example).to_dict()) == _normalise(example)


@pytest.mark.parametrize(("name", "example"), _media_examples())
def test_operation_examples_validate_and_round_trip(name: str, example: Any) -> None:
    assert pydantic_round_trip(name, example) == example
    attrs_model = getattr(attrs_models, name, None)
    if attrs_model is None:  # a union, inlined by openapi-python-client: its matching variant
        matched = TypeAdapter(getattr(cortex_gs_models, name)).validate_python(example)
        attrs_model = getattr(attrs_models, type(matched).__name__)
    assert _normalise(attrs_model.from_dict(example).to_dict()) == _normalise(example)


def test_every_object_schema_has_both_models() -> None:
    for name, schema in SCHEMAS.items():
        assert hasattr(cortex_gs_models, name), name
        if schema.get("type") == "object" or "enum" in schema:
            assert hasattr(attrs_models, name), name


# ---------------------------------------------------------------- the integer policy
BASE_CONFIG = {"optimizer": {"name": "AdamW"}, "max_seq_len": 8, "train_batch_size": 1, "n_gpus": 1}


@pytest.mark.parametrize(("value", "expected"), [(2048, 2048), (2048.0, 2048), (1e3, 1000)])
def test_integers_accept_json_integers_including_integral_floats(value, expected) -> None:
    config = cortex_gs_models.TrainingConfig.model_validate({**BASE_CONFIG, "max_seq_len": value})
    assert config.max_seq_len == expected and type(config.max_seq_len) is int
    as_json = (
        f'{{"optimizer": {{"a": 1}}, "max_seq_len": {value}, "train_batch_size": 1, "n_gpus": 1}}'
    )
    assert cortex_gs_models.TrainingConfig.model_validate_json(as_json).max_seq_len == expected


@pytest.mark.parametrize("value", [False, True, "5", 5.5, None, [5]])
def test_integers_reject_bools_strings_and_fractions(value) -> None:
    with pytest.raises(ValidationError):
        cortex_gs_models.TrainingConfig.model_validate({**BASE_CONFIG, "max_seq_len": value})


def test_integer_constraints_still_apply_and_reach_json_schema() -> None:
    with pytest.raises(ValidationError):
        cortex_gs_models.TrainingConfig.model_validate({**BASE_CONFIG, "max_seq_len": 0.0})
    prop = cortex_gs_models.TrainingConfig.model_json_schema()["properties"]["max_seq_len"]
    assert prop["type"] == "integer" and prop["minimum"] == 1


def test_integers_inside_lists_and_unions_follow_the_policy() -> None:
    request = cortex_gs_models.LogProbsRequest.model_validate({"prompts": [[1, 2.0]], "top_k": 1.0})
    assert request.prompts == [[1, 2]] and request.top_k == 1
    for bad in ([[True]], [["1"]], [[1.5]]):
        with pytest.raises(ValidationError):
            cortex_gs_models.LogProbsRequest.model_validate({"prompts": bad})
    assert cortex_gs_models.Error.model_validate({"message": "m", "code": 7.0}).code == 7


@pytest.mark.parametrize(
    ("field", "value"),
    [("learning_rate", "0.1"), ("learning_rate", True)],
)
def test_other_scalars_are_not_coerced(field: str, value: Any) -> None:
    with pytest.raises(ValidationError):
        cortex_gs_models.StepRequest.model_validate({field: value})
    assert cortex_gs_models.StepRequest.model_validate({"learning_rate": 1}).learning_rate == 1.0
    with pytest.raises(ValidationError):
        cortex_gs_models.CreateJobRequest.model_validate(
            {"sub_job_configs": [{"job_type": "training", "model_name": 5}]}
        )


def test_todays_request_bodies_keep_unknown_fields_and_proposed_ones_refuse_them() -> None:
    # The service ignores fields it does not use (a save's export_hf, ...); the models keep
    # them so that a server built on them can log and drop them. New bodies are closed.
    step = cortex_gs_models.StepRequest.model_validate({"learning_rate": 0.1, "lr": 0.1})
    assert step.model_dump(exclude_unset=True) == {"learning_rate": 0.1, "lr": 0.1}
    save = cortex_gs_models.SaveRequest.model_validate({"export_hf": False, "note": "x"})
    assert save.export_hf is False and save.model_dump(exclude_unset=True)["note"] == "x"
    config = cortex_gs_models.TrainingConfig.model_validate({**BASE_CONFIG, "zero_stage": 2})
    assert config.model_dump(exclude_unset=True)["zero_stage"] == 2
    with pytest.raises(ValidationError):
        cortex_gs_models.LogProbsRequest.model_validate({"prompts": ["a"], "temperature": 1.0})
