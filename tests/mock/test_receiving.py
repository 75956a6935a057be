"""Large request bodies land in reused memory, never in memory something still holds."""

from __future__ import annotations

import torch
from arctic_rl_mock.settings import ON_LOOP_BYTES
from arctic_rl_mock.web import receiving

from devtools.live_mock import MockApi, request_chunks

MiB = 1024 * 1024


def test_a_body_buffer_is_reused_once_released_and_never_while_held() -> None:
    reader = receiving.BodyReader()
    first = reader.buffer(5 * MiB)
    first[:4] = b"kept"
    second = reader.buffer(5 * MiB)  # the first is still held: fresh memory
    second[:4] = b"next"
    assert second.obj is not first.obj and bytes(first[:4]) == b"kept"
    first_map = id(first.obj)
    del first
    third = reader.buffer(3 * MiB)  # a smaller body fits in the released one
    assert id(third.obj) == first_map and len(third) == 3 * MiB
    assert bytes(second[:4]) == b"next"


def test_chunks_kept_out_of_order_are_not_overwritten_by_later_bodies(api: MockApi) -> None:
    """An early chunk is kept as received (a view of its body's buffer) until the gap
    before it fills; the bodies that arrive meanwhile must land elsewhere, or the frame
    would fail its SHA-256."""
    job_id = api.create_job()
    bulk = torch.arange(3 * MiB, dtype=torch.float32)  # 12 MiB: six 2 MiB chunks and a rest
    value = {"kwargs": {"input_ids": torch.zeros(1, 8, dtype=torch.int64)}, "padding": bulk}
    chunks = request_chunks(value, payload_bytes=2 * MiB, group="early-chunks")
    assert len(chunks) > 5 and len(chunks[1]) >= ON_LOOP_BYTES
    final = len(chunks) - 1
    order = [0, *range(2, final), 1, final]  # 2.. wait in memory until 1 arrives
    answers = api.post_chunks(job_id, "forward-backward", [chunks[i] for i in order])
    assert [a.status_code for a in answers] == [200] * final + [202], answers[-1].text
    status = api.wait(job_id, answers[-1].json()["request_id"])
    assert status["status"] == "done", status
