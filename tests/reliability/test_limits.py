"""Issue #11, bounded resources: the contract's proposed limits, enforced by the mock.

Each limit is written in openapi/cortex_gs.yaml ("Proposed: limits") and refused with its
documented 4xx before the work is done: unfinished chunk groups per job and their
lifetime (expired groups are reclaimed: rows, files and in-memory assembler), chunks per
group, a short missing-chunks answer, prompts and ``n`` per generation, sequence width
against the job's ``max_seq_len``, and cursors. Chunk cost does not grow with the group
(no store read per chunk), and an abandoned group costs what it sent, not what it
declared: measured on a real ``arctic_rl_mock`` in a subprocess.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml
from arctic_rl_mock.settings import Settings
from arctic_rl_mock.web.server import ServerSettings
from cortex_gs_contract import CHUNK_OPERATIONS

from arctic_rl import wire
from arctic_rl.wire._assembler import _HELPER_THREADS
from arctic_rl_kit.dssst1 import lying_chunk
from devtools.live_mock import LiveMock, MockApi, request_chunks

from .limits_support import CONTRACT, MAX_SEQ_LEN, Process, mock_in_own_process, post_frame, refused

FWD_BWD = CHUNK_OPERATIONS["forward_backward"]
MiB = 1024 * 1024
# The contract's limits (the first test holds the contract and the mock's defaults to them).
OPEN_GROUPS = 64
CHUNKS_PER_GROUP = 65536
MISSING_LISTED = 64
PROMPTS = 1024
COMPLETIONS_PER_PROMPT = 64


@pytest.fixture
def api(live_mock: LiveMock) -> Iterator[MockApi]:
    client = MockApi(live_mock)
    yield client
    client.close()


def first_chunk(group: str, *, payload: int, declared: int) -> bytes:
    """Chunk 0 of a group whose frame claims ``declared`` bytes in ``payload``-byte chunks."""
    total = math.ceil(declared / payload)
    return lying_chunk(
        bytes(payload),
        chunk_group_id=group,
        operation=FWD_BWD,
        total_chunks=total,
        frame_size_bytes=declared,
    )


def two_chunks(group: str) -> list[bytes]:
    """A real two-chunk forward-backward group."""
    value = {"kwargs": {"input_ids": torch.zeros(1, 4, dtype=torch.int64)}}
    size = len(wire.dumps(value))
    return request_chunks(value, payload_bytes=size // 2 + 1, group=group)


def batch(width: int) -> dict[str, Any]:
    ids = torch.randint(0, 256, (2, width), generator=torch.Generator().manual_seed(width))
    return {"args": [], "kwargs": {"input_ids": ids, "labels": ids.clone()}}


def eventually(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Wait until ``condition`` holds (fails after ``timeout_s``)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


# --------------------------------------------------------------------------- the contract
def test_settings_defaults_are_the_contracts_limits() -> None:
    contract = yaml.safe_load(CONTRACT.read_text())
    schemas = contract["components"]["schemas"]
    # The new log-probs body carries its bound; the others are in the limits table alone
    # (a bound on today's bodies would narrow what today's clients send).
    assert schemas["LogProbsRequest"]["properties"]["prompts"]["maxItems"] == PROMPTS
    prose = contract["info"]["description"]
    for row in (
        f"| unfinished chunk groups per job | {OPEN_GROUPS} |",
        f"| `total_chunks` of a request chunk group | {CHUNKS_PER_GROUP} |",
        f"the first {MISSING_LISTED}, in `details`",
        f"| `sampling_params.n` | {COMPLETIONS_PER_PROMPT} |",
        f"| prompts per `generate`, `generate-stream`, `log-probs` | {PROMPTS} |",
    ):
        assert row in prose, row
    settings = Settings(state_dir=Path("unused"))
    assert (
        settings.max_open_chunk_groups,
        settings.max_chunks_per_group,
        settings.missing_chunks_listed,
        settings.max_prompts,
        settings.max_completions_per_prompt,
    ) == (OPEN_GROUPS, CHUNKS_PER_GROUP, MISSING_LISTED, PROMPTS, COMPLETIONS_PER_PROMPT)
    for code in ("too_many_chunk_groups", "sequence_too_long"):
        assert code in schemas["ErrorCode"]["enum"]


# --------------------------------------------------------------------------- chunk groups
def test_unfinished_groups_per_job_are_capped(api: MockApi) -> None:
    job_id = api.create_job()
    route = f"/{job_id}/forward-backward"
    cap = OPEN_GROUPS
    groups = [two_chunks(f"open-{i}") for i in range(cap + 1)]
    for chunks in groups[:cap]:
        assert api.http.post(route, content=chunks[0]).status_code == 200
    body = refused(api.http.post(route, content=groups[cap][0]), 409, "too_many_chunk_groups")
    assert str(cap) in body["message"]
    # Finishing a group frees its place.
    assert api.http.post(route, content=groups[0][1]).status_code == 202
    assert api.http.post(route, content=groups[cap][0]).status_code == 200


def test_expired_groups_are_reclaimed(live_mock_factory: Callable[..., LiveMock]) -> None:
    ttl = 0.5
    mock = live_mock_factory(chunk_group_ttl_s=ttl)
    api = MockApi(mock)
    job_id = api.create_job()
    route = f"/{job_id}/forward-backward"
    late, swept = two_chunks("late"), two_chunks("swept")
    groups = mock.app.state.service.chunks
    for chunks in (late, swept):
        assert api.http.post(route, content=chunks[0]).status_code == 200
    chunk_dir = mock.state_dir / "chunks" / job_id
    # A chunk's file is written while the next one could upload: wait until both are.
    eventually(lambda: all((chunk_dir / g / "0.bin").exists() for g in ("late", "swept")))
    time.sleep(ttl * 1.5)  # both groups are now past their lifetime
    # Touching one expired group refuses it; opening another sweeps the rest.
    body = refused(api.http.post(route, content=late[1]), 409, "chunk_group_restart_required")
    assert body["chunk_group_id"] == "late"
    assert api.http.post(route, content=two_chunks("fresh")[0]).status_code == 200
    assert not (chunk_dir / "late").exists() and not (chunk_dir / "swept").exists()
    assert set(groups._open) == {(job_id, "fresh")}
    store = mock.app.state.service.store
    assert (
        store.groups.get_group(job_id, "swept") is None
        and store.groups.get_group(job_id, "late") is None
    )
    api.close()


def test_total_chunks_is_capped(api: MockApi) -> None:
    job_id = api.create_job()
    cap = CHUNKS_PER_GROUP
    route = f"/{job_id}/forward-backward"
    chunk = first_chunk("many", payload=1, declared=cap + 1)
    body = refused(api.http.post(route, content=chunk), 400, "too_large")
    assert str(cap) in body["message"]
    assert (
        api.http.post(route, content=first_chunk("enough", payload=1, declared=cap)).status_code
        == 200
    )


def test_missing_chunks_answer_is_a_count_and_a_short_prefix(api: MockApi) -> None:
    job_id = api.create_job()
    route = f"/{job_id}/forward-backward"
    value = {"kwargs": {"input_ids": torch.zeros(1, 2000, dtype=torch.uint8)}}
    chunks = request_chunks(value, payload_bytes=1, group="sparse")
    assert api.http.post(route, content=chunks[0]).status_code == 200
    answer = api.http.post(route, content=chunks[-1])
    body = refused(answer, 409, "chunk_group_missing_chunks")
    listed = MISSING_LISTED
    assert body["missing_chunk_count"] == len(chunks) - 2
    assert [d["loc"][-1] for d in body["details"]] == list(range(1, listed + 1))
    assert len(answer.content) < 16 * 1024


def test_a_chunk_costs_no_store_read_of_its_group(
    api: MockApi, live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cost per chunk is constant: the group is read from the store at most once."""
    job_id = api.create_job()
    groups = live_mock.app.state.service.store.groups
    reads: list[str] = []
    for name in ("get_group", "read_chunks"):
        original = getattr(groups, name)

        def counted(*args: Any, _name: str = name, _original: Any = original) -> Any:
            reads.append(_name)
            return _original(*args)

        monkeypatch.setattr(groups, name, counted)
    chunks = request_chunks(batch(64), payload_bytes=16, group="long")
    assert len(chunks) > 100
    answers = api.post_chunks(job_id, "forward-backward", chunks)
    assert [a.status_code for a in answers] == [200] * (len(chunks) - 1) + [202]
    assert reads == ["get_group"]  # the first chunk's "is this group known?"


def test_each_chunk_is_hashed_once_and_written_once(
    api: MockApi, live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mock's only hash over a chunk is the frame's SHA-256; each chunk is stored once."""
    job_id = api.create_job()
    # Bulk beside a small batch, so the result (hashed when it is encoded) stays small.
    bulk = torch.zeros(8 * MiB // 4, dtype=torch.float32)
    value = {"kwargs": {"input_ids": torch.zeros(1, 8, dtype=torch.int64)}, "padding": bulk}
    chunks = request_chunks(value, payload_bytes=256 * 1024, group="once")
    frame_bytes = len(wire.dumps(value))
    hashed, written = [0], [0]
    real_sha256 = hashlib.sha256

    def counting_sha256(data: bytes = b"") -> Any:
        hashed[0] += memoryview(data).nbytes
        digest = real_sha256(data)
        update = digest.update

        class Counted:
            def update(self, more: Any) -> None:
                hashed[0] += memoryview(more).nbytes
                update(more)

            def __getattr__(self, name: str) -> Any:
                return getattr(digest, name)

        return Counted()

    files = live_mock.app.state.service.store.files
    write_file = files.write_chunk_file

    def counting_write(job: str, group: str, idx: int, chunk: Any) -> None:
        written[0] += memoryview(chunk).nbytes
        write_file(job, group, idx, chunk)

    monkeypatch.setattr(hashlib, "sha256", counting_sha256)
    monkeypatch.setattr(files, "write_chunk_file", counting_write)
    answers = api.post_chunks(job_id, "forward-backward", chunks)
    assert answers[-1].status_code == 202, answers[-1].text
    assert frame_bytes <= hashed[0] < frame_bytes * 1.05
    assert written[0] == sum(len(chunk) for chunk in chunks)


# --------------------------------------------------------------------------- requests
def test_generate_prompts_and_n_are_capped(api: MockApi) -> None:
    job_id = api.create_job()
    n_cap, prompt_cap = COMPLETIONS_PER_PROMPT, PROMPTS
    too_many_n = {"prompts": ["hi"], "sampling_params": {"n": n_cap + 1}}
    per_prompt_n = {"prompts": ["a", "b"], "sampling_params": [None, {"n": n_cap + 1}]}
    too_many_prompts = {"prompts": ["hi"] * (prompt_cap + 1)}
    for value in (too_many_n, per_prompt_n, too_many_prompts):
        bare = api.http.post(f"/{job_id}/generate", content=wire.dumps(value))
        refused(bare, 422, "validation_error")
        stream = api.http.post(f"/{job_id}/generate-stream", content=json.dumps(value))
        refused(stream, 422, "validation_error")
    scored = api.http.post(f"/{job_id}/log-probs", json={"prompts": [[1]] * (prompt_cap + 1)})
    refused(scored, 422, "validation_error")
    at_the_caps = {"prompts": ["x"] * prompt_cap, "sampling_params": {"n": 1, "max_tokens": 1}}
    assert api.http.post(f"/{job_id}/generate", content=wire.dumps(at_the_caps)).status_code == 202
    most_n = {"prompts": ["x"], "sampling_params": {"n": n_cap, "max_tokens": 1}}
    assert (
        api.http.post(f"/{job_id}/generate-stream", content=json.dumps(most_n)).status_code == 202
    )


@pytest.mark.parametrize("route", ["forward-backward", "forward-no-grad"])
def test_sequences_wider_than_max_seq_len_are_refused(api: MockApi, route: str) -> None:
    job_id = api.create_job()
    body = refused(post_frame(api, job_id, route, batch(MAX_SEQ_LEN + 1)), 422, "sequence_too_long")
    assert str(MAX_SEQ_LEN) in body["message"]
    # The refused final chunk dropped its group: nothing of it is left to resume.
    assert not any((api.mock.state_dir / "chunks" / job_id).glob("*/*.bin"))
    assert post_frame(api, job_id, route, batch(MAX_SEQ_LEN)).status_code == 202


def test_log_probs_longer_than_max_seq_len_are_refused(api: MockApi) -> None:
    job_id = api.create_job()
    route = f"/{job_id}/log-probs"
    prompt, completion = [7] * (MAX_SEQ_LEN - 10), "x" * 11  # text counts its UTF-8 bytes
    wide = api.http.post(route, json={"prompts": [[1], prompt], "completions": [[2], completion]})
    body = refused(wide, 422, "sequence_too_long")
    assert body["details"][0]["loc"] == ["body", "prompts", 1]
    fits = {"prompts": [prompt], "completions": [completion[:10]]}
    assert api.http.post(route, json=fits).status_code == 202


def test_cursor_beyond_any_index_is_not_a_500(api: MockApi) -> None:
    job_id = api.create_job()
    request_id = api.http.post(f"/{job_id}/step", json={}).json()["request_id"]
    api.wait(job_id, request_id)
    url = f"/{job_id}/requests/{request_id}"
    for cursor in ("ev-9223372036854775808", "ev-" + "9" * 200):
        page = api.http.get(url, params={"cursor": cursor})
        assert page.status_code == 200, page.text
        assert page.json()["status"] == "done"


@pytest.fixture
def mock_process(tmp_path: Path) -> Iterator[tuple[MockApi, Process]]:
    """A canned mock in its own process, and an HTTP client for it."""
    with mock_in_own_process(tmp_path / "state") as pair:
        yield pair


# The mock's threads beyond its fixed ones are two pools of fixed size: its blocking work's
# (the loop's executor) and the wire's hashing helpers. Each starts a thread on first use
# (the warm-up below) and another only when a call finds every one busy, which timing
# decides: an abandoned group's write still runs when the next group's first chunk comes.
# What the pools can still add is their unfilled part; a thread per group would add 70.
UNFILLED_POOL_THREADS = (ServerSettings().blocking_threads - 1) + (_HELPER_THREADS - 1)


def test_abandoned_groups_cost_what_they_sent(mock_process: tuple[MockApi, Process]) -> None:
    """30 groups declaring 31 MiB and 40 declaring 16 GiB, each left after its first chunk."""
    api, server = mock_process
    small_job, huge_job = api.create_job(), api.create_job()
    warm = first_chunk("warm-up", payload=MiB, declared=40 * MiB)
    assert api.http.post(f"/{small_job}/forward-backward", content=warm).status_code == 200
    before = server.status()
    for i in range(30):
        chunk = first_chunk(f"small-{i}", payload=1024, declared=31 * MiB)
        assert api.http.post(f"/{small_job}/forward-backward", content=chunk).status_code == 200
    after_small = server.status()
    for i in range(40):
        chunk = first_chunk(f"huge-{i}", payload=256 * 1024, declared=16 * 1024**3)
        assert api.http.post(f"/{huge_job}/forward-backward", content=chunk).status_code == 200
    after_huge = server.status()
    sent_kb = (30 * 1024 + 40 * 256 * 1024) // 1024
    measured = {
        "rss_after_31MiB_groups_kb": after_small["VmRSS"] - before["VmRSS"],
        "rss_after_all_kb": after_huge["VmRSS"] - before["VmRSS"],
        "address_space_kb": after_huge["VmSize"] - before["VmSize"],
        "threads": after_huge["Threads"] - before["Threads"],
    }
    bounds = {
        "rss_after_31MiB_groups_kb": 16 * 1024,
        "rss_after_all_kb": 16 * 1024 + 2 * sent_kb,
        "address_space_kb": 1024 * 1024,  # 1 GiB
        "threads": UNFILLED_POOL_THREADS + 1,
    }
    assert all(measured[name] < bound for name, bound in bounds.items()), (measured, bounds)
