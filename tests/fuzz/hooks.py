"""Schemathesis extensions for the Cortex GS contract: DSSST1 bodies, their check, and
where stateful scenarios start.

Loaded by the pytest fuzz tests (as ``fuzz.hooks``) and by the CLI run of ``make fuzz``
(``hooks = "tests.fuzz.hooks"`` in schemathesis.toml). The DSSST1 strategy and the
``dssst1_body_handling`` check live in ``arctic_rl_kit.dssst1`` (the server team's kit
runs them too); importing it registers both, once.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import schemathesis
from hypothesis import strategies as st

from arctic_rl_kit.dssst1 import (
    BAD_REQUEST_CODES,
    BINARY_MEDIA_TYPE,
    Body,
    body_not_reached,
    broken_body,
    dssst1_bodies,
    dssst1_body_handling,
    expectation,
    generate_request,
    train_batch,
    valid_chunk,
    valid_frame,
)

__all__ = [
    "BAD_REQUEST_CODES",
    "BINARY_MEDIA_TYPE",
    "JSON_OCTET_OPERATIONS",
    "Body",
    "after_load_schema",
    "body_not_reached",
    "broken_body",
    "dssst1_bodies",
    "dssst1_body_handling",
    "expectation",
    "flatmap_body",
    "generate_request",
    "train_batch",
    "valid_chunk",
    "valid_frame",
]


# ----------------------------------------------------------------------- stateful roots
@schemathesis.hook
def after_load_schema(context: Any, schema: Any) -> None:
    """Start stateful scenarios at create_job, and only there.

    Schemathesis starts a scenario at any POST whose inputs it believes it can satisfy.
    Its dependency analysis (a) reads create_job's optional ``source_checkpoint_info``
    as a reference to something nobody produces, so create_job was never an entry point,
    and (b) offers every data-plane POST as an entry point with a made-up job id, which
    can only 404. Here (a) such optional body references are dropped, and (b) a path
    ``job_id`` is marked as a resource only create_job's links provide -- so scenarios
    create a job and carry its id through the contract's links into every call.
    """
    graph = getattr(getattr(schema, "analysis", None), "dependency_graph", None)
    if graph is None:
        return
    produced = {out.resource.name for node in graph.operations.values() for out in node.outputs}
    for node in graph.operations.values():
        inputs = []
        for slot in node.inputs:
            where = slot.parameter_location.value
            if where == "body" and slot.resource_field and slot.resource.name not in produced:
                continue
            if where == "path" and slot.parameter_name == "job_id":
                linked_only = dataclasses.replace(slot.resource, name="JobFromCreateJobLinks")
                slot = dataclasses.replace(slot, resource=linked_only)
            inputs.append(slot)
        node.inputs = inputs


# ----------------------------------------------------------------------- JSON as octets
# Operations whose application/octet-stream body is UTF-8 JSON (the media type names its
# schema under ``x-json-schema``), not a DSSST1 frame.
JSON_OCTET_OPERATIONS = frozenset({"generate_stream"})


@schemathesis.hook
def flatmap_body(context: Any, body: Any) -> st.SearchStrategy[Any]:
    """generate-stream takes a GenerateRequest as UTF-8 JSON: draw those, not frames."""
    operation = context.operation
    if operation is None or operation.definition.raw.get("operationId") not in (
        JSON_OCTET_OPERATIONS
    ):
        return st.just(body)
    return generate_request().map(lambda value: json.dumps(value).encode("utf-8"))
