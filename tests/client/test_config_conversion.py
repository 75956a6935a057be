"""What the frameworks' own configs become on Cortex: every field the published config has
is one here, and each setting the conversion has no place for is named in one WARNING
(never dropped without a word). The published classes are the installed arctic-platform
0.1.4 wheel's, used unchanged; jobs are created on the live mock."""

from __future__ import annotations

import importlib.util
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from arctic_platform.client.config import (
    ArcticClientConfig,
    OnPremConfig,
    SamplingConfig,
    TrainingConfig,
)
from arctic_platform.client.config import CortexConfig as RemoteConfig

from arctic_rl import ArcticRLClientConfig, CortexConfig, create_arctic_rl_client
from arctic_rl._shim import route_on_prem_to_cortex

from .conftest import Endpoint

NO_PLACE = "arctic_rl: Cortex has no place for "
# The DeepSpeed settings SkyRL's build_rl_config sends (integrations.md), beside the
# training_config Cortex takes.
SKYRL_DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 1,
    "train_batch_size": 16,
    "gradient_accumulation_steps": 16,
    "gradient_clipping": 1.0,
    "optimizer": {
        "type": "AdamW",
        "params": {"lr": 1e-6, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.01},
    },
    "zero_optimization": {"stage": 3},
}
SKYRL_WORKER = {"use_liger": True, "attn_implementation": "flash_attention_2"}


@pytest.fixture
def published_flat_config() -> Iterator[type]:
    """The 0.1.4 wheel's flat `arctic_platform.rl.config` class. Its package's `__init__`
    needs the rl extras, so the file is loaded on its own (it needs only pydantic)."""
    found = importlib.util.find_spec("arctic_platform")
    assert found is not None and found.submodule_search_locations
    path = Path(found.submodule_search_locations[0]) / "rl" / "config.py"
    spec = importlib.util.spec_from_file_location("published_rl_config", path)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the annotations through it
    try:
        spec.loader.exec_module(module)
        yield module.ArcticRLClientConfig
    finally:
        del sys.modules[spec.name]


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_every_field_of_the_published_config_is_a_field_here(
    published_flat_config: type, endpoint: Endpoint, caplog: pytest.LogCaptureFixture
):
    assert set(published_flat_config.model_fields) - set(ArcticRLClientConfig.model_fields) == set()
    # Its dump carries every field (defaults included): served from Cortex, nothing is dropped.
    # (model_construct: its validator imports the on-prem Ray helpers, absent here.)
    theirs = published_flat_config.model_construct(
        model_name="tiny-byte-lm", comm_protocol="ray", training_gpus=1, sampling_gpus=1
    )
    route_on_prem_to_cortex(CortexConfig(**endpoint.cortex_block()))
    with caplog.at_level(logging.WARNING, logger="arctic_rl"):
        client = create_arctic_rl_client(theirs)
    client.shutdown()
    assert client.config.ray_auto_attach is True and client.config.comm_protocol == "ray"
    assert [w for w in _warnings(caplog) if w.startswith(NO_PLACE)] == []


def test_deepspeed_settings_cortex_has_no_place_for_are_named_in_one_warning(
    endpoint: Endpoint, caplog: pytest.LogCaptureFixture
):
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        cortex=endpoint.cortex_block(),
        training_gpus=1,
        sampling_gpus=1,
        ds_config=SKYRL_DS_CONFIG,
        ds_worker_config=SKYRL_WORKER,
        vllm_config={"tensor_parallel_size": 1, "max_model_len": 64},
        training_config={"optimizer": {"lr": 1e-6}, "max_length": 64, "model_config": None},
    )
    with caplog.at_level(logging.WARNING, logger="arctic_rl"):
        client = create_arctic_rl_client(config)
    client.shutdown()
    assert _warnings(caplog) == [
        NO_PLACE + "ds_config.gradient_accumulation_steps, ds_config.optimizer.params.eps, "
        "ds_config.train_micro_batch_size_per_gpu, ds_config.zero_optimization, "
        "ds_worker_config.attn_implementation, ds_worker_config.use_liger "
        "(from the client config): ignored"
    ]


def test_a_nested_on_prem_config_names_what_neither_conversion_can_map(
    endpoint: Endpoint, caplog: pytest.LogCaptureFixture
):
    """Built as 0.1.4's verl adapter builds it over HTTP (it asks for a local server too),
    with DeepSpeed's warm-up scheduler, which Cortex has no field for."""
    theirs = ArcticClientConfig(
        model_name="tiny-byte-lm",
        seed=3,
        max_seq_len=64,
        training_gpus=1,
        sampling_gpus=1,
        backend=OnPremConfig(
            protocol="http", host="localhost", port=7000, launch_local_server=True
        ),
        training=TrainingConfig(
            ds_config={"train_batch_size": 8, "scheduler": {"type": "WarmupLR"}}
        ),
        sampling=SamplingConfig(vllm={"tensor_parallel_size": 1}, log_prob_engine="deepspeed"),
    )
    route_on_prem_to_cortex(CortexConfig(**endpoint.cortex_block()))
    with caplog.at_level(logging.WARNING, logger="arctic_rl"):
        client = create_arctic_rl_client(theirs)
    client.shutdown()
    assert client.config.seed == 3 and client.config.log_prob_engine == "deepspeed"
    assert _warnings(caplog) == [
        NO_PLACE + "backend.launch_local_server "
        "(from arctic_platform.client.config.ArcticClientConfig): ignored",
        NO_PLACE + "ds_config.scheduler (from the client config): ignored",
    ]


def test_a_nested_cortex_configs_lora_and_dtype_are_named_not_dropped_silently(
    endpoint: Endpoint, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("ARCTIC_CORTEX_PAT", endpoint.token)  # the published default name
    theirs = ArcticClientConfig(
        model_name="tiny-byte-lm",
        dtype="bfloat16",
        training_gpus=1,
        backend=RemoteConfig(base_url=endpoint.base_url),
        training=TrainingConfig(peft={"r": 8}),
    )
    with caplog.at_level(logging.WARNING, logger="arctic_rl"):
        client = create_arctic_rl_client(theirs)
    client.shutdown()
    assert client.config.cortex.base_url == endpoint.base_url
    assert _warnings(caplog) == [
        NO_PLACE + "dtype, training.peft "
        "(from arctic_platform.client.config.ArcticClientConfig): ignored",
    ]
