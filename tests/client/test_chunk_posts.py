"""Chunk uploads go through the generated binary operations, against the live mock.

What the generated operations send (custom templates in openapi/templates/): each chunk
with a Content-Length and no chunked encoding, in UPLOAD_SLICE pieces rather than one
bytes copy. What they read: a non-final chunk's 200 may be empty or ``{}`` (today's
service promises no body), and only the final chunk's answer names the request: its 202
to poll, or (proposed ``wait_s``) its finished 200 RequestStatus.
"""

from __future__ import annotations

import httpx
import pytest
from cortex_gs_contract import CHUNK_OPERATIONS
from hardening.support import executed

from arctic_rl import ArcticRLClientConfig, AsyncArcticRLClient, ChunkGroupError, _upload
from arctic_rl._cortex import CortexService
from arctic_rl._options import ServiceOptions
from devtools.batches import CHUNK_BYTES, big_batch

from .conftest import Endpoint

PROCESSING = {"post": ["logprobs"], "loss_fn": "grpo", "config": {}}
SLICE = 8 * 1024
TINY_JOB = dict(backend="cortex", model_name="tiny-byte-lm", training_gpus=1, sampling_gpus=1)


class ChunkWatch(httpx.AsyncBaseTransport):
    """Real HTTP under the seam, keeping each chunk POST's headers and slice sizes; it may
    blank the answers to non-final chunks (200s), or refuse every chunk with a 409."""

    def __init__(self, blank: bytes | None = None, refuse: bool = False) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.blank = blank
        self.refuse = refuse
        self.chunks: list[tuple[httpx.Headers, list[int]]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/forward-backward"):
            return await self.inner.handle_async_request(request)
        sizes = [len(part) async for part in request.stream]  # type: ignore[union-attr]
        self.chunks.append((request.headers, sizes))
        if self.refuse:
            return httpx.Response(409, json={"code": "chunk_group_conflict", "message": "no"})
        response = await self.inner.handle_async_request(request)
        if self.blank is None or response.status_code != 200:
            return response
        body = await response.aread()
        await response.aclose()
        if b'"request_id"' in body:  # the final chunk's finished request (proposed wait_s)
            return httpx.Response(200, content=body, headers=response.headers)
        return httpx.Response(200, content=self.blank, headers={"content-type": "application/json"})


async def _fwd_bwd(endpoint: Endpoint, watch: ChunkWatch) -> tuple[dict, str]:
    options = ServiceOptions(chunk_bytes=CHUNK_BYTES)
    service = CortexService(endpoint.base_url, endpoint.token, options, httpx_transport=watch)
    config = ArcticRLClientConfig(**TINY_JOB, cortex=endpoint.cortex_block())
    client = await AsyncArcticRLClient.connect(config, service=service)
    try:
        return await client.fwd_bwd(big_batch(), processing=PROCESSING), str(client.job_id)
    finally:
        await client.shutdown(cancel=True)


def test_every_chunked_operation_has_its_generated_operation() -> None:
    assert set(_upload.CHUNK_POSTS) == set(CHUNK_OPERATIONS)


@pytest.mark.parametrize("blank", [None, b"", b"{}"], ids=["model", "empty", "empty-object"])
async def test_chunks_stream_sized_and_any_non_final_answer_is_accepted(
    endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch, blank: bytes | None
) -> None:
    monkeypatch.setattr(_upload, "UPLOAD_SLICE", SLICE)
    watch = ChunkWatch(blank)
    result, job_id = await _fwd_bwd(endpoint, watch)
    assert result["avg_loss"] is not None
    assert executed(endpoint.live.state_dir, job_id, "forward_backward") == 1
    assert len(watch.chunks) == 3
    for headers, sizes in watch.chunks:
        assert "transfer-encoding" not in headers
        assert int(headers["content-length"]) == sum(sizes)
        assert headers["content-type"] == "application/octet-stream"
        assert max(sizes) == SLICE and len(sizes) > 1  # sliced, never one whole copy


async def test_a_refused_chunk_is_a_typed_error(endpoint: Endpoint) -> None:
    watch = ChunkWatch(refuse=True)
    with pytest.raises(ChunkGroupError) as info:
        await _fwd_bwd(endpoint, watch)
    assert info.value.status == 409 and info.value.code == "chunk_group_conflict"
    assert len(watch.chunks) == 1
