"""Cross-field rules the contract states in JSON Schema agree with what the mock enforces.

The generators ignore the contract's `allOf` if/then rules (SubJobConfig's configs per
job type, OperationRequest's payload per operation type), so the mock checks them by
hand. Here every body is judged twice, by the contract's schema and by a live mock, and
the verdicts must match: schema-valid is never a 422, schema-invalid always is.
"""

from __future__ import annotations

import base64
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import torch
import yaml
from cortex_gs_contract import CHUNK_OPERATIONS
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from arctic_rl import wire
from devtools.live_mock import LiveMock, MockApi, request_chunks, serving_in_process

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi" / "cortex_gs.yaml"
SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
REGISTRY = Registry().with_resource("urn:spec", Resource(SPEC, specification=DRAFT202012))


def schema_valid(name: str, body: Any) -> bool:
    """Whether `body` is valid against the contract's component schema `name`."""
    validator = jsonschema.Draft202012Validator(
        {"$ref": f"urn:spec#/components/schemas/{name}"}, registry=REGISTRY
    )
    return validator.is_valid(body)


TRAINING = {"optimizer": {"lr": 1e-3}, "max_seq_len": 8, "train_batch_size": 1, "n_gpus": 1}
INFERENCE = {"max_seq_len": 8, "n_gpus": 1}
SUB_JOBS = {
    "training ok": {"job_type": "training", "model_name": "m", "training_config": TRAINING},
    "sampling ok": {"job_type": "sampling", "model_name": "m", "inference_config": INFERENCE},
    "log_probability ok": {
        "job_type": "log_probability",
        "model_name": "m",
        "inference_config": INFERENCE,
    },
    "training bare": {"job_type": "training", "model_name": "m"},
    "sampling bare": {"job_type": "sampling", "model_name": "m"},
    "training, wrong config": {
        "job_type": "training",
        "model_name": "m",
        "inference_config": INFERENCE,
    },
    "sampling, wrong config": {
        "job_type": "sampling",
        "model_name": "m",
        "training_config": TRAINING,
    },
    "training, both": {
        "job_type": "training",
        "model_name": "m",
        "training_config": TRAINING,
        "inference_config": INFERENCE,
    },
}
FRAME_B64 = base64.b64encode(
    wire.dumps({"args": [], "kwargs": {"input_ids": torch.tensor([[1, 2, 3]])}})
).decode()
OPERATIONS = {
    "reset": {"operation_type": "reset-prefix-cache"},
    "reset with drain": {"operation_type": "reset-prefix-cache", "payload": {"drain": False}},
    "sleep (not on the wire)": {"operation_type": "sleep", "payload": {"anything": 1}},
    "tail-logs": {"operation_type": "tail-logs", "payload": {"cursor": "", "max_lines": 3}},
    "tail-logs extra key": {"operation_type": "tail-logs", "payload": {"lines": 3}},
    "weight-sync bare": {"operation_type": "weight-sync"},
    "weight-sync ok": {"operation_type": "weight-sync", "payload": {"weight_format": "vllm"}},
    "weight-sync extra key": {"operation_type": "weight-sync", "payload": {"x": 1}},
    "weight-sync cuda_ipc": {"operation_type": "weight-sync", "payload": {"cuda_ipc": True}},
    "weight-sync bad format": {"operation_type": "weight-sync", "payload": {"weight_format": "x"}},
    "forward ok": {"operation_type": "forward", "payload": {"payload_b64": FRAME_B64}},
    "forward bare": {"operation_type": "forward"},
    "forward empty": {"operation_type": "forward", "payload": {}},
    "bootstrap ok": {
        "operation_type": "bootstrap-router-replay",
        "payload": {"source_sub_job_id": "j:sampling:0", "target_sub_job_id": "j:training:0"},
    },
    "bootstrap no target": {
        "operation_type": "bootstrap-router-replay",
        "payload": {"source_sub_job_id": "j:sampling:0"},
    },
    "discard ok": {"operation_type": "router-replay-discard", "payload": {"sample_ids": ["s"]}},
    "discard bad ids": {"operation_type": "router-replay-discard", "payload": {"sample_ids": 3}},
    "cancel ok": {"operation_type": "cancel-request", "payload": {"request_id": "req-1"}},
    "cancel bare": {"operation_type": "cancel-request"},
    "cancel bad id": {"operation_type": "cancel-request", "payload": {"request_id": "a b"}},
    "unknown type": {"operation_type": "explode"},
}


# What the mock answers each schema-valid envelope: inline types 200, scheduled ones 202;
# 400: bootstrap names sub-jobs of another job; 404: cancel-request names a request this
# job never had (the contract allows both).
ANSWERS = {
    "reset": 200,
    "reset with drain": 200,
    "tail-logs": 200,
    "tail-logs extra key": 200,
    "weight-sync bare": 202,
    "weight-sync ok": 202,
    "weight-sync extra key": 202,
    "weight-sync cuda_ipc": 202,
    "forward ok": 202,
    "bootstrap ok": 400,
    "discard ok": 200,
    "cancel ok": 404,
}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MockApi]:
    with serving_in_process(tmp_path_factory.mktemp("mock-state")) as mock:
        client = MockApi(mock)
        yield client
        client.close()


@pytest.fixture(scope="module")
def job_id(api: MockApi) -> str:
    return api.create_job()


@pytest.mark.parametrize("label", sorted(SUB_JOBS))
def test_sub_job_rule_matches_the_mock(api: MockApi, label: str) -> None:
    body = {"sub_job_configs": [SUB_JOBS[label]]}
    valid = schema_valid("CreateJobRequest", body)
    assert valid == label.endswith(" ok"), label
    response = api.http.post("/", json=body)
    assert (response.status_code == 200) == valid, response.text
    if not valid:
        assert response.status_code == 422, response.text
        assert response.json()["detail"], response.text


@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_operation_rule_matches_the_mock(api: MockApi, job_id: str, label: str) -> None:
    body = OPERATIONS[label]
    valid = schema_valid("OperationRequest", body)
    response = api.http.post(f"/{job_id}/operation", json=body)
    assert valid == (label in ANSWERS), label
    if valid:
        assert response.status_code == ANSWERS[label], (label, response.text)
    else:
        assert response.status_code == 422, (label, response.text)
        assert response.json()["detail"], (label, response.text)


def test_payload_rules_are_where_the_description_says() -> None:
    """Guard the rule set itself: a weakened rule would let the agreement test pass vacuously."""
    assert not schema_valid("OperationRequest", OPERATIONS["forward bare"])
    assert not schema_valid("OperationRequest", OPERATIONS["cancel bare"])
    assert not schema_valid("OperationRequest", OPERATIONS["bootstrap no target"])
    assert not schema_valid("OperationRequest", OPERATIONS["sleep (not on the wire)"])
    assert schema_valid("OperationRequest", OPERATIONS["weight-sync extra key"])  # open today


def test_client_hanging_up_mid_body_is_one_info_line(
    api: MockApi, job_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    """No traceback, no 'unhandled error' for a client that vanished while uploading."""
    mock: LiveMock = api.mock
    head = (
        f"POST {mock.settings.prefix}/{job_id}/forward-backward HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "".join(f"{k}: {v}\r\n" for k, v in mock.headers().items())
        + "Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n"
    )
    with caplog.at_level(logging.INFO, logger="arctic_rl_mock"):
        with socket.create_connection(("127.0.0.1", mock.port), timeout=10) as sock:
            sock.sendall(head.encode() + b"\0" * 1000)
            time.sleep(0.05)  # let the server start reading before the hang-up
        deadline = time.monotonic() + 10
        while not any("went away" in r.getMessage() for r in caplog.records):
            assert time.monotonic() < deadline, [r.getMessage() for r in caplog.records]
            time.sleep(0.01)
    assert api.http.get(f"/{job_id}").status_code == 200  # still serving
    mine = [r for r in caplog.records if r.name == "arctic_rl_mock"]
    assert [r.levelno for r in mine] == [logging.INFO], [r.getMessage() for r in mine]
    assert not any(r.exc_info for r in mine)


# Route -> its operation id; each chunked route takes the descriptor operation the contract
# names for it (x-chunk-operation) and nothing else, not even another route's name.
CHUNKED_ROUTES = {
    "forward-backward": "forward_backward",
    "forward-no-grad": "forward_no_grad",
    "generate": "generate",
}
REFUSED_NAMES = ("forward-backward", "forward_backward", "fwd-no-grad", "generate", "fwd-bwd")


@pytest.mark.parametrize("route", sorted(CHUNKED_ROUTES))
def test_chunks_carry_their_routes_descriptor_operation(proposed_api: MockApi, route: str) -> None:
    """On the proposed service, which has the forward-no-grad route too."""
    api = proposed_api
    job_id = api.create_job()
    operation = CHUNK_OPERATIONS[CHUNKED_ROUTES[route]]
    value = {"prompts": ["hi"]} if route == "generate" else {"kwargs": {}}
    for name in (n for n in REFUSED_NAMES if n != operation):
        chunk = _chunks(value, f"group-{route}-{name.replace('_', '-')}", name)[0]
        refused = api.http.post(f"/{job_id}/{route}", content=chunk)
        assert refused.status_code == 409, (name, refused.text)
        assert refused.json()["code"] == "chunk_group_conflict", refused.text
    first_of_two = _chunks(value, f"group-{route}-ok", operation)[0]
    stored = api.http.post(f"/{job_id}/{route}", content=first_of_two)
    assert stored.status_code == 200, stored.text
    assert stored.json()["received_chunks"] == 1


def _chunks(value: Any, group: str, operation: str) -> list[bytes]:
    payload_bytes = len(wire.dumps(value)) // 2 + 1  # two chunks
    return request_chunks(value, payload_bytes=payload_bytes, group=group, operation=operation)
