# generated from openapi/cortex_gs.yaml by make generate; do not edit
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.request_status import RequestStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    job_id: str,
    request_id: str,
    *,
    cursor: str | Unset = UNSET,
    max_events: int | Unset = 16,
    wait_s: float | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["cursor"] = cursor

    params["max_events"] = max_events

    params["wait_s"] = wait_s

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/{job_id}/requests/{request_id}".format(
            job_id=quote(str(job_id), safe=""),
            request_id=quote(str(request_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | RequestStatus | None:
    if response.status_code == 200:
        response_200 = RequestStatus.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 410:
        response_410 = Error.from_dict(response.json())

        return response_410

    if response.status_code == 422:
        response_422 = Error.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if response.status_code == 507:
        response_507 = Error.from_dict(response.json())

        return response_507

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | RequestStatus]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    job_id: str,
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    max_events: int | Unset = 16,
    wait_s: float | Unset = UNSET,
) -> Response[Error | RequestStatus]:
    """Poll a request

     A request's status, its result when done, and one page of its events. Two delivery
    modes: a large DSSST1 result arrives as `result_chunk` events paged by
    `next_cursor` (echo it as `cursor`; the same cursor answers the same page again);
    `next_cursor` is non-empty only while more result chunks are queued, and `""` when
    nothing is (a client re-polls at once while it is non-empty, and backs off otherwise).
    Streaming-generation events are drained destructively, up to `max_events` per poll.
    Small DSSST1 results come inline as an `InlineBinaryResult`; JSON results as an object
    in `result`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        request_id (str): A data-plane request's id, opaque; a self-describing id may embed the
            owning sub-job (with `:`).
        cursor (str | Unset): An opaque result-chunk cursor, as a poll's non-empty `next_cursor`
            gave it.
        max_events (int | Unset):  Default: 16.
        wait_s (float | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RequestStatus]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        request_id=request_id,
        cursor=cursor,
        max_events=max_events,
        wait_s=wait_s,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    max_events: int | Unset = 16,
    wait_s: float | Unset = UNSET,
) -> Error | RequestStatus | None:
    """Poll a request

     A request's status, its result when done, and one page of its events. Two delivery
    modes: a large DSSST1 result arrives as `result_chunk` events paged by
    `next_cursor` (echo it as `cursor`; the same cursor answers the same page again);
    `next_cursor` is non-empty only while more result chunks are queued, and `""` when
    nothing is (a client re-polls at once while it is non-empty, and backs off otherwise).
    Streaming-generation events are drained destructively, up to `max_events` per poll.
    Small DSSST1 results come inline as an `InlineBinaryResult`; JSON results as an object
    in `result`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        request_id (str): A data-plane request's id, opaque; a self-describing id may embed the
            owning sub-job (with `:`).
        cursor (str | Unset): An opaque result-chunk cursor, as a poll's non-empty `next_cursor`
            gave it.
        max_events (int | Unset):  Default: 16.
        wait_s (float | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RequestStatus
    """

    return sync_detailed(
        job_id=job_id,
        request_id=request_id,
        client=client,
        cursor=cursor,
        max_events=max_events,
        wait_s=wait_s,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    max_events: int | Unset = 16,
    wait_s: float | Unset = UNSET,
) -> Response[Error | RequestStatus]:
    """Poll a request

     A request's status, its result when done, and one page of its events. Two delivery
    modes: a large DSSST1 result arrives as `result_chunk` events paged by
    `next_cursor` (echo it as `cursor`; the same cursor answers the same page again);
    `next_cursor` is non-empty only while more result chunks are queued, and `""` when
    nothing is (a client re-polls at once while it is non-empty, and backs off otherwise).
    Streaming-generation events are drained destructively, up to `max_events` per poll.
    Small DSSST1 results come inline as an `InlineBinaryResult`; JSON results as an object
    in `result`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        request_id (str): A data-plane request's id, opaque; a self-describing id may embed the
            owning sub-job (with `:`).
        cursor (str | Unset): An opaque result-chunk cursor, as a poll's non-empty `next_cursor`
            gave it.
        max_events (int | Unset):  Default: 16.
        wait_s (float | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | RequestStatus]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        request_id=request_id,
        cursor=cursor,
        max_events=max_events,
        wait_s=wait_s,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    max_events: int | Unset = 16,
    wait_s: float | Unset = UNSET,
) -> Error | RequestStatus | None:
    """Poll a request

     A request's status, its result when done, and one page of its events. Two delivery
    modes: a large DSSST1 result arrives as `result_chunk` events paged by
    `next_cursor` (echo it as `cursor`; the same cursor answers the same page again);
    `next_cursor` is non-empty only while more result chunks are queued, and `""` when
    nothing is (a client re-polls at once while it is non-empty, and backs off otherwise).
    Streaming-generation events are drained destructively, up to `max_events` per poll.
    Small DSSST1 results come inline as an `InlineBinaryResult`; JSON results as an object
    in `result`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        request_id (str): A data-plane request's id, opaque; a self-describing id may embed the
            owning sub-job (with `:`).
        cursor (str | Unset): An opaque result-chunk cursor, as a poll's non-empty `next_cursor`
            gave it.
        max_events (int | Unset):  Default: 16.
        wait_s (float | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | RequestStatus
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            request_id=request_id,
            client=client,
            cursor=cursor,
            max_events=max_events,
            wait_s=wait_s,
        )
    ).parsed
