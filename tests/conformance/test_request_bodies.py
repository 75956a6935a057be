"""Every body the published client builds validates against today's view of the contract.

The bodies come from the published client's own builders (``arctic_platform.client.requests``)
lowered by its own Cortex transport (``_op_target`` drops unset keys; ``_octet_chunks`` frames
DSSST1 bodies; ``_sub_job_configs`` builds create-job), never from hand-written dicts. JSON
bodies are judged by the schema of the route they are posted to. A DSSST1 body is judged
three ways: each chunk's value by the route's ``x-dssst1-envelope``, each chunk's descriptor
by ``RequestChunkDescriptor``, and the reassembled frame's value and ``op`` metadata by
``x-dssst1-schema`` and ``x-dssst1-metadata``; tensors are judged as ``TensorRef``s.

The published client cannot send ``forward`` (fwd_no_grad), ``log-probs`` or
``load-checkpoint`` to Cortex (its transport raises NotImplementedError) and sends nothing for
sleep/wake, so those builders have no Cortex body to judge.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import pytest
import torch
import yaml
from arctic_platform import wire
from arctic_platform.client import JobHandles, Request, SamplingConfig, TrainingConfig
from arctic_platform.client import requests as builders
from arctic_platform.client.transports.cortex import CortexTransport
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from .batches import ADAPTER_PROCESSING, adapter_batch, minimal_batch
from .conftest import client_config

ROOT = Path(__file__).resolve().parents[2]
# Today's view of the contract (`make generate` writes it): the service as it is, proposals
# stripped.
TODAY_VIEW = ROOT / "generated" / "openapi" / "cortex_gs.today.yaml"
SPEC: dict[str, Any] = yaml.safe_load(TODAY_VIEW.read_text(encoding="utf-8"))
REGISTRY = Registry().with_resource("urn:today", Resource(SPEC, specification=DRAFT202012))

JOB = "job-0a1b2c3d"
JOBS = JobHandles(training=f"{JOB}:training:0", sampling=f"{JOB}:sampling:0")
SAFETENSORS_DTYPES = {
    torch.bool: "BOOL",
    torch.uint8: "U8",
    torch.int8: "I8",
    torch.int16: "I16",
    torch.int32: "I32",
    torch.int64: "I64",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.float32: "F32",
    torch.float64: "F64",
}


# -- the contract -------------------------------------------------------------------------


def _pointer(*parts: str) -> str:
    return "#/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


def _follow(node: dict[str, Any], pointer: str) -> tuple[dict[str, Any], str]:
    """``node`` (at ``pointer``) with a local ``$ref`` followed, and where it led."""
    while "$ref" in node:
        pointer = node["$ref"]
        node = SPEC
        for part in pointer.removeprefix("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node, pointer


def _media(url: str, method: str, media_type: str) -> tuple[dict[str, Any], str]:
    """The request media-type object of the operation ``url`` reaches, and its pointer."""
    path = urlsplit(url).path.split("/cortex-training", 1)[1] or "/"
    for template, item in SPEC["paths"].items():
        pattern = "[^/:]+".join(map(re.escape, re.split(r"\{[^}]+\}", template)))
        if re.fullmatch(pattern, path) and method in item:
            body, pointer = _follow(
                item[method]["requestBody"], _pointer("paths", template, method, "requestBody")
            )
            return body["content"][media_type], f"{pointer}/content/{media_type.replace('/', '~1')}"
    raise AssertionError(f"today's view has no {method.upper()} route for {path}")


def _assert_valid(pointer: str, instance: Any) -> None:
    validator = jsonschema.Draft202012Validator({"$ref": f"urn:today{pointer}"}, registry=REGISTRY)
    problems = [
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
        for e in validator.iter_errors(instance)
    ]
    assert not problems, f"invalid against {pointer}:\n" + "\n".join(problems)


# -- what the published client sends --------------------------------------------------------


def _transport() -> CortexTransport:
    transport = CortexTransport(client_config(port=1))
    transport.job_id = JOB
    return transport


def _as_document(value: Any) -> Any:
    """A decoded DSSST1 value as the contract describes it: tensors as TensorRefs."""
    if isinstance(value, torch.Tensor):
        return {"dtype": SAFETENSORS_DTYPES[value.dtype], "shape": list(value.shape)}
    if isinstance(value, dict):
        return {key: _as_document(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_as_document(item) for item in value]
    return value


def _assert_json_body_valid(request: Request) -> None:
    url, body = _transport()._op_target(request)
    _, pointer = _media(url, "post", "application/json")
    _assert_valid(pointer + "/schema", body)


def _assert_octet_body_valid(request: Request) -> None:
    transport = _transport()
    url, body = transport._op_target(request)
    chunks = transport._octet_chunks(body, request.op)
    media, _ = _media(url, "post", "application/octet-stream")
    descriptors = [wire.read_metadata(chunk).get("request_chunk") for chunk in chunks]
    if descriptors[0] is None:  # a bare frame (generate that fits)
        assert len(chunks) == 1
        frame = chunks[0]
    else:
        for chunk, descriptor in zip(chunks, descriptors, strict=True):
            _assert_valid("#/components/schemas/RequestChunkDescriptor", descriptor)
            _assert_valid(media["x-dssst1-envelope"], _as_document(wire.loads(chunk)))
        frame = wire.decode_byte_chunks(chunks, kind="request")
    _assert_valid(media["x-dssst1-schema"], _as_document(wire.loads(frame)))
    if "x-dssst1-metadata" in media:
        _assert_valid(media["x-dssst1-metadata"], wire.read_metadata(frame))


# -- the bodies -----------------------------------------------------------------------------


JSON_BODIES: dict[str, Callable[[], Request]] = {
    "step": lambda: builders.step_request(JOBS),
    "step with a learning rate": lambda: builders.step_request(JOBS, 2e-5),
    "save with defaults": lambda: builders.save_checkpoint_request(JOBS),
    "save with everything": lambda: builders.save_checkpoint_request(
        JOBS,
        "my-tag",
        "weights-only",
        path="/ckpt/run-1",
        step=12,
        export_hf=True,
        save_total_limit=3,
        stage_info={"stage": "@DB.SCHEMA.STAGE", "prefix": "run-1/"},
    ),
    "weight-sync": lambda: builders.sync_weights_request(JOBS),
    "weight-sync with cuda_ipc and low_memory": lambda: builders.sync_weights_request(
        JOBS, cuda_ipc=True, low_memory=True
    ),
    "weight-sync of a LoRA adapter": lambda: builders.sync_weights_request(
        JOBS, cuda_ipc=False, low_memory=False, weight_format="lora"
    ),
    "reset-prefix-cache": lambda: builders.reset_prefix_cache_request(JOBS),
    "reset-prefix-cache without drain": lambda: builders.reset_prefix_cache_request(
        JOBS, drain=False, timeout_s=5.0, retry_interval_s=0.5
    ),
}

OCTET_BODIES: dict[str, Callable[[], Request]] = {
    "forward-backward, minimal frame": lambda: builders.fwd_bwd_request(JOBS, minimal_batch()),
    "forward-backward, the verl adapter's frame": lambda: builders.fwd_bwd_request(
        JOBS, adapter_batch(), processing=ADAPTER_PROCESSING
    ),
    "generate, string prompts": lambda: builders.generate_request(
        JOBS, ["Hello", "World"], {"max_tokens": 64, "temperature": 0.7}
    ),
    "generate, token prompts, no sampling params": lambda: builders.generate_request(
        JOBS, [[1, 2, 3], [4, 5]]
    ),
    "generate, per-prompt sampling params with nulls": lambda: builders.generate_request(
        JOBS, ["a", [1, 2], "c"], [{"max_tokens": 4}, None, {"temperature": 0.0}]
    ),
    "generate, a routing-key list, strict": lambda: builders.generate_request(
        JOBS, ["a", "b"], {"max_tokens": 4}, ["conversation-1", None], True
    ),
    "generate, one routing key": lambda: builders.generate_request(
        JOBS, ["a"], None, "conversation-1"
    ),
}


@pytest.mark.parametrize("build", JSON_BODIES.values(), ids=JSON_BODIES.keys())
def test_json_bodies_validate(build: Callable[[], Request]):
    _assert_json_body_valid(build())


@pytest.mark.parametrize("build", OCTET_BODIES.values(), ids=OCTET_BODIES.keys())
def test_dssst1_bodies_validate(build: Callable[[], Request]):
    _assert_octet_body_valid(build())


def test_forward_backward_in_several_chunks_validates(monkeypatch: pytest.MonkeyPatch):
    import arctic_platform.client.transports.cortex as published_cortex

    monkeypatch.setattr(published_cortex, "_MAX_OCTET_BYTES", 16 * 1024)
    request = builders.fwd_bwd_request(JOBS, minimal_batch(rows=8, cols=256))
    assert len(_transport()._octet_chunks(request.body, request.op)) > 1
    _assert_octet_body_valid(request)


@pytest.mark.parametrize(
    "fields",
    [
        {"training": TrainingConfig()},
        {
            "training": TrainingConfig(
                ds_config={
                    "optimizer": {"type": "AdamW", "params": {"lr": 1e-5, "betas": [0.9, 0.95]}},
                    "train_batch_size": 16,
                    "gradient_clipping": 1.0,
                    "zero_optimization": {"stage": 3, "offload_param": {"device": "none"}},
                },
                ds_worker_config={"enable_gradient_checkpointing": True, "ep_size": 2},
                peft={"peft_type": "LORA", "r": 8, "lora_alpha": 16},
            ),
            "sampling": SamplingConfig(vllm={"gpu_memory_utilization": 0.6}),
            "log_prob_gpus": 1,
            "seed": 3,
            "dtype": "bfloat16",
        },
    ],
    ids=["default training settings", "full settings, three sub-jobs"],
)
def test_create_job_bodies_validate(fields: dict[str, Any]):
    transport = CortexTransport(client_config(port=1, **fields))
    body = {"sub_job_configs": transport._sub_job_configs()}  # what initialize() posts
    _, pointer = _media(transport._prefix, "post", "application/json")
    _assert_valid(pointer + "/schema", body)
