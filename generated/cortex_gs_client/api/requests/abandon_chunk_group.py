# generated from openapi/cortex_gs.yaml by make generate; do not edit
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...types import Response


def _get_kwargs(
    job_id: str,
    chunk_group_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/{job_id}/chunk-groups/{chunk_group_id}".format(
            job_id=quote(str(job_id), safe=""),
            chunk_group_id=quote(str(chunk_group_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Error | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

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

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    job_id: str,
    chunk_group_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Any | Error]:
    """Abandon an unfinished upload (proposed)

     Drops an unfinished chunk group and its chunks, freeing its place among the job's
    unfinished groups. The group id may be used again afterwards: the server then knows it
    no more (a new group starts at chunk 0). A group whose final chunk was accepted has run
    (or runs) and is never dropped: `409 chunk_group_conflict`, its request answering a
    resent final chunk as before. An unknown group (never started, expired, abandoned
    already) is `404 not_found`. No body either way; `204` on success.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        chunk_group_id (str): The idempotency key of one chunked operation, chosen by the client
            (a UUID4 today).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Error]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        chunk_group_id=chunk_group_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    chunk_group_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Any | Error | None:
    """Abandon an unfinished upload (proposed)

     Drops an unfinished chunk group and its chunks, freeing its place among the job's
    unfinished groups. The group id may be used again afterwards: the server then knows it
    no more (a new group starts at chunk 0). A group whose final chunk was accepted has run
    (or runs) and is never dropped: `409 chunk_group_conflict`, its request answering a
    resent final chunk as before. An unknown group (never started, expired, abandoned
    already) is `404 not_found`. No body either way; `204` on success.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        chunk_group_id (str): The idempotency key of one chunked operation, chosen by the client
            (a UUID4 today).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Error
    """

    return sync_detailed(
        job_id=job_id,
        chunk_group_id=chunk_group_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    chunk_group_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Any | Error]:
    """Abandon an unfinished upload (proposed)

     Drops an unfinished chunk group and its chunks, freeing its place among the job's
    unfinished groups. The group id may be used again afterwards: the server then knows it
    no more (a new group starts at chunk 0). A group whose final chunk was accepted has run
    (or runs) and is never dropped: `409 chunk_group_conflict`, its request answering a
    resent final chunk as before. An unknown group (never started, expired, abandoned
    already) is `404 not_found`. No body either way; `204` on success.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        chunk_group_id (str): The idempotency key of one chunked operation, chosen by the client
            (a UUID4 today).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Error]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        chunk_group_id=chunk_group_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    chunk_group_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Any | Error | None:
    """Abandon an unfinished upload (proposed)

     Drops an unfinished chunk group and its chunks, freeing its place among the job's
    unfinished groups. The group id may be used again afterwards: the server then knows it
    no more (a new group starts at chunk 0). A group whose final chunk was accepted has run
    (or runs) and is never dropped: `409 chunk_group_conflict`, its request answering a
    resent final chunk as before. An unknown group (never started, expired, abandoned
    already) is `404 not_found`. No body either way; `204` on success.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        chunk_group_id (str): The idempotency key of one chunked operation, chosen by the client
            (a UUID4 today).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Error
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            chunk_group_id=chunk_group_id,
            client=client,
        )
    ).parsed
