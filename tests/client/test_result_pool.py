"""Each client assembles its result frames in memory of its own, reused from call to call.

A result's tensors view the buffer its chunks were assembled in; once they are gone, the
client's next result lands in that same mapping (no fresh pages to fault in). Two clients
and the mock, all in this process over real HTTP, never take each other's: a result the
other client still holds cannot make this one map anew, nor can the mock's uploads.
"""

from __future__ import annotations

import mmap
import weakref
from typing import Any

import numpy as np
import pytest
import torch

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient
from arctic_rl._cortex import CortexService
from arctic_rl.shared import forward_request
from arctic_rl.wire import _buffers
from devtools.batches import train_tensors
from devtools.live_mock import LiveMock

from .conftest import PAT_ENV

# Small result chunks: the results travel as result_chunk events, assembled by the client.
RESULT_BYTES = 128
PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}


@pytest.fixture
def chunking_mock(live_mock_factory: Any, monkeypatch: pytest.MonkeyPatch) -> LiveMock:
    mock: LiveMock = live_mock_factory(
        "canned",
        service="proposed",
        inline_result_bytes=RESULT_BYTES,
        result_chunk_bytes=RESULT_BYTES,
    )
    monkeypatch.setenv(PAT_ENV, mock.token)
    return mock


class Mappings:
    """Every large-buffer mapping made in this process (the clients' and the mock's)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made: list[weakref.ref[mmap.mmap]] = []
        real = _buffers.new_map

        def recorded(size: int) -> mmap.mmap:
            mapping = real(size)
            self.made.append(weakref.ref(mapping))
            return mapping

        monkeypatch.setattr(_buffers, "new_map", recorded)

    def viewed_by(self, tensor: torch.Tensor) -> weakref.ref[mmap.mmap]:
        """The mapping whose memory ``tensor`` views."""
        for ref in self.made:
            mapping = ref()
            if mapping is None or mapping.closed:
                continue
            start = np.frombuffer(mapping, np.uint8).ctypes.data
            if start <= tensor.data_ptr() < start + len(mapping):
                return ref
        raise AssertionError("the result views no mapping the codec made")


async def _connected(mock: LiveMock) -> tuple[AsyncArcticRLClient, CortexService]:
    service = CortexService(mock.base_url, mock.token)
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="tiny-byte-lm",
        training_gpus=1,
        sampling_gpus=1,
        cortex={"base_url": mock.base_url, "pat_env": PAT_ENV},
    )
    return await AsyncArcticRLClient.connect(config, service=service), service


async def _logprobs(client: AsyncArcticRLClient, service: CortexService) -> torch.Tensor:
    """A forward pass's per-token log-probs, as the service's result frame decodes them."""
    assert client.job_id is not None
    value = forward_request(train_tensors(), None, PROCESSING)
    accepted = await service.upload(client.job_id, "forward_no_grad", value)
    result = await service.wait_request(client.job_id, accepted.request_id)
    logprobs: torch.Tensor = result["model_outputs"]["logprobs"]
    return logprobs


async def test_a_client_assembles_each_result_where_its_last_released_one_was(
    chunking_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_buffers, "FAST_MIN", 1)  # small frames take the mapped path too
    mappings = Mappings(monkeypatch)
    (mine, my_service), (other, other_service) = [await _connected(chunking_mock) for _ in range(2)]
    try:
        first = await _logprobs(mine, my_service)
        expected = first.clone()
        released = mappings.viewed_by(first)
        del first  # this client lets go of its result
        # Meanwhile the other client's result (kept) and the mock's uploads need memory.
        kept = await _logprobs(other, other_service)
        assert mappings.viewed_by(kept) is not released
        again = await _logprobs(mine, my_service)
        assert mappings.viewed_by(again) is released  # the same mapping, taken again
        assert torch.equal(again, expected) and torch.equal(kept, expected)
    finally:
        for client in (mine, other):
            await client.shutdown(cancel=True)
