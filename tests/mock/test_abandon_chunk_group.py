"""The proposed abandon route: an unfinished upload's chunk group is dropped and its room
among the job's unfinished groups freed; a group that has run stays; an unknown one is 404."""

from __future__ import annotations

from devtools.live_mock import LiveMock, MockApi

from .e2e import chunks_of, executions, train_batch


def test_an_unfinished_group_is_abandoned_and_its_room_freed(
    live_mock_factory: object,
) -> None:
    mock: LiveMock = live_mock_factory("canned", service="proposed", max_open_chunk_groups=1)  # type: ignore[operator]
    api = MockApi(mock)
    try:
        job_id = api.create_job()
        first = chunks_of(train_batch(seed=1), "cut-upload")
        second = chunks_of(train_batch(seed=2), "next-upload")
        assert api.http.post(f"/{job_id}/forward-backward", content=first[0]).status_code == 200
        full = api.http.post(f"/{job_id}/forward-backward", content=second[0])
        assert full.status_code == 409 and full.json()["error_code"] == "too_many_chunk_groups"

        abandoned = api.http.delete(f"/{job_id}/chunk-groups/cut-upload")
        assert abandoned.status_code == 204, abandoned.text
        assert abandoned.content == b""
        again = api.http.delete(f"/{job_id}/chunk-groups/cut-upload")
        assert again.status_code == 404 and again.json()["error_code"] == "not_found"

        for chunk in second:  # the room is free: the next upload runs
            answer = api.http.post(f"/{job_id}/forward-backward", content=chunk)
        assert answer.status_code == 202, answer.text
        ran = api.http.delete(f"/{job_id}/chunk-groups/next-upload")
        assert ran.status_code == 409 and ran.json()["code"] == "chunk_group_conflict"
        repeated = api.http.post(f"/{job_id}/forward-backward", content=second[-1])
        assert repeated.json()["request_id"] == answer.json()["request_id"]
        assert executions(mock, job_id, "forward_backward") == 1
    finally:
        api.close()


def test_abandoning_in_an_unknown_job_is_404(proposed_api: MockApi) -> None:
    answer = proposed_api.http.delete("/job-unknown/chunk-groups/some-group")
    assert answer.status_code == 404 and answer.json()["error_code"] == "job_not_found"
