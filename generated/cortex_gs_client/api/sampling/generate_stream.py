# generated from openapi/cortex_gs.yaml by make generate; do not edit
from collections.abc import Sized
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.generate_stream_accepted import GenerateStreamAccepted
from ...types import File, Response


def _get_kwargs(
    job_id: str,
    *,
    body: File,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/{job_id}/generate-stream".format(
            job_id=quote(str(job_id), safe=""),
        ),
    }

    _kwargs["content"] = body.payload
    if isinstance(body.payload, Sized):
        headers["Content-Length"] = str(len(body.payload))

    headers["Content-Type"] = "application/octet-stream"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | GenerateStreamAccepted | None:
    if response.status_code == 202:
        response_202 = GenerateStreamAccepted.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())

        return response_413

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
) -> Response[Error | GenerateStreamAccepted]:
    try:
        parsed = _parse_response(client=client, response=response)
    except (KeyError, TypeError, ValueError):
        parsed = None
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=parsed,
    )


def sync_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File,
) -> Response[Error | GenerateStreamAccepted]:
    """Start streaming generation

     Takes the same logical fields as `generate` (a `GenerateRequest`), but the body is UTF-8
    JSON sent as `application/octet-stream`, not DSSST1, at most 60 MiB and never chunked.
    The answer is `202 GenerateStreamAccepted` (`count` is the number of prompts). Poll
    `get_request` with `max_events`: each page drains up to `max_events` stream events
    (`GenerateStreamEvent`: `result`, `error`, then one `done`). Events are consumed as they
    are read: the server advances its delivery cursor, there is no retry cursor for them,
    and a lost poll answer loses the events it carried.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | GenerateStreamAccepted]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File,
) -> Error | GenerateStreamAccepted | None:
    """Start streaming generation

     Takes the same logical fields as `generate` (a `GenerateRequest`), but the body is UTF-8
    JSON sent as `application/octet-stream`, not DSSST1, at most 60 MiB and never chunked.
    The answer is `202 GenerateStreamAccepted` (`count` is the number of prompts). Poll
    `get_request` with `max_events`: each page drains up to `max_events` stream events
    (`GenerateStreamEvent`: `result`, `error`, then one `done`). Events are consumed as they
    are read: the server advances its delivery cursor, there is no retry cursor for them,
    and a lost poll answer loses the events it carried.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | GenerateStreamAccepted
    """

    return sync_detailed(
        job_id=job_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File,
) -> Response[Error | GenerateStreamAccepted]:
    """Start streaming generation

     Takes the same logical fields as `generate` (a `GenerateRequest`), but the body is UTF-8
    JSON sent as `application/octet-stream`, not DSSST1, at most 60 MiB and never chunked.
    The answer is `202 GenerateStreamAccepted` (`count` is the number of prompts). Poll
    `get_request` with `max_events`: each page drains up to `max_events` stream events
    (`GenerateStreamEvent`: `result`, `error`, then one `done`). Events are consumed as they
    are read: the server advances its delivery cursor, there is no retry cursor for them,
    and a lost poll answer loses the events it carried.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | GenerateStreamAccepted]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File,
) -> Error | GenerateStreamAccepted | None:
    """Start streaming generation

     Takes the same logical fields as `generate` (a `GenerateRequest`), but the body is UTF-8
    JSON sent as `application/octet-stream`, not DSSST1, at most 60 MiB and never chunked.
    The answer is `202 GenerateStreamAccepted` (`count` is the number of prompts). Poll
    `get_request` with `max_events`: each page drains up to `max_events` stream events
    (`GenerateStreamEvent`: `result`, `error`, then one `done`). Events are consumed as they
    are read: the server advances its delivery cursor, there is no retry cursor for them,
    and a lost poll answer loses the events it carried.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | GenerateStreamAccepted
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            client=client,
            body=body,
        )
    ).parsed
